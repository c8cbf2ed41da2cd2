"""Rules engine of the valuation modeler (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.valuation import ValuationFacts
from research.domain.model.verdicts import AgentAnswer, ValuationVerdictModel
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language, RulesAgent, Scorecard, no_risk_seen, num, tr
from shared_contracts.experts import ValuationVerdict

CHEAP_PERCENTILE, DEAR_PERCENTILE = 20.0, 80.0
WIDE_SPREAD, NARROW_SPREAD = 3.0, 1.0
DIVIDEND_WEIGHT = 0.5
HIGH_PE = 40.0
Notes = tuple[str, str]
"""A note in zh and en."""


def _basis_zh(basis: str) -> str:
    if basis.startswith("own_history"):
        return "自身历史" + basis.removeprefix("own_history").replace(" points", " 个点")
    return "数据源提供，统计窗口未说明"


def _pe_notes(f: ValuationFacts) -> Notes:
    """The PE, named by the earnings it uses, and its percentile when there is one (each missing part in words)."""
    label_zh, label_en = pe_label(f, "zh"), pe_label(f, "en")
    if f.pe_ttm is None:
        return f"无 {label_zh} 数据", f"no {label_en} available"
    pe, p = num(f.pe_ttm), f.pe_ttm_percentile
    if p is None:
        return f"{label_zh} {pe}，无历史分位数据", f"{label_en} {pe} (no historical percentile available)"
    basis = f.pe_percentile_basis
    return (
        f"{label_zh} {pe}，历史分位 {num(p, 1)}%" + (f"（{_basis_zh(basis)}）" if basis else ""),
        f"{label_en} {pe} at the {num(p, 1)}th percentile" + (f" ({basis})" if basis else ""),
    )


def pe_label(f: ValuationFacts, lang: Language) -> str:
    """ "PE(TTM)" for a trailing-twelve-months PE, else the PE on the last annual report's profit."""
    if f.pe_earnings == "ttm":
        return "PE(TTM)"
    return tr(lang, "PE（上一年报利润）", "PE (last annual profit)")


def _bond_text(f: ValuationFacts) -> Notes:
    bond = num(f.bond_yield_10y_pct, 3)
    if f.bond_yield_date is None:
        return f"10年期国债 {bond}%", f"the 10-year yield {bond}%"
    return f"10年期国债 {bond}%（{f.bond_yield_date}）", f"the 10-year yield {bond}% ({f.bond_yield_date})"


def _against(subject: Notes, comparison: Notes | None, nothing: Notes) -> Notes:
    """``subject`` and its comparison, or ``subject`` and that there is no ``nothing`` to compare it with."""
    if comparison is None:
        return f"{subject[0]}，无{nothing[0]}可比", f"{subject[1]}, no {nothing[1]} to compare it with"
    return subject[0] + comparison[0], subject[1] + comparison[1]


def _spread_notes(f: ValuationFacts) -> Notes:
    if f.earnings_yield_pct is None:
        return (
            "无盈利收益率（PE 缺失或为负），不与国债收益率比较",
            "no earnings yield (PE missing or negative) to compare",
        )
    ey, spread = num(f.earnings_yield_pct), num(f.yield_spread_pts)
    bond_zh, bond_en = _bond_text(f)
    compared = (
        None
        if f.yield_spread_pts is None
        else (f" 对比{bond_zh}，利差 {spread} 个百分点", f" against {bond_en}: spread {spread} pts")
    )
    return _against((f"盈利收益率 {ey}%", f"earnings yield {ey}%"), compared, ("10年期国债收益率", "10-year yield"))


def _intrinsic_notes(f: ValuationFacts) -> Notes:
    if f.close is None:
        return "无收盘价，不与内在价值比较", "no close to compare with an intrinsic value"
    close, day, iv = num(f.close), f.as_of.isoformat(), f.intrinsic_value
    compared = None
    if iv is not None:
        low, high = num(iv.low), num(iv.high)
        compared = (f"对比盈利能力价值区间 {low}–{high}", f" against the earnings-power value range {low}–{high}")
    subject = (f"股价 {close}（{day} 收盘）", f"price {close} (close of {day})")
    return _against(subject, compared, ("盈利能力价值区间", "earnings-power value range"))


def _dividend_notes(f: ValuationFacts) -> Notes:
    if f.dividend_yield_pct is None:
        return "无股息率数据", "no dividend yield available"
    dy, bond = num(f.dividend_yield_pct), num(f.bond_yield_10y_pct, 3)
    compared = (
        None if f.bond_yield_10y_pct is None else (f" 对比10年期国债 {bond}%", f" against the 10-year yield {bond}%")
    )
    return _against((f"股息率 {dy}%", f"dividend yield {dy}%"), compared, ("10年期国债收益率", "10-year yield"))


def score_valuation(f: ValuationFacts, lang: Language) -> Scorecard:
    card = Scorecard(lang)
    p = f.pe_ttm_percentile
    card.add(
        "pe_percentile",
        None if p is None else 1 if p <= CHEAP_PERCENTILE else -1 if p >= DEAR_PERCENTILE else 0,
        {"pe_ttm": f.pe_ttm, "percentile": p},
        *_pe_notes(f),
    )
    spread = f.yield_spread_pts
    card.add(
        "earnings_yield_spread",
        None if spread is None else 1 if spread >= WIDE_SPREAD else -1 if spread < NARROW_SPREAD else 0,
        {"earnings_yield_pct": f.earnings_yield_pct, "bond_yield_10y_pct": f.bond_yield_10y_pct, "spread_pts": spread},
        *_spread_notes(f),
    )
    iv, close = f.intrinsic_value, f.close
    low, high = (iv.low, iv.high) if iv else (None, None)
    card.add(
        "price_vs_intrinsic_range",
        None if iv is None or close is None else 1 if close < iv.low else -1 if close > iv.high else 0,
        {"close": close, "low": low, "high": high},
        *_intrinsic_notes(f),
    )
    dy, bond_pct = f.dividend_yield_pct, f.bond_yield_10y_pct
    card.add(
        "dividend_yield_vs_bond",
        None if dy is None or bond_pct is None else 1 if dy >= bond_pct else -1 if dy < bond_pct / 2 else 0,
        {"dividend_yield_pct": dy, "bond_yield_10y_pct": bond_pct},
        *_dividend_notes(f),
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
        pe, label = num(f.pe_ttm), pe_label(f, lang)
        risks.append(
            tr(lang, f"{label} {pe} 偏高，对盈利不及预期敏感", f"{label} {pe} is high and sensitive to earnings misses")
        )
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
            risk_factors=risk_factors(facts, self._lang) or [no_risk_seen(self._lang)],
        )
        # notes on the data and the method, not investment risks (data_gaps holds the data ones)
        caveats = list(facts.gaps)
        if facts.intrinsic_value is not None:
            caveats.append("the earnings-power value assumes no growth and understates growing firms")
        return card.answer(verdict, facts, caveats)
