"""The rules engine's texts when the debate weighs the experts' standings (``domain.dtos.standing_weighing``):
the bull case cites the dimensions where the stock ranks high (positive contributions), the bear case those
where it ranks low, and the resolution adds the contributions up to the score and applies the rank rule. Every
figure in them is a field of the outcome (``contributions``, ``score``, ``universe_rank``,
``standing_coverage``, ``confidence``), rounded to two decimals."""

from __future__ import annotations

from debate.domain.dtos.standing_weighing import StandingWeighing
from debate.infrastructure.rules.texts import Texts, expert_label
from shared_contracts.debate import Contribution
from shared_contracts.standing import BOTTOM_RANK, MIN_STANDING_COVERAGE, SCORE_EDGE, TOP_RANK

_T: dict[str, dict[str, str]] = {
    "zh": {
        "point_bull": "{label}：该维度在参照池中排名偏高（{percentile}，{signal}，置信度 {confidence:.2f}），"
        "权重 {weight:.2f}，贡献 {contribution:+.2f}{coverage}",
        "point_bear": "{label}：该维度在参照池中排名偏低（{percentile}，{signal}，置信度 {confidence:.2f}），"
        "权重 {weight:.2f}，贡献 {contribution:+.2f}{coverage}",
        "percentile": "池内综合得分分位 {value:.2f}",
        "no_percentile": "无分位",
        "thesis_bull": "{symbol} 多头论证：{count} 个维度为综合得分加分（{items}），正贡献合计 {total:+.2f}。",
        "thesis_bear": "{symbol} 空头论证：{count} 个维度为综合得分减分（{items}），负贡献合计 {total:+.2f}。",
        "none_bull": "{symbol} 多头论证：没有一个维度在参照池中为综合得分加分，多头缺乏相对证据。",
        "none_bear": "{symbol} 空头论证：没有一个维度在参照池中为综合得分减分，空头缺乏相对证据。",
        "item": "{label} {contribution:+.2f}",
        "strength": "{label}为综合得分加分 {contribution:+.2f}（{percentile}）",
        "sum": "综合得分 = 各专家贡献之和 = {terms} = {score:+.2f}",
        "term_sep": " + ",
        "non_voters": "（不投票：{names}）",
        "non_vote_market_wide": "{label}只调节仓位",
        "non_vote_events": "{label}只报告事件与风险",
        "non_vote_no_standing_data": "{label}当日无可比数据",
        "non_vote_not_a_family": "{label}不属于综合得分的因子族",
        "rank": "；池内分位 {rank:.2f}，证据覆盖 {coverage:.0%}。",
        "no_rank": "；未听取全部投票专家（缺：{missing}），权重按已听取者重新归一，此得分无池内分位，"
        "按 ±{edge:.2f} 判断方向，证据覆盖 {coverage:.0%}。",
        "rule": "规则：池内前 {top:.0%} 看多、后 {bottom:.0%} 看空，证据覆盖低于 {min_coverage:.0%} 为中性 → {side}。",
        "held_score_sign": "排名规则给出{ranked}，但综合得分的符号与之不符，判定中性。",
        "held_no_expert_on_side": "排名规则给出{ranked}，但没有一位投票专家持此方向，判定中性。",
        "confidence": "置信度 = |2×分位−1| = {confidence:.2f}：该股离池中位的距离，不是概率。",
        "confidence_no_rank": "置信度 = |得分| = {confidence:.2f}：不是概率。",
        "BULLISH": "看多",
        "BEARISH": "看空",
        "NEUTRAL": "中性",
        "sep": "、",
    },
    "en": {
        "point_bull": "{label}: this dimension ranks high in the reference universe ({percentile}, {signal}, "
        "confidence {confidence:.2f}), weight {weight:.2f}, contribution {contribution:+.2f}{coverage}",
        "point_bear": "{label}: this dimension ranks low in the reference universe ({percentile}, {signal}, "
        "confidence {confidence:.2f}), weight {weight:.2f}, contribution {contribution:+.2f}{coverage}",
        "percentile": "percentile {value:.2f} of the universe's composite scores",
        "no_percentile": "no percentile",
        "thesis_bull": "{symbol} bull case: {count} dimension(s) add to the composite score ({items}), positive "
        "contributions {total:+.2f} in all.",
        "thesis_bear": "{symbol} bear case: {count} dimension(s) take from the composite score ({items}), "
        "negative contributions {total:+.2f} in all.",
        "none_bull": "{symbol} bull case: no dimension adds to the composite score in the reference universe; "
        "the bull side has no relative evidence.",
        "none_bear": "{symbol} bear case: no dimension takes from the composite score in the reference universe; "
        "the bear side has no relative evidence.",
        "item": "{label} {contribution:+.2f}",
        "strength": "{label} adds {contribution:+.2f} to the composite score ({percentile})",
        "sum": "Composite score = the experts' contributions added up = {terms} = {score:+.2f}",
        "term_sep": " + ",
        "non_voters": " (not voting: {names})",
        "non_vote_market_wide": "{label} sets exposure only",
        "non_vote_events": "{label} reports events and risks",
        "non_vote_no_standing_data": "{label} has no comparable data on the day",
        "non_vote_not_a_family": "{label} is not a factor family of the composite",
        "rank": "; universe rank {rank:.2f}, evidence coverage {coverage:.0%}.",
        "no_rank": "; not every voting expert was heard (missing: {missing}), so the heard ones' weights are "
        "renormalised and the score has no universe rank: it is read against ±{edge:.2f}, evidence coverage "
        "{coverage:.0%}.",
        "rule": "Rule: the universe's top {top:.0%} is bullish, its bottom {bottom:.0%} bearish, neutral below "
        "{min_coverage:.0%} coverage → {side}.",
        "held_score_sign": "The rank rule gives {ranked}, but the composite score's sign disagrees: neutral.",
        "held_no_expert_on_side": "The rank rule gives {ranked}, but no voting expert stands on that side: neutral.",
        "confidence": "Confidence = |2×rank−1| = {confidence:.2f}: how far the stock stands from the universe's "
        "middle, not a probability.",
        "confidence_no_rank": "Confidence = |score| = {confidence:.2f}: not a probability.",
        "BULLISH": "bullish",
        "BEARISH": "bearish",
        "NEUTRAL": "neutral",
        "sep": ", ",
    },
}


def _lang(texts: Texts) -> dict[str, str]:
    return _T["zh" if texts.sentence_sep == "" else "en"]


def _percentile(t: dict[str, str], c: Contribution) -> str:
    return t["no_percentile"] if c.percentile is None else t["percentile"].format(value=c.percentile)


def point(texts: Texts, c: Contribution, bull: bool, completeness: float) -> str:
    """One side's argument; ``completeness``: the expert's data completeness, named when below 1 (it does not
    change the standing's weight)."""
    t = _lang(texts)
    coverage = texts.coverage_note.format(coverage=f"{completeness:.2f}") if completeness < 1.0 else ""
    return t["point_bull" if bull else "point_bear"].format(
        label=expert_label(texts, c.expert),
        percentile=_percentile(t, c),
        signal=t.get(c.signal, c.signal),
        confidence=c.confidence,
        weight=c.weight,
        contribution=c.contribution,
        coverage=coverage,
    )


def thesis(texts: Texts, symbol: str, side: list[Contribution], bull: bool) -> str:
    t = _lang(texts)
    if not side:
        return t["none_bull" if bull else "none_bear"].format(symbol=symbol)
    items = t["sep"].join(
        t["item"].format(label=expert_label(texts, c.expert), contribution=c.contribution) for c in side
    )
    total = sum(c.contribution for c in side)
    return t["thesis_bull" if bull else "thesis_bear"].format(symbol=symbol, count=len(side), items=items, total=total)


def strength(texts: Texts, c: Contribution) -> str:
    t = _lang(texts)
    return t["strength"].format(
        label=expert_label(texts, c.expert), contribution=c.contribution, percentile=_percentile(t, c)
    )


def resolution(texts: Texts, weighing: StandingWeighing) -> str:
    """The sum, the rank, the rule and the confidence, with the outcome's own figures."""
    t = _lang(texts)
    terms = t["term_sep"].join(
        t["item"].format(label=expert_label(texts, c.expert), contribution=c.contribution) for c in weighing.voters()
    )
    parts = [t["sum"].format(terms=terms, score=weighing.score)]
    if weighing.non_votes:
        names = t["sep"].join(
            t[f"non_vote_{why}"].format(label=expert_label(texts, name)) for name, why in weighing.non_votes.items()
        )
        parts.append(t["non_voters"].format(names=names))
    if weighing.universe_rank is not None:
        parts.append(t["rank"].format(rank=weighing.universe_rank, coverage=weighing.coverage))
    else:
        missing = t["sep"].join(expert_label(texts, name) for name in weighing.missing) or texts.none
        parts.append(t["no_rank"].format(missing=missing, edge=SCORE_EDGE, coverage=weighing.coverage))
    head = "".join(parts)
    rule = t["rule"].format(
        top=1 - TOP_RANK, bottom=BOTTOM_RANK, min_coverage=MIN_STANDING_COVERAGE, side=t[weighing.ranked_side]
    )
    sentences = [head, rule]
    if weighing.held_back is not None:
        sentences.append(t[f"held_{weighing.held_back}"].format(ranked=t[weighing.ranked_side]))
    key = "confidence" if weighing.universe_rank is not None else "confidence_no_rank"
    sentences.append(t[key].format(confidence=weighing.confidence))
    return texts.sentence_sep.join(sentences)
