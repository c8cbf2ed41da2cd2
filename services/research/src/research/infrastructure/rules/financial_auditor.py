"""Rules engine of the financial auditor: one rule per dimension (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.financial import FinancialFacts, Latest
from research.domain.model.verdicts import AgentAnswer, DimensionAnalysis, FinancialVerdict
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language, RulesAgent, Scorecard, joined, num
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


def _when(latest: Latest) -> str:
    return str(latest.period_end or "-")


def score_financial(f: FinancialFacts, lang: Language) -> Scorecard:
    card = Scorecard(lang)
    rev, profit = f.latest("revenue_yoy_pct"), f.latest("net_profit_yoy_pct")
    growth = [v for v in (rev.value, profit.value) if v is not None]
    avg = sum(growth) / len(growth) if growth else None
    card.add(
        "growth",
        _band(avg, GROWTH_GOOD, GROWTH_BAD),
        {"revenue_yoy_pct": rev.value, "net_profit_yoy_pct": profit.value, "average": avg},
        f"营收同比 {num(rev.value)}%、净利润同比 {num(profit.value)}%（{_when(rev)}），"
        f"区间营收复合增速 {num(f.revenue_cagr_pct)}%",
        f"revenue {num(rev.value)}% and net profit {num(profit.value)}% YoY ({_when(rev)}), "
        f"revenue CAGR {num(f.revenue_cagr_pct)}%",
    )
    roe, margin = f.latest("roe_pct"), f.latest("net_margin_pct")
    inputs = {"roe_pct": roe.value, "net_margin_pct": margin.value}
    if roe.value is not None:
        card.add(
            "profitability",
            _band(roe.value, ROE_GOOD, ROE_BAD),
            inputs,
            f"ROE {num(roe.value)}%（{roe.period_end}），区间平均 {num(f.avg_roe_pct)}%",
            f"ROE {num(roe.value)}% ({roe.period_end}), period average {num(f.avg_roe_pct)}%",
        )
    else:
        score = _band(margin.value, NET_MARGIN_GOOD, NET_MARGIN_BAD)
        m = num(margin.value)
        card.add("profitability", score, inputs, f"无 ROE 数据，净利率 {m}%", f"no ROE reported; net margin {m}%")
    ocf, debt = f.latest("ocf_to_net_profit"), f.latest("debt_ratio_pct")
    if f.financial_institution_like:
        card.add(
            "cash_flow",
            None,
            {"ocf_to_net_profit": ocf.value},
            f"经营现金流/净利润 {num(ocf.value)}：金融机构的经营现金流含存贷款变动，不评估",
            f"operating cash flow / net profit {num(ocf.value)}: a financial institution's OCF moves with "
            "deposits and loans, not scored",
        )
        card.add(
            "leverage",
            None,
            {"debt_ratio_pct": debt.value},
            f"资产负债率 {num(debt.value)}% 且无毛利率，按金融机构处理，不评估",
            f"debt ratio {num(debt.value)}% and no gross margin: read as a financial institution, not scored",
        )
    else:
        card.add(
            "cash_flow",
            _band(ocf.value, OCF_GOOD, OCF_BAD),
            {"ocf_to_net_profit": ocf.value},
            f"经营现金流/净利润 {num(ocf.value)}（{_when(ocf)}）",
            f"operating cash flow / net profit {num(ocf.value)} ({_when(ocf)})",
        )
        card.add(
            "leverage",
            _band(debt.value, DEBT_GOOD, DEBT_BAD, higher_is_better=False),
            {"debt_ratio_pct": debt.value},
            f"资产负债率 {num(debt.value)}%（{_when(debt)}）",
            f"debt ratio {num(debt.value)}% ({_when(debt)})",
        )
    payout = f.latest("payout_ratio_pct")
    card.add(
        "shareholder_return",
        _band(payout.value, PAYOUT_GOOD, PAYOUT_BAD),
        {"payout_ratio_pct": payout.value},
        f"分红率 {num(payout.value)}%（{_when(payout)}）",
        f"payout ratio {num(payout.value)}% ({_when(payout)})",
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
            risk_warning=joined(self._lang, [r.note for r in card.rules if r.score == -1]),
            dimension_analyses=[
                DimensionAnalysis(dimension=r.rule, assessment=_ASSESSMENT[r.score], comment=r.note) for r in card.rules
            ],
        )
        return card.answer(verdict, facts, caveats(facts))
