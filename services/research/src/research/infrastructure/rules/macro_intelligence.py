"""Rules engine of the macro intelligence expert (see README "Rules engine")."""

from __future__ import annotations

from typing import Any

from research.domain.analysis.macro import MacroFacts, SeriesSummary, ten_year_yield
from research.domain.model.verdicts import AgentAnswer, MacroVerdict
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language, RulesAgent, Scorecard, no_risk_seen, num, tr
from shared_contracts.experts import MacroEnvironment

PMI_EXPANSION = 50.0
CPI_LOW, CPI_HIGH = 1.0, 3.0
_TREND_ZH = {"rising": "上行", "falling": "下行", "flat": "持平", None: "趋势不明"}


def _trend_score(s: SeriesSummary | None, rising_is_good: bool) -> int | None:
    if s is None or s.trend_6m is None:
        return None
    sign = {"rising": 1, "falling": -1, "flat": 0}[s.trend_6m]
    return sign if rising_is_good else -sign


def _add_series(
    card: Scorecard, rule: str, score: int | None, inputs: dict[str, Any], s: SeriesSummary | None, zh: str, en: str
) -> None:
    """A rule on one series, noted with its latest value, date, 6-month change and trend (``zh``/``en``: its label)."""
    if s is None:
        card.add(rule, score, inputs, f"缺少{zh}数据", f"no {en} data")
        return
    latest = num(s.latest)
    if s.change_6m is None:  # a series younger than six months: no change yet, so no trend
        change_zh, change_en = "不足6个月，尚无变化与趋势", "under six months of data, no change or trend yet"
    else:
        change = num(s.change_6m)
        change_zh = f"近6个月变化 {change}，{_TREND_ZH[s.trend_6m]}"
        change_en = f"6-month change {change}, {s.trend_6m or 'trend unknown'}"
    card.add(
        rule,
        score,
        inputs,
        f"{zh} {latest}（{s.latest_date}，{change_zh}）",
        f"{en} {latest} ({s.latest_date}, {change_en})",
    )


def _lpr_notes(latest: float | None, change: float | None) -> tuple[str, str]:
    if latest is None:
        return "无1年期LPR数据", "no 1-year LPR data"
    if change is None:
        return f"1年期LPR {num(latest)}%，尚无12个月变化", f"1-year LPR {num(latest)}%, no 12-month change yet"
    return (
        f"1年期LPR {num(latest)}%，12个月变化 {num(change)}",
        f"1-year LPR {num(latest)}%, 12-month change {num(change)}",
    )


def score_macro(f: MacroFacts, lang: Language) -> Scorecard:
    card = Scorecard(lang)
    pmi, cpi, ppi, m2, lpr = (
        f.series.get(n) for n in ("pmi_manufacturing_nbs", "cpi_yoy", "ppi_yoy", "m2_yoy", "lpr_1y")
    )
    pmi_score = None if pmi is None else 1 if pmi.latest >= PMI_EXPANSION else -1
    _add_series(
        card, "pmi_level", pmi_score, {"pmi": pmi.latest if pmi else None}, pmi, "制造业PMI", "manufacturing PMI"
    )
    cpi_score = None
    if cpi is not None:
        cpi_score = 1 if CPI_LOW <= cpi.latest <= CPI_HIGH else -1 if cpi.latest <= 0 or cpi.latest > CPI_HIGH else 0
    _add_series(card, "cpi_level", cpi_score, {"cpi_yoy": cpi.latest if cpi else None}, cpi, "CPI同比", "CPI YoY")
    ppi_inputs = {"ppi_trend": ppi.trend_6m if ppi else None}
    _add_series(card, "ppi_trend", _trend_score(ppi, True), ppi_inputs, ppi, "PPI同比", "PPI YoY")
    m2_inputs = {"m2_trend": m2.trend_6m if m2 else None}
    _add_series(card, "m2_trend", _trend_score(m2, True), m2_inputs, m2, "M2同比", "M2 YoY")
    change = lpr.change_12m if lpr else None
    card.add(
        "lpr_12m_change",
        None if change is None else 1 if change < 0 else -1 if change > 0 else 0,
        {"lpr_change_12m": change},
        *_lpr_notes(lpr.latest if lpr else None, change),
    )
    bond = ten_year_yield(f.series)
    bond_inputs = {"bond_trend": bond.trend_6m if bond else None}
    bond_label = ("10年期国债收益率", "10-year government bond yield")
    _add_series(card, "bond_yield_trend", _trend_score(bond, False), bond_inputs, bond, *bond_label)
    return card


def key_risks(f: MacroFacts, lang: Language) -> list[str]:
    cpi, ppi, pmi, m2 = (f.series.get(n) for n in ("cpi_yoy", "ppi_yoy", "pmi_manufacturing_nbs", "m2_yoy"))
    risks = []
    if (cpi and cpi.latest <= 0) or (ppi and ppi.latest < 0):
        named = [(name, num(s.latest)) for name, s in (("CPI", cpi), ("PPI", ppi)) if s is not None]
        zh, en = "，".join(f"{n} {v}%" for n, v in named), ", ".join(f"{n} {v}%" for n, v in named)
        risks.append(tr(lang, f"通缩压力：{zh}", f"deflationary pressure: {en}"))
    if pmi and pmi.latest < PMI_EXPANSION:
        zh, en = (
            f"制造业PMI {num(pmi.latest)} 低于荣枯线",
            f"manufacturing PMI {num(pmi.latest)} below 50 (contraction)",
        )
        risks.append(tr(lang, zh, en))
    bond = ten_year_yield(f.series)
    if bond and bond.trend_6m == "rising":
        risks.append(tr(lang, "长端利率上行压制估值", "rising long-term yields weigh on valuations"))
    if m2 and m2.trend_6m == "falling":
        risks.append(tr(lang, "M2 增速放缓，流动性边际收紧", "slowing M2 growth: liquidity tightening at the margin"))
    return risks[:10]


class RulesMacroIntelligenceAgent(RulesAgent, ExpertAgent[MacroFacts, MacroVerdict]):
    async def analyse(self, facts: MacroFacts) -> AgentAnswer[MacroVerdict]:
        card = score_macro(facts, self._lang)
        env = card.pick(MacroEnvironment.FAVORABLE, MacroEnvironment.UNFAVORABLE, MacroEnvironment.NEUTRAL)
        verdict = MacroVerdict(
            macro_environment=env,
            confidence_score=card.confidence,
            macro_summary=card.summary(
                f"{facts.region} 宏观环境截至 {facts.as_of} {card.pick('偏有利', '偏不利', '中性')}",
                f"the {facts.region} macro backdrop as of {facts.as_of} is {env.value.lower()}",
            ),
            key_risks=key_risks(facts, self._lang) or [no_risk_seen(self._lang)],
        )
        # a note on the data, not an investment risk: in the trace, never in key_risks
        return card.answer(verdict, facts, [f"macro data are {facts.region}-wide and ignore sector differences"])
