"""Rules engine of the financial auditor: one rule per dimension (see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.financial import FinancialFacts
from research.domain.analysis.serialize import to_jsonable
from research.domain.model.verdicts import AgentAnswer, DimensionAnalysis, FinancialVerdict
from research.domain.ports.agents import IFinancialAuditorAgent
from research.infrastructure.rules.scoring import Language, Scorecard, num, tr
from shared_contracts.engine import EngineInfo
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


def score_financial(f: FinancialFacts, lang: Language) -> Scorecard:
    card = Scorecard()
    rev, profit = f.latest("revenue_yoy_pct"), f.latest("net_profit_yoy_pct")
    growth = [v for v in (rev.value, profit.value) if v is not None]
    avg = sum(growth) / len(growth) if growth else None
    card.add(
        "growth",
        _band(avg, GROWTH_GOOD, GROWTH_BAD),
        tr(
            lang,
            f"营收同比 {num(rev.value)}%、净利润同比 {num(profit.value)}%（"
            f"{rev.period_end or '-'}），区间营收复合增速 {num(f.revenue_cagr_pct)}%",
            f"revenue {num(rev.value)}% and net profit {num(profit.value)}% YoY "
            f"({rev.period_end or '-'}), revenue CAGR {num(f.revenue_cagr_pct)}%",
        ),
        {"revenue_yoy_pct": rev.value, "net_profit_yoy_pct": profit.value, "average": avg},
    )
    roe = f.latest("roe_pct")
    margin = f.latest("net_margin_pct")
    if roe.value is not None:
        score = _band(roe.value, ROE_GOOD, ROE_BAD)
        note = tr(
            lang,
            f"ROE {num(roe.value)}%（{roe.period_end}），区间平均 {num(f.avg_roe_pct)}%",
            f"ROE {num(roe.value)}% ({roe.period_end}), period average {num(f.avg_roe_pct)}%",
        )
    else:
        score = _band(margin.value, NET_MARGIN_GOOD, NET_MARGIN_BAD)
        note = tr(
            lang, f"无 ROE 数据，净利率 {num(margin.value)}%", f"no ROE reported; net margin {num(margin.value)}%"
        )
    card.add("profitability", score, note, {"roe_pct": roe.value, "net_margin_pct": margin.value})
    ocf = f.latest("ocf_to_net_profit")
    debt = f.latest("debt_ratio_pct")
    if f.financial_institution_like:
        skip = tr(
            lang,
            f"资产负债率 {num(debt.value)}% 且无毛利率，按金融机构处理，不评估",
            f"debt ratio {num(debt.value)}% and no gross margin: read as a financial institution, not scored",
        )
        cash = tr(
            lang,
            f"经营现金流/净利润 {num(ocf.value)}：金融机构的经营现金流含存贷款变动，不评估",
            f"operating cash flow / net profit {num(ocf.value)}: a financial institution's OCF moves with "
            "deposits and loans, not scored",
        )
        card.add("cash_flow", None, cash, {"ocf_to_net_profit": ocf.value})
        card.add("leverage", None, skip, {"debt_ratio_pct": debt.value})
    else:
        card.add(
            "cash_flow",
            _band(ocf.value, OCF_GOOD, OCF_BAD),
            tr(
                lang,
                f"经营现金流/净利润 {num(ocf.value)}（{ocf.period_end or '-'}）",
                f"operating cash flow / net profit {num(ocf.value)} ({ocf.period_end or '-'})",
            ),
            {"ocf_to_net_profit": ocf.value},
        )
        card.add(
            "leverage",
            _band(debt.value, DEBT_GOOD, DEBT_BAD, higher_is_better=False),
            tr(
                lang,
                f"资产负债率 {num(debt.value)}%（{debt.period_end or '-'}）",
                f"debt ratio {num(debt.value)}% ({debt.period_end or '-'})",
            ),
            {"debt_ratio_pct": debt.value},
        )
    payout = f.latest("payout_ratio_pct")
    card.add(
        "shareholder_return",
        _band(payout.value, PAYOUT_GOOD, PAYOUT_BAD),
        tr(
            lang,
            f"分红率 {num(payout.value)}%（{payout.period_end or '-'}）",
            f"payout ratio {num(payout.value)}% ({payout.period_end or '-'})",
        ),
        {"payout_ratio_pct": payout.value},
        weight=SHAREHOLDER_WEIGHT,
    )
    return card


def risk_text(card: Scorecard, lang: Language) -> str:
    """Investment risks only: the dimensions that scored negative (weak growth, low returns, poor cash
    conversion, high leverage, low payout); empty when none did. Data notes are ``caveats``."""
    risks = [r.note for r in card.rules if r.score == -1]
    return ("；" if lang == "zh" else "; ").join(risks)


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
    notes.append("annual report figures lag the share price")
    return notes


class RulesFinancialAuditorAgent(IFinancialAuditorAgent):
    def __init__(self, language: Language = "zh") -> None:
        self._lang = language

    async def analyse(self, facts: FinancialFacts) -> AgentAnswer[FinancialVerdict]:
        lang = self._lang
        card = score_financial(facts, lang)
        signal = {1: Signal.BULLISH, -1: Signal.BEARISH, 0: Signal.NEUTRAL}[card.direction]
        years = f"{facts.periods[0].period_end.year}–{facts.periods[-1].period_end.year}"
        head = tr(
            lang,
            f"{facts.symbol} {years} 年报财务质量{ {1: '良好', -1: '偏弱', 0: '中性'}[card.direction] }（"
            f"规则得分 {card.normalized:+.2f}）：",
            f"{facts.symbol} financials {years} look {signal.value.lower()} (rule score {card.normalized:+.2f}): ",
        )
        dimensions = [
            DimensionAnalysis(dimension=r.rule, assessment=_ASSESSMENT[r.score], comment=r.note) for r in card.rules
        ]
        verdict = FinancialVerdict(
            signal=signal,
            confidence=card.confidence,
            summary_reasoning=head + ("；" if lang == "zh" else "; ").join(card.notes()),
            risk_warning=risk_text(card, lang),
            dimension_analyses=dimensions,
        )
        trace = {**card.trace(), "caveats": caveats(facts)}
        return AgentAnswer(verdict, EngineInfo(kind="rules"), to_jsonable(facts), trace)
