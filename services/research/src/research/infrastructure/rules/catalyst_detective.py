"""Rules engine of the catalyst detective: weighted detected events (see README "Rules engine").

s = Σ polarity·weight / max(MIN_DENOMINATOR, Σ weight)   over scored events (news weighs 0)
POSITIVE when s ≥ 0.25, NEGATIVE when s ≤ -0.25, else NEUTRAL
confidence = 0.35 + 0.55·|s|·coverage, coverage = share of {bars, financials} that were available
"""

from __future__ import annotations

from typing import Any

from research.domain.analysis.catalyst import CatalystFacts
from research.domain.analysis.events import CatalystEvent
from research.domain.analysis.serialize import to_jsonable
from research.domain.model.verdicts import AgentAnswer, CatalystPoint, CatalystVerdict
from research.domain.ports.agents import ICatalystDetectiveAgent
from research.infrastructure.rules.scoring import THRESHOLD, Language, num, tr
from shared_contracts.engine import EngineInfo
from shared_contracts.experts import CatalystAssessment

MIN_DENOMINATOR = 4
"""A single small event does not make a strong call: the score is divided by at least 4."""
SCORED_INPUTS = ("bars", "financials")
_TITLES = {
    "earnings_inflection": ("业绩拐点", "earnings inflection"),
    "dividend_change": ("分红变化", "dividend change"),
    "price_gap": ("价格跳空", "price gap"),
    "volume_spike": ("放量", "volume spike"),
    "52w_high": ("创52周新高", "new 52-week high"),
    "52w_low": ("创52周新低", "new 52-week low"),
}


def describe(e: CatalystEvent, lang: Language) -> str:
    g: dict[str, Any] = e.figures
    if e.kind == "earnings_inflection":
        return tr(
            lang,
            f"{g['period_end']} 年度净利润同比 {num(g['net_profit_yoy_pct'])}%，上年 "
            f"{num(g['previous_yoy_pct'])}%，变化 {num(g['swing_pts'])} 个百分点",
            f"FY {g['period_end']} net profit {num(g['net_profit_yoy_pct'])}% YoY "
            f"after {num(g['previous_yoy_pct'])}%: a {num(g['swing_pts'])} pt swing",
        )
    if e.kind == "dividend_change":
        return tr(
            lang,
            f"每股分红 {num(g['dps'], 3)}，上年 {num(g['previous_dps'], 3)}（{num(g['change_pct'])}%）",
            f"dividend per share {num(g['dps'], 3)} vs {num(g['previous_dps'], 3)} ({num(g['change_pct'])}%)",
        )
    if e.kind == "price_gap":
        return tr(
            lang,
            f"{e.date} 跳空 {num(g['gap_pct'])}%，收盘 {num(g['close'])}",
            f"{e.date} gap of {num(g['gap_pct'])}%, close {num(g['close'])}",
        )
    if e.kind == "volume_spike":
        return tr(
            lang,
            f"{e.date} 成交量为前20日均量的 {num(g['volume_multiple'])} 倍，涨跌 {num(g['change_pct'])}%",
            f"{e.date} volume {num(g['volume_multiple'])}x the 20-day mean, {num(g['change_pct'])}% on the day",
        )
    if e.kind == "52w_high":
        return tr(
            lang,
            f"{e.date} 收盘 {num(g['close'])} 高于前{g['prior_bars']}日最高 {num(g['prior_high'])}",
            f"{e.date} close {num(g['close'])} above the prior {g['prior_bars']}-day high {num(g['prior_high'])}",
        )
    if e.kind == "52w_low":
        return tr(
            lang,
            f"{e.date} 收盘 {num(g['close'])} 低于前{g['prior_bars']}日最低 {num(g['prior_low'])}",
            f"{e.date} close {num(g['close'])} below the prior {g['prior_bars']}-day low {num(g['prior_low'])}",
        )
    return e.title or e.kind


def _point(e: CatalystEvent, lang: Language) -> CatalystPoint:
    zh, en = _TITLES[e.kind]
    return CatalystPoint(title=tr(lang, zh, en), description=describe(e, lang)[:400], date=e.date.isoformat())


class RulesCatalystDetectiveAgent(ICatalystDetectiveAgent):
    def __init__(self, language: Language = "zh") -> None:
        self._lang = language

    async def analyse(self, facts: CatalystFacts) -> AgentAnswer[CatalystVerdict]:
        lang = self._lang
        scored = [e for e in facts.events if e.weight > 0]
        total = sum(e.weight for e in scored)
        s = facts.net_score / max(MIN_DENOMINATOR, total)
        coverage = sum(1 for i in SCORED_INPUTS if i in facts.inputs) / len(SCORED_INPUTS)
        direction = 1 if s >= THRESHOLD else -1 if s <= -THRESHOLD else 0
        assessment = {1: CatalystAssessment.POSITIVE, -1: CatalystAssessment.NEGATIVE, 0: CatalystAssessment.NEUTRAL}[
            direction
        ]
        positive = [_point(e, lang) for e in scored if e.polarity > 0][:10]
        negative = [_point(e, lang) for e in scored if e.polarity < 0][:10]
        news = len(facts.news)
        summary = tr(
            lang,
            f"{facts.symbol} 截至 {facts.as_of} 检测到 {len(positive)} 个正面、{len(negative)} 个负面催化事件"
            f"（加权净分 {facts.net_score}，标准化 {s:+.2f}），判断为{ {1: '正面', -1: '负面', 0: '中性'}[direction] }",
            f"{facts.symbol} as of {facts.as_of}: {len(positive)} "
            f"positive and {len(negative)} negative catalyst events "
            f"(weighted net {facts.net_score}, normalised {s:+.2f}), assessed {assessment.value.lower()}",
        )
        if news:
            summary += tr(
                lang, f"；另有 {news} 条新闻未参与规则评分", f"; {news} news items are listed but not scored by rules"
            )
        if not scored:
            summary += tr(
                lang,
                "；近60个交易日与最近两期年报中未发现催化事件",
                "; no events in the last 60 sessions or the last two annual reports",
            )
        verdict = CatalystVerdict(
            catalyst_assessment=assessment,
            confidence_score=round(0.35 + 0.55 * abs(s) * coverage, 2),
            catalyst_summary=summary,
            positive_catalysts=positive,
            negative_catalysts=negative,
        )
        trace = {
            "events": [
                {"kind": e.kind, "date": e.date.isoformat(), "polarity": e.polarity, "weight": e.weight}
                for e in facts.events
            ],
            "net_score": facts.net_score,
            "denominator": max(MIN_DENOMINATOR, total),
            "normalized_score": round(s, 4),
            "coverage": coverage,
        }
        return AgentAnswer(verdict, EngineInfo(kind="rules"), to_jsonable(facts), trace)
