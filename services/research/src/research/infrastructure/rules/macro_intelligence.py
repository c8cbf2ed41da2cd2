"""Rules engine of the macro intelligence expert (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.macro import MacroFacts, SeriesSummary, ten_year_yield
from research.domain.analysis.serialize import to_jsonable
from research.domain.model.verdicts import AgentAnswer, MacroVerdict
from research.domain.ports.agents import IMacroIntelligenceAgent
from research.infrastructure.rules.scoring import Language, Scorecard, num, tr
from shared_contracts.engine import EngineInfo
from shared_contracts.experts import MacroEnvironment

PMI_EXPANSION = 50.0
CPI_LOW, CPI_HIGH = 1.0, 3.0
_TREND_ZH = {"rising": "上行", "falling": "下行", "flat": "持平", None: "趋势不明"}


def _trend_score(s: SeriesSummary | None, rising_is_good: bool) -> int | None:
    if s is None or s.trend_6m is None:
        return None
    sign = {"rising": 1, "falling": -1, "flat": 0}[s.trend_6m]
    return sign if rising_is_good else -sign


def _describe(s: SeriesSummary | None, label: str, lang: Language) -> str:
    if s is None:
        return tr(lang, f"缺少{label}数据", f"no {label} data")
    trend = tr(lang, _TREND_ZH[s.trend_6m], s.trend_6m or "trend unknown")
    return tr(
        lang,
        f"{label} {num(s.latest)}（{s.latest_date}，近6个月变化 {num(s.change_6m)}，{trend}）",
        f"{label} {num(s.latest)} ({s.latest_date}, 6-month change {num(s.change_6m)}, {trend})",
    )


def score_macro(f: MacroFacts, lang: Language) -> Scorecard:
    card = Scorecard()
    get = f.series.get
    pmi = get("pmi_manufacturing_nbs")
    card.add(
        "pmi_level",
        None if pmi is None else 1 if pmi.latest >= PMI_EXPANSION else -1,
        _describe(pmi, tr(lang, "制造业PMI", "manufacturing PMI"), lang),
        {"pmi": pmi.latest if pmi else None},
    )
    cpi = get("cpi_yoy")
    cpi_score = (
        None
        if cpi is None
        else 1
        if CPI_LOW <= cpi.latest <= CPI_HIGH
        else -1
        if cpi.latest <= 0 or cpi.latest > CPI_HIGH
        else 0
    )
    card.add(
        "cpi_level",
        cpi_score,
        _describe(cpi, "CPI同比" if lang == "zh" else "CPI YoY", lang),
        {"cpi_yoy": cpi.latest if cpi else None},
    )
    ppi = get("ppi_yoy")
    card.add(
        "ppi_trend",
        _trend_score(ppi, True),
        _describe(ppi, "PPI同比" if lang == "zh" else "PPI YoY", lang),
        {"ppi_trend": ppi.trend_6m if ppi else None},
    )
    m2 = get("m2_yoy")
    card.add(
        "m2_trend",
        _trend_score(m2, True),
        _describe(m2, "M2同比" if lang == "zh" else "M2 YoY", lang),
        {"m2_trend": m2.trend_6m if m2 else None},
    )
    lpr = get("lpr_1y")
    lpr_score = (
        None if lpr is None or lpr.change_12m is None else 1 if lpr.change_12m < 0 else -1 if lpr.change_12m > 0 else 0
    )
    card.add(
        "lpr_12m_change",
        lpr_score,
        tr(
            lang,
            f"1年期LPR {num(lpr.latest if lpr else None)}%，12个月变化 {num(lpr.change_12m if lpr else None)}",
            f"1-year LPR {num(lpr.latest if lpr else None)}%, 12-month change {num(lpr.change_12m if lpr else None)}",
        ),
        {"lpr_change_12m": lpr.change_12m if lpr else None},
    )
    bond = ten_year_yield(f.series)
    card.add(
        "bond_yield_trend",
        _trend_score(bond, False),
        _describe(bond, tr(lang, "10年期国债收益率", "10-year government bond yield"), lang),
        {"bond_trend": bond.trend_6m if bond else None},
    )
    return card


def key_risks(f: MacroFacts, lang: Language) -> list[str]:
    get = f.series.get
    risks = []
    cpi, ppi, pmi = get("cpi_yoy"), get("ppi_yoy"), get("pmi_manufacturing_nbs")
    if (cpi and cpi.latest <= 0) or (ppi and ppi.latest < 0):
        risks.append(
            tr(
                lang,
                f"通缩压力：CPI {num(cpi.latest if cpi else None)}%，PPI {num(ppi.latest if ppi else None)}%",
                f"deflationary pressure: CPI {num(cpi.latest if cpi else None)}%, "
                f"PPI {num(ppi.latest if ppi else None)}%",
            )
        )
    if pmi and pmi.latest < PMI_EXPANSION:
        risks.append(
            tr(
                lang,
                f"制造业PMI {num(pmi.latest)} 低于荣枯线",
                f"manufacturing PMI {num(pmi.latest)} below 50 (contraction)",
            )
        )
    bond = ten_year_yield(f.series)
    if bond and bond.trend_6m == "rising":
        risks.append(tr(lang, "长端利率上行压制估值", "rising long-term yields weigh on valuations"))
    m2 = get("m2_yoy")
    if m2 and m2.trend_6m == "falling":
        risks.append(tr(lang, "M2 增速放缓，流动性边际收紧", "slowing M2 growth: liquidity tightening at the margin"))
    return risks[:10]


def caveats(f: MacroFacts) -> list[str]:
    """Notes on the data, not investment risks: they go to the trace, never to ``key_risks``."""
    return [f"macro data are {f.region}-wide and ignore sector differences"]


class RulesMacroIntelligenceAgent(IMacroIntelligenceAgent):
    def __init__(self, language: Language = "zh") -> None:
        self._lang = language

    async def analyse(self, facts: MacroFacts) -> AgentAnswer[MacroVerdict]:
        lang = self._lang
        card = score_macro(facts, lang)
        env = {1: MacroEnvironment.FAVORABLE, -1: MacroEnvironment.UNFAVORABLE, 0: MacroEnvironment.NEUTRAL}[
            card.direction
        ]
        head = tr(
            lang,
            f"{facts.region} 宏观环境截至 {facts.as_of} "
            f"{ {1: '偏有利', -1: '偏不利', 0: '中性'}[card.direction] }（规则得分 {card.normalized:+.2f}）：",
            f"the {facts.region} macro backdrop as of {facts.as_of} is "
            f"{env.value.lower()} (rule score {card.normalized:+.2f}): ",
        )
        verdict = MacroVerdict(
            macro_environment=env,
            confidence_score=card.confidence,
            macro_summary=head + ("；" if lang == "zh" else "; ").join(card.notes()),
            key_risks=key_risks(facts, lang),
        )
        trace = {**card.trace(), "caveats": caveats(facts)}
        return AgentAnswer(verdict, EngineInfo(kind="rules"), to_jsonable(facts), trace)
