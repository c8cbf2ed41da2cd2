"""Rules engine of the financial auditor: one rule per dimension (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.financial import FinancialFacts, Latest
from research.domain.model.verdicts import AgentAnswer, DimensionAnalysis, FinancialVerdict
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language, RulesAgent, Scorecard, joined, no_risk_seen, num
from shared_contracts.experts import Signal

GROWTH_GOOD, GROWTH_BAD = 10.0, 0.0
ROE_GOOD, ROE_BAD = 15.0, 8.0
NET_MARGIN_GOOD, NET_MARGIN_BAD = 20.0, 5.0
OCF_GOOD, OCF_BAD = 1.0, 0.5
DEBT_GOOD, DEBT_BAD = 40.0, 70.0
PAYOUT_GOOD, PAYOUT_BAD = 30.0, 10.0
SHAREHOLDER_WEIGHT = 0.5

_ASSESSMENT = {1: "POSITIVE", 0: "NEUTRAL", -1: "NEGATIVE", None: "NOT_ASSESSED"}


def _band(value: float | None, good: float, bad: float, higher_is_better: bool = True) -> int | None:
    if value is None:
        return None
    if higher_is_better:
        return 1 if value >= good else -1 if value < bad else 0
    return 1 if value <= good else -1 if value > bad else 0


def _when(latest: Latest) -> tuple[str, str]:
    """ " (period end)" in each language, or nothing when the period is unknown."""
    if latest.period_end is None:
        return "", ""
    return f"（{latest.period_end}）", f" ({latest.period_end})"


def _figure(latest: Latest, zh: str, en: str, unit: str = "") -> tuple[str, str]:
    """ "label value (period)", or that the figure is not reported (never a placeholder)."""
    if latest.value is None:
        return f"{zh}无数据", f"no {en} reported"
    when_zh, when_en = _when(latest)
    value = num(latest.value)
    return f"{zh} {value}{unit}{when_zh}", f"{en} {value}{unit}{when_en}"


def _growth_notes(f: FinancialFacts, rev: Latest, profit: Latest) -> tuple[str, str]:
    parts = [(f"营收同比 {num(rev.value)}%", f"revenue {num(rev.value)}%")] if rev.value is not None else []
    if profit.value is not None:
        parts.append((f"净利润同比 {num(profit.value)}%", f"net profit {num(profit.value)}%"))
    if parts:
        when_zh, when_en = _when(rev if rev.value is not None else profit)
        zh, en = "、".join(p[0] for p in parts) + when_zh, " and ".join(p[1] for p in parts) + " YoY" + when_en
    else:
        zh, en = "无营收与净利润同比数据", "no revenue or net profit growth reported"
    if f.revenue_cagr_pct is not None:
        cagr = num(f.revenue_cagr_pct)
        zh, en = f"{zh}，区间营收复合增速 {cagr}%", f"{en}, revenue CAGR {cagr}%"
    return zh, en


def _profitability_notes(f: FinancialFacts, roe: Latest, margin: Latest) -> tuple[str, str]:
    if roe.value is not None:
        zh, en = _figure(roe, "ROE", "ROE", "%")
        if f.avg_roe_pct is not None:
            avg = num(f.avg_roe_pct)
            zh, en = f"{zh}，区间平均 {avg}%", f"{en}, period average {avg}%"
        return zh, en
    if margin.value is None:
        return "无 ROE 与净利率数据", "no ROE or net margin reported"
    m = num(margin.value)
    return f"无 ROE 数据，净利率 {m}%", f"no ROE reported; net margin {m}%"


def score_financial(f: FinancialFacts, lang: Language) -> Scorecard:
    card = Scorecard(lang)
    rev, profit = f.latest("revenue_yoy_pct"), f.latest("net_profit_yoy_pct")
    growth = [v for v in (rev.value, profit.value) if v is not None]
    avg = sum(growth) / len(growth) if growth else None
    card.add(
        "growth",
        _band(avg, GROWTH_GOOD, GROWTH_BAD),
        {"revenue_yoy_pct": rev.value, "net_profit_yoy_pct": profit.value, "average": avg},
        *_growth_notes(f, rev, profit),
    )
    roe, margin = f.latest("roe_pct"), f.latest("net_margin_pct")
    inputs = {"roe_pct": roe.value, "net_margin_pct": margin.value}
    score = (
        _band(roe.value, ROE_GOOD, ROE_BAD)
        if roe.value is not None
        else _band(margin.value, NET_MARGIN_GOOD, NET_MARGIN_BAD)
    )
    card.add("profitability", score, inputs, *_profitability_notes(f, roe, margin))
    ocf, debt = f.latest("ocf_to_net_profit"), f.latest("debt_ratio_pct")
    ocf_zh, ocf_en = _figure(ocf, "经营现金流/净利润", "operating cash flow / net profit")
    debt_zh, debt_en = _figure(debt, "资产负债率", "debt ratio", "%")
    if f.financial_institution_like:
        card.add(
            "cash_flow",
            None,
            {"ocf_to_net_profit": ocf.value},
            f"{ocf_zh}：金融机构的经营现金流含存贷款变动，不评估",
            f"{ocf_en}: a financial institution's OCF moves with deposits and loans, not scored",
        )
        card.add(
            "leverage",
            None,
            {"debt_ratio_pct": debt.value},
            f"{debt_zh} 且无毛利率，按金融机构处理，不评估",
            f"{debt_en} and no gross margin: read as a financial institution, not scored",
        )
    else:
        card.add("cash_flow", _band(ocf.value, OCF_GOOD, OCF_BAD), {"ocf_to_net_profit": ocf.value}, ocf_zh, ocf_en)
        card.add(
            "leverage",
            _band(debt.value, DEBT_GOOD, DEBT_BAD, higher_is_better=False),
            {"debt_ratio_pct": debt.value},
            debt_zh,
            debt_en,
        )
    payout = f.latest("payout_ratio_pct")
    card.add(
        "shareholder_return",
        _band(payout.value, PAYOUT_GOOD, PAYOUT_BAD),
        {"payout_ratio_pct": payout.value},
        *_figure(payout, "分红率", "payout ratio", "%"),
        weight=SHAREHOLDER_WEIGHT,
    )
    return card


def caveats(f: FinancialFacts) -> list[str]:
    """Notes on the data, not investment risks: they go to the trace (and, where the service lists them,
    ``data_gaps``), never to ``risk_warning``."""
    notes = []
    if f.financial_institution_like:
        notes.append(
            "read as a financial institution: leverage and cash flow need regulatory capital figures the data lacks"
        )
    if f.net_profit_basis == "total":
        notes.append("net profit includes minority interests")
    return [*notes, "annual report figures lag the share price"]


class RulesFinancialAuditorAgent(RulesAgent, ExpertAgent[FinancialFacts, FinancialVerdict]):
    async def analyse(self, facts: FinancialFacts) -> AgentAnswer[FinancialVerdict]:
        card = score_financial(facts, self._lang)
        signal = card.pick(Signal.BULLISH, Signal.BEARISH, Signal.NEUTRAL)
        years = f"{facts.periods[0].period_end.year}–{facts.periods[-1].period_end.year}"
        verdict = FinancialVerdict(
            signal=signal,
            confidence=card.confidence,
            summary_reasoning=card.summary(
                f"{facts.symbol} {years} 年报财务质量{card.pick('良好', '偏弱', '中性')}",
                f"{facts.symbol} financials {years} look {signal.value.lower()}",
            ),
            # investment risks only: the dimensions that scored negative (data notes are caveats)
            risk_warning=joined(self._lang, [r.note for r in card.rules if r.score == -1]) or no_risk_seen(self._lang),
            dimension_analyses=[
                DimensionAnalysis(dimension=r.rule, assessment=_ASSESSMENT[r.score], comment=r.note) for r in card.rules
            ],
        )
        return card.answer(verdict, facts, caveats(facts))
