"""Rules engine of the valuation modeler (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.serialize import to_jsonable
from research.domain.analysis.valuation import ValuationFacts
from research.domain.model.verdicts import AgentAnswer, ValuationVerdictModel
from research.domain.ports.agents import IValuationModelerAgent
from research.infrastructure.rules.scoring import Language, Scorecard, num, tr
from shared_contracts.engine import EngineInfo
from shared_contracts.experts import ValuationVerdict

CHEAP_PERCENTILE, DEAR_PERCENTILE = 20.0, 80.0
WIDE_SPREAD, NARROW_SPREAD = 3.0, 1.0
DIVIDEND_WEIGHT = 0.5
HIGH_PE = 40.0


def _basis_zh(basis: str | None) -> str:
    if basis is None:
        return "-"
    if basis.startswith("own_history"):
        return "自身历史" + basis.removeprefix("own_history").replace(" points", " 个点")
    return "数据源提供，统计窗口未说明"


def score_valuation(f: ValuationFacts, lang: Language) -> Scorecard:
    card = Scorecard()
    p = f.pe_ttm_percentile
    s = None if p is None else 1 if p <= CHEAP_PERCENTILE else -1 if p >= DEAR_PERCENTILE else 0
    card.add(
        "pe_percentile",
        s,
        tr(
            lang,
            f"PE(TTM) {num(f.pe_ttm)}，历史分位 {num(p, 1)}%（{_basis_zh(f.pe_percentile_basis)}）",
            f"PE(TTM) {num(f.pe_ttm)} at the {num(p, 1)}th percentile ({f.pe_percentile_basis or '-'})",
        ),
        {"pe_ttm": f.pe_ttm, "percentile": p},
    )
    spread = f.yield_spread_pts
    s = None if spread is None else 1 if spread >= WIDE_SPREAD else -1 if spread < NARROW_SPREAD else 0
    card.add(
        "earnings_yield_spread",
        s,
        tr(
            lang,
            f"盈利收益率 {num(f.earnings_yield_pct)}% 对比10年期国债 {num(f.bond_yield_10y_pct, 3)}%（"
            f"{f.bond_yield_date or '-'}），利差 {num(spread)} 个百分点",
            f"earnings yield {num(f.earnings_yield_pct)}% against the 10-year yield "
            f"{num(f.bond_yield_10y_pct, 3)}% ({f.bond_yield_date or '-'}): spread {num(spread)} pts",
        ),
        {"earnings_yield_pct": f.earnings_yield_pct, "bond_yield_10y_pct": f.bond_yield_10y_pct, "spread_pts": spread},
    )
    iv = f.intrinsic_value
    s = None
    if iv is not None and f.close is not None:
        s = 1 if f.close < iv.low else -1 if f.close > iv.high else 0
    card.add(
        "price_vs_intrinsic_range",
        s,
        tr(
            lang,
            f"股价 {num(f.close)}（{f.as_of.isoformat()} 收盘）对比盈利能力价值区间 "
            f"{num(iv.low if iv else None)}–{num(iv.high if iv else None)}",
            f"price {num(f.close)} (close of {f.as_of.isoformat()}) against the earnings-power value range "
            f"{num(iv.low if iv else None)}–{num(iv.high if iv else None)}",
        ),
        {"close": f.close, "low": iv.low if iv else None, "high": iv.high if iv else None},
    )
    dy, bond = f.dividend_yield_pct, f.bond_yield_10y_pct
    s = None if dy is None or bond is None else 1 if dy >= bond else -1 if dy < bond / 2 else 0
    card.add(
        "dividend_yield_vs_bond",
        s,
        tr(
            lang,
            f"股息率 {num(dy)}% 对比10年期国债 {num(bond, 3)}%",
            f"dividend yield {num(dy)}% against the 10-year yield {num(bond, 3)}%",
        ),
        {"dividend_yield_pct": dy, "bond_yield_10y_pct": bond},
        weight=DIVIDEND_WEIGHT,
    )
    return card


def risk_factors(f: ValuationFacts, lang: Language) -> list[str]:
    """Investment risks only: losses (negative PE) or a high PE. How the figures were obtained (the source's
    percentile window, disagreeing sources, a missing PB, the no-growth value) are ``caveats``: the
    service lists them in ``data_gaps`` and the intrinsic range states its assumptions."""
    risks = []
    if f.pe_ttm is not None and f.pe_ttm <= 0:
        risks.append(
            tr(
                lang,
                "PE 为负（亏损），估值基于盈利的方法失效",
                "negative PE (losses): earnings-based methods do not apply",
            )
        )
    if f.pe_ttm is not None and f.pe_ttm >= HIGH_PE:
        risks.append(
            tr(
                lang,
                f"PE {num(f.pe_ttm)} 偏高，对盈利不及预期敏感",
                f"PE {num(f.pe_ttm)} is high and sensitive to earnings misses",
            )
        )
    return risks


def caveats(f: ValuationFacts) -> list[str]:
    """Notes on the data and the method, not investment risks: the trace carries them (``data_gaps`` holds
    the data ones), never ``risk_factors``."""
    notes = list(f.gaps)
    if f.intrinsic_value is not None:
        notes.append("the earnings-power value assumes no growth and understates growing firms")
    return notes


class RulesValuationModelerAgent(IValuationModelerAgent):
    def __init__(self, language: Language = "zh") -> None:
        self._lang = language

    async def analyse(self, facts: ValuationFacts) -> AgentAnswer[ValuationVerdictModel]:
        lang = self._lang
        card = score_valuation(facts, lang)
        verdict_value = {
            1: ValuationVerdict.UNDERVALUED,
            -1: ValuationVerdict.OVERVALUED,
            0: ValuationVerdict.FAIRLY_VALUED,
        }[card.direction]
        head = tr(
            lang,
            f"{facts.symbol} 截至 {facts.as_of} "
            f"估值{ {1: '偏低', -1: '偏高', 0: '合理'}[card.direction] }（规则得分 {card.normalized:+.2f}）：",
            f"{facts.symbol} as of {facts.as_of} looks "
            f"{verdict_value.value.lower().replace('_', ' ')} (rule score {card.normalized:+.2f}): ",
        )
        verdict = ValuationVerdictModel(
            valuation_verdict=verdict_value,
            confidence_score=card.confidence,
            reasoning_summary=head + ("；" if lang == "zh" else "; ").join(card.notes()),
            risk_factors=risk_factors(facts, lang),
        )
        trace = {**card.trace(), "caveats": caveats(facts)}
        return AgentAnswer(verdict, EngineInfo(kind="rules"), to_jsonable(facts), trace)
