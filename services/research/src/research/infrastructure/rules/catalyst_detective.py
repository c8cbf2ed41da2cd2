"""Rules engine of the catalyst detective: weighted detected events (see README "Rules engine").

s = Σ polarity·weight / max(MIN_DENOMINATOR, Σ weight)   over scored events (news weighs 0)
POSITIVE when s ≥ 0.25, NEGATIVE when s ≤ -0.25, else NEUTRAL
confidence = 0.35 + 0.55·|s|·coverage, coverage = share of {bars, financials} that were available
"""

from __future__ import annotations

from typing import Any

from research.domain.analysis.catalyst import CatalystEvent, CatalystFacts
from research.domain.model.verdicts import AgentAnswer, CatalystPoint, CatalystVerdict
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import THRESHOLD, Language, RulesAgent, num, rules_answer, tr
from shared_contracts.experts import CatalystAssessment
from shared_contracts.text import shorten

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
        now, before, swing = num(g["net_profit_yoy_pct"]), num(g["previous_yoy_pct"]), num(g["swing_pts"])
        return tr(
            lang,
            f"{g['period_end']} 年度净利润同比 {now}%，上年 {before}%，变化 {swing} 个百分点",
            f"FY {g['period_end']} net profit {now}% YoY after {before}%: a {swing} pt swing",
        )
    if e.kind == "dividend_change":
        dps, previous, change = num(g["dps"], 3), num(g["previous_dps"], 3), num(g["change_pct"])
        return tr(
            lang, f"每股分红 {dps}，上年 {previous}（{change}%）", f"dividend per share {dps} vs {previous} ({change}%)"
        )
    if e.kind == "price_gap":
        gap, close = num(g["gap_pct"]), num(g["close"])
        return tr(lang, f"{e.date} 跳空 {gap}%，收盘 {close}", f"{e.date} gap of {gap}%, close {close}")
    if e.kind == "volume_spike":
        times, change = num(g["volume_multiple"]), num(g["change_pct"])
        return tr(
            lang,
            f"{e.date} 成交量为前20日均量的 {times} 倍，涨跌 {change}%",
            f"{e.date} volume {times}x the 20-day mean, {change}% on the day",
        )
    if e.kind == "52w_high":
        close, bars, prior = num(g["close"]), g["prior_bars"], num(g["prior_high"])
        zh, en = f"收盘 {close} 高于前{bars}日最高 {prior}", f"close {close} above the prior {bars}-day high {prior}"
        return f"{e.date} {tr(lang, zh, en)}"
    if e.kind == "52w_low":
        close, bars, prior = num(g["close"]), g["prior_bars"], num(g["prior_low"])
        zh, en = f"收盘 {close} 低于前{bars}日最低 {prior}", f"close {close} below the prior {bars}-day low {prior}"
        return f"{e.date} {tr(lang, zh, en)}"
    return e.title or e.kind


def _point(e: CatalystEvent, lang: Language) -> CatalystPoint:
    zh, en = _TITLES[e.kind]
    return CatalystPoint(title=tr(lang, zh, en), description=shorten(describe(e, lang), 400), date=e.date.isoformat())


class RulesCatalystDetectiveAgent(RulesAgent, ExpertAgent[CatalystFacts, CatalystVerdict]):
    async def analyse(self, facts: CatalystFacts) -> AgentAnswer[CatalystVerdict]:
        lang = self._lang
        scored = [e for e in facts.events if e.weight > 0]
        denominator = max(MIN_DENOMINATOR, sum(e.weight for e in scored))
        s = facts.net_score / denominator
        coverage = sum(1 for i in SCORED_INPUTS if i in facts.inputs) / len(SCORED_INPUTS)
        direction = 1 if s >= THRESHOLD else -1 if s <= -THRESHOLD else 0
        assessment = {1: CatalystAssessment.POSITIVE, -1: CatalystAssessment.NEGATIVE, 0: CatalystAssessment.NEUTRAL}[
            direction
        ]
        positive = [_point(e, lang) for e in scored if e.polarity > 0][:10]
        negative = [_point(e, lang) for e in scored if e.polarity < 0][:10]
        counts, net = f"{len(positive)} 个正面、{len(negative)} 个负面", f"{facts.net_score}，标准化 {s:+.2f}"
        summary = tr(
            lang,
            f"{facts.symbol} 截至 {facts.as_of} 检测到 {counts}催化事件（加权净分 {net}），"
            f"判断为{ {1: '正面', -1: '负面', 0: '中性'}[direction] }",
            f"{facts.symbol} as of {facts.as_of}: {len(positive)} positive and {len(negative)} negative catalyst "
            f"events (weighted net {facts.net_score}, normalised {s:+.2f}), assessed {assessment.value.lower()}",
        )
        if facts.news:
            news = len(facts.news)
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
            "denominator": denominator,
            "normalized_score": round(s, 4),
            "coverage": coverage,
        }
        return rules_answer(verdict, facts, trace)
