"""Rules engine of the valuation modeler (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.valuation import ValuationFacts
from research.domain.model.verdicts import AgentAnswer, ValuationVerdictModel
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language, RulesAgent, Scorecard, num, tr
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
    card = Scorecard(lang)
    p = f.pe_ttm_percentile
    card.add(
        "pe_percentile",
        None if p is None else 1 if p <= CHEAP_PERCENTILE else -1 if p >= DEAR_PERCENTILE else 0,
        {"pe_ttm": f.pe_ttm, "percentile": p},
        f"PE(TTM) {num(f.pe_ttm)}，历史分位 {num(p, 1)}%（{_basis_zh(f.pe_percentile_basis)}）",
        f"PE(TTM) {num(f.pe_ttm)} at the {num(p, 1)}th percentile ({f.pe_percentile_basis or '-'})",
    )
    spread, bond, bond_day = f.yield_spread_pts, num(f.bond_yield_10y_pct, 3), f.bond_yield_date or "-"
    card.add(
        "earnings_yield_spread",
        None if spread is None else 1 if spread >= WIDE_SPREAD else -1 if spread < NARROW_SPREAD else 0,
        {"earnings_yield_pct": f.earnings_yield_pct, "bond_yield_10y_pct": f.bond_yield_10y_pct, "spread_pts": spread},
        f"盈利收益率 {num(f.earnings_yield_pct)}% 对比10年期国债 {bond}%（{bond_day}），利差 {num(spread)} 个百分点",
        f"earnings yield {num(f.earnings_yield_pct)}% against the 10-year yield {bond}% ({bond_day}): "
        f"spread {num(spread)} pts",
    )
    iv, close = f.intrinsic_value, f.close
    low, high = (iv.low, iv.high) if iv else (None, None)
    card.add(
        "price_vs_intrinsic_range",
        None if iv is None or close is None else 1 if close < iv.low else -1 if close > iv.high else 0,
        {"close": close, "low": low, "high": high},
        f"股价 {num(close)}（{f.as_of.isoformat()} 收盘）对比盈利能力价值区间 {num(low)}–{num(high)}",
        f"price {num(close)} (close of {f.as_of.isoformat()}) against the earnings-power value range "
        f"{num(low)}–{num(high)}",
    )
    dy, bond_pct = f.dividend_yield_pct, f.bond_yield_10y_pct
    card.add(
        "dividend_yield_vs_bond",
        None if dy is None or bond_pct is None else 1 if dy >= bond_pct else -1 if dy < bond_pct / 2 else 0,
        {"dividend_yield_pct": dy, "bond_yield_10y_pct": bond_pct},
        f"股息率 {num(dy)}% 对比10年期国债 {bond}%",
        f"dividend yield {num(dy)}% against the 10-year yield {bond}%",
        weight=DIVIDEND_WEIGHT,
    )
    return card


def risk_factors(f: ValuationFacts, lang: Language) -> list[str]:
    """Investment risks only: losses (negative PE) or a high PE. How the figures were obtained (the source's
    percentile window, disagreeing sources, a missing PB, the no-growth value) are ``caveats``: the
    service lists them in ``data_gaps`` and the intrinsic range states its assumptions."""
    risks = []
    if f.pe_ttm is not None and f.pe_ttm <= 0:
        zh, en = "PE 为负（亏损），估值基于盈利的方法失效", "negative PE (losses): earnings-based methods do not apply"
        risks.append(tr(lang, zh, en))
    if f.pe_ttm is not None and f.pe_ttm >= HIGH_PE:
        pe = num(f.pe_ttm)
        risks.append(tr(lang, f"PE {pe} 偏高，对盈利不及预期敏感", f"PE {pe} is high and sensitive to earnings misses"))
    return risks


class RulesValuationModelerAgent(RulesAgent, ExpertAgent[ValuationFacts, ValuationVerdictModel]):
    async def analyse(self, facts: ValuationFacts) -> AgentAnswer[ValuationVerdictModel]:
        card = score_valuation(facts, self._lang)
        value = card.pick(ValuationVerdict.UNDERVALUED, ValuationVerdict.OVERVALUED, ValuationVerdict.FAIRLY_VALUED)
        verdict = ValuationVerdictModel(
            valuation_verdict=value,
            confidence_score=card.confidence,
            reasoning_summary=card.summary(
                f"{facts.symbol} 截至 {facts.as_of} 估值{card.pick('偏低', '偏高', '合理')}",
                f"{facts.symbol} as of {facts.as_of} looks {value.value.lower().replace('_', ' ')}",
            ),
            risk_factors=risk_factors(facts, self._lang),
        )
        # notes on the data and the method, not investment risks (data_gaps holds the data ones)
        caveats = list(facts.gaps)
        if facts.intrinsic_value is not None:
            caveats.append("the earnings-power value assumes no growth and understates growing firms")
        return card.answer(verdict, facts, caveats)
