"""A voting expert's signal and confidence from its own dimension's standing in the reference universe.

The technical analyst votes with the composite's technical factors, the valuation modeler with EP / BP /
dividend yield, the financial auditor with ROE and growth, each with the registered weights
(``shared_contracts.standing.FamilyStanding``): the family's score placed among the universe's composite scores
gives the signal (top fifth BULLISH, bottom fifth BEARISH) and the confidence |2·p − 1| (``expert_side``).
The engine's read of absolute indicators (MA, RSI, MACD, PE level, growth) stays in the text, after the vote,
labelled as context. A family without data that day says so and votes NEUTRAL at confidence 0 (the debate
gives it no weight). Without a reference universe (a live provider with no ``REFERENCE_UNIVERSE``) there is no
standing, and the engine's own read is the vote, as the result's ``relative_standing`` being absent shows.

Example::

    vote = standing_vote(standing, "technical", "en")
    vote.signal, vote.confidence, vote.sentence   # BULLISH, 0.72, "Vote from the stock's standing ..."
"""

from __future__ import annotations

from dataclasses import dataclass

from research.domain.analysis.relative import Family
from shared_contracts.experts import Signal
from shared_contracts.standing import BOTTOM_RANK, TOP_RANK, FamilyStanding, RelativeStanding, expert_side

_DIMENSION = {
    "zh": {"technical": "技术维度", "valuation": "估值维度", "financial": "财务质量维度"},
    "en": {"technical": "technical dimension", "valuation": "valuation dimension", "financial": "quality dimension"},
}
_SIDE = {
    "zh": {"BULLISH": "看多", "BEARISH": "看空", "NEUTRAL": "中性"},
    "en": {"BULLISH": "BULLISH", "BEARISH": "BEARISH", "NEUTRAL": "NEUTRAL"},
}
_VOTE = {
    "zh": "按参照池内的相对位置投票：{dimension}得分 {score:+.2f}（{factors}），置于池内综合得分的 {percentile:.2f} "
    "分位（≥ {top:.2f} 看多、≤ {bottom:.2f} 看空）→ {side}，置信度 {confidence:.2f}（离池中位的距离 |2×分位−1|），"
    "在综合得分中的权重 {weight:.2f}、贡献 {contribution:+.2f}。",
    "en": "Vote from the stock's standing in its reference universe: {dimension} score {score:+.2f} ({factors}), "
    "at percentile {percentile:.2f} of the universe's composite scores (≥ {top:.2f} bullish, "
    "≤ {bottom:.2f} bearish) → {side}, confidence {confidence:.2f} (distance from the universe's middle, "
    "|2×percentile−1|), weight {weight:.2f} in the composite score, contribution {contribution:+.2f}.",
}
_NO_DATA = {
    "zh": "{dimension}在参照池中当日无可比数据，不参与投票（中性，置信度 0）。",
    "en": "The {dimension} has no comparable data in the reference universe on the day: it does not vote "
    "(NEUTRAL, confidence 0).",
}
_CONTEXT = {"zh": "以下绝对指标仅作背景，不计入投票：", "en": "Context only, not part of the vote: "}
_FACTOR = {"zh": "{name}分位 {percentile:.2f}", "en": "{name} percentile {percentile:.2f}"}
_FACTOR_NAMES = {
    "zh": {
        "return_1m": "近一月收益",
        "volatility_60d": "60 日波动率",
        "abnormal_turnover": "异常成交量",
        "liquidity": "成交额（规模）",
        "earnings_yield": "盈利收益率 EP ",
        "dividend_yield": "股息率",
        "roe": "ROE ",
    },
    "en": {
        "return_1m": "1-month return",
        "volatility_60d": "60-day volatility",
        "abnormal_turnover": "abnormal volume",
        "liquidity": "traded value (size)",
        "earnings_yield": "earnings yield",
        "dividend_yield": "dividend yield",
        "roe": "ROE",
    },
}
_LIST_SEP = {"zh": "，", "en": ", "}


@dataclass(frozen=True)
class StandingVote:
    signal: Signal
    confidence: float
    sentence: str
    """The vote and its numbers, in the report language."""
    context_label: str
    """What precedes the engine's own reading of absolute indicators."""


def _family(standing: RelativeStanding, family: Family) -> FamilyStanding | None:
    composite = standing.composite
    if composite is None:
        return None
    return next((f for f in composite.families if f.family == family), None)


def standing_vote(standing: RelativeStanding | None, family: Family, language: str) -> StandingVote | None:
    """The vote of ``family``'s expert; None without a reference universe (the engine's own read votes)."""
    if standing is None:
        return None
    lang = "zh" if language == "zh" else "en"
    part = _family(standing, family)
    dimension = _DIMENSION[lang][family]
    if part is None or part.score is None or part.percentile is None or part.weight <= 0:
        sentence = _NO_DATA[lang].format(dimension=dimension)
        return StandingVote(Signal.NEUTRAL, 0.0, sentence, _CONTEXT[lang])
    side, confidence = expert_side(part.percentile)
    factors = _LIST_SEP[lang].join(
        _FACTOR[lang].format(name=_FACTOR_NAMES[lang].get(name, name), percentile=f.percentile)
        for name, f in standing.factors.items()
        if f.weight > 0 and f.percentile is not None
    )
    sentence = _VOTE[lang].format(
        dimension=dimension,
        score=part.score,
        factors=factors,
        percentile=part.percentile,
        side=_SIDE[lang][side],
        confidence=confidence,
        weight=part.weight,
        contribution=part.contribution,
        top=TOP_RANK,
        bottom=BOTTOM_RANK,
    )
    return StandingVote(Signal(side), confidence, sentence, _CONTEXT[lang])
