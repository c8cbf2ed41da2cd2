"""The rules engine's narrative text in the REPORT_LANGUAGE (zh default, en)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

Language = Literal["zh", "en"]

ZH: dict[str, str] = {
    "reason_standing": "辩论方向 {direction}：该股在参照股票池中的综合得分 {score:+.2f}{made_of}，池内分位 {rank}，"
    "证据覆盖 {coverage}（分位 ≥ {top:.2f} 看多、≤ {bottom:.2f} 看空，覆盖低于 {min_coverage:.0%} 中性）→ {action}。",
    "made_of": "（= {terms}）",
    "reason_exposure": "市场观点 {view} 只调节敞口：仓位保留 {exposure:.0%}（有利 100%、中性 80%、不利 "
    "60%），不决定个股方向。",
    "reason_no_market_view": "未听取市场观点：仓位按完整敞口。",
    "reason_position_standing": "仓位 = 风险预算 {budget:g}% × 风险系数 {mult:.2f}（{risks} 项风险因素）÷ 止损距离 "
    "{stop:.2f}%，上限 {limit:.2f}%，再乘市场敞口 = {raw:.2f}%，{rounding}。",
    "entry_hold_standing": "暂不新开仓：该股不在参照股票池的前/后五分之一（或证据覆盖不足）；已持有者维持现有仓位。",
    "warn_low_coverage": "综合得分的证据覆盖 {coverage} 低于 {min_coverage:.0%}，不据此交易。",
    "why_standing": "综合得分的因子（一个月反转、波动率、换手、规模）是按月更新的信号，持有约 {horizon_days} 个交易日",
    "entry_buy": "分两批建仓，目标仓位 {position:g}%：先买入 {half:g}%{at_price}，{second}；跌破止损位即全部离场。",
    "entry_buy_second_support": "回踩支撑位 {support} 附近且未跌破时再买入其余 {half:g}%",
    "entry_buy_second_plain": "价格站稳且论点未被证伪后再买入其余 {half:g}%",
    "entry_sell": "分两批卖出/减仓（或做空）{position:g}%：先卖出 {half:g}%{at_price}，反弹时再卖出其余 {half:g}%；"
    "价格突破止损位说明空头论点失效，停止减仓。",
    "entry_sell_a_share": "A 股不做空，卖出即清仓/回避：持有者分两批卖出 {position:g}%，先卖出 {half:g}%{at_price}，"
    "反弹时再卖出其余 {half:g}%；未持有者回避、不买入。价格突破止损位说明空头论点失效，停止卖出。",
    "entry_hold": "暂不新开仓；已持有者维持现有仓位，待辩论方向明确且置信度 ≥ {threshold:.2f} 再行动。",
    "at_price": "（参考价 {price} 附近）",
    "hold_levels_from": "止损/止盈位仅在入场时适用，按参考价 {price} 计算。",
    "hold_levels_from_dated": "止损/止盈位仅在入场时适用，按 {date} 的收盘价 {price} 计算。",
    "at_price_dated": "（参考价 {price} 附近，即 {date} 的收盘价）",
    "level_percent": "风险等级 {level}：距入场价 {distance:g}%",
    "stop_anchor_long": "支撑位 {anchor} 下方 1%（距参考价 {distance:.2f}%）",
    "stop_anchor_short": "阻力位 {anchor} 上方 1%（距参考价 {distance:.2f}%）",
    "take_anchor_long": "阻力位 {anchor}（距参考价 {distance:.2f}%）",
    "take_anchor_short": "支撑位 {anchor}（距参考价 {distance:.2f}%）",
    "percent_rules": "（波动率未知：按百分比规则）",
    "atr_source_atr": "，ATR(14) = {atr_price}",
    "atr_source_realised": "，由年化波动率 {vol:g}% 估算",
    "stop_atr": "{multiple:g} ATR（1 ATR = {atr:.2f}%{source}）：距入场价 {distance:.2f}%",
    "stop_atr_anchor_long": "支撑位 {anchor} 下方 {buffer:g} ATR（{atr_multiple:.2f} ATR，距参考价 {distance:.2f}%）",
    "stop_atr_anchor_short": "阻力位 {anchor} 上方 {buffer:g} ATR（{atr_multiple:.2f} ATR，距参考价 {distance:.2f}%）",
    "stop_bounded": "，受限为 {distance:.2f}%（{atr_multiple:.2f} ATR）：止损须在 {min_atr:g}–{max_atr:g} ATR "
    "且距入场价 {min_pct:g}–{max_pct:g}% 之内，百分比限制优先",
    "take_reward_risk": "止损距离的 {ratio:g} 倍（盈亏比 {ratio:g}）：距入场价 {distance:.2f}%",
    "take_atr_anchor_long": "阻力位 {anchor}（距参考价 {distance:.2f}%，盈亏比 {ratio:.2f}）",
    "take_atr_anchor_short": "支撑位 {anchor}（距参考价 {distance:.2f}%，盈亏比 {ratio:.2f}）",
    "take_valuation": "内在价值区间端点 {anchor}（距参考价 {distance:.2f}%，盈亏比 {ratio:.2f}）",
    "warn_more_risks": "另有 {count} 项风险因素未逐条列出。",
    "warn_disagreements": "多空仍有 {count} 项未消解分歧，例如：{first}",
    "warn_low_confidence": "辩论置信度 {confidence:.2f} 低于行动阈值 {threshold:.2f}，信号不足以支撑交易。",
    "warn_failed_experts": "分析不完整：{count} 位专家失败（{names}），结论只基于其余专家，按一项风险因素计入。",
    "warn_no_risks": "辩论未列出任何风险因素，这不代表没有风险。",
    "reason_action": "辩论结论 {direction}，置信度 {confidence:.2f}（行动阈值 {threshold:.2f}）→ {action}。",
    "reason_position": "仓位 = 上限 {max:g}% × 置信度系数 {scale:.2f} × 风险系数 {mult:.2f}（{risks} 项风险因素）= "
    "{raw:.2f}%，{rounding}。",
    "reason_position_budget": "仓位 = 风险预算 {budget:g}% × 置信度系数 {scale:.2f} × 风险系数 {mult:.2f}（{risks} "
    "项风险因素）= 承担 {risk:.2f}% 的组合风险，÷ 止损距离 {stop:.2f}% = {raw:.2f}%，上限 {limit:.2f}%（min(上限 "
    "{max:g}%, {budget:g}% ÷ {stop:.2f}%)），{rounding}。",
    "reason_levels_atr": "波动率：1 ATR = {atr:.2f}%{source}；止损 {stop:.2f}%（{stop_atr:.2f} ATR，允许 {min_atr:"
    "g}–{max_atr:g} ATR），止盈 {take:.2f}%（盈亏比 {ratio:.2f}，至少 {min_ratio:g}）；{risks} 项风险因素 → "
    "风险等级 {level}。",
    "reason_no_volatility": "未提供波动率（ATR），止损/止盈与仓位按风险等级的百分比规则。",
    "reason_sell_a_share": "A 股的卖出指清仓/回避，不是做空。",
    "reason_sell_other": "卖出指卖出持仓，或做空。",
    "why_evidence": "主导辩论的证据属于该时间尺度",
    "reason_no_position": "持有不新开仓，仓位 0%。",
    "reason_levels": "{risks} 项风险因素 → 风险等级 {level} → 止损 {stop:g}%、止盈 {take:g}%（距入场价）。",
    "reason_horizon": "期限 {horizon}：{why}。",
    "why_hold": "观望结论需尽快复核",
    "why_contested": "{count} 项未消解分歧，论点需短期验证",
    "why_high_risk": "风险等级高，缩短持有期",
    "why_strong": "置信度 ≥ {threshold:.2f} 且风险等级低",
    "why_default": "方向明确但仍有风险或分歧",
    "reason_calibrated": "校准后的置信度 {calibrated:.2f}：样本内原始分数约 {raw:.2f} "
    "的交易中盈利的比例（docs/decisions.md）。",
    "reason_confidence": "裁决置信度 = {confidence:.2f} × (1 − 0.05 × {count} 项未消解分歧) = {result:.2f}。",
    "reason_theses": "多头论点：{bull}；空头论点：{bear}；冲突消解：{resolution}。",
    "none": "（无）",
    "round_step": "按 {step:g}% 向下取整 → {position:g}%",
    "round_floor": "按 {step:g}% 向下取整将为 {stepped:g}%，故取最小仓位 {step:g}% → {position:g}%",
    "round_limit": "取上限 → {position:g}%",
    "entry_hold_unpriced": "暂不新开仓：没有可执行的价格依据；已持有者按自己的止损管理，"
    "待有当日收盘价与波动率时再复核。",
    "reason_unpriced": "没有可执行的价格依据（{missing}），买入或卖出无法设定止损与仓位，改为持有。",
    "unpriced_price": "分析日（或其前 {days} 个交易日内）没有参考收盘价",
    "unpriced_volatility": "没有波动率（ATR 或历史波动率）",
    "rank_unknown": "无池内分位",
    "coverage_unknown": "未知",
    "list_sep": "、",
}

EN: dict[str, str] = {
    "reason_standing": "The debate is {direction}: the stock's composite score in its reference universe is "
    "{score:+.2f}{made_of}, universe rank {rank}, evidence coverage {coverage} (rank ≥ {top:.2f} bullish, "
    "≤ {bottom:.2f} bearish, neutral below {min_coverage:.0%} coverage) → {action}.",
    "made_of": " (= {terms})",
    "reason_exposure": "The market view {view} scales exposure only: the position keeps {exposure:.0%} (FAVORABLE "
    "100 %, NEUTRAL 80 %, UNFAVORABLE 60 %); it does not set the stock's direction.",
    "reason_no_market_view": "No market view was heard: the position takes full exposure.",
    "reason_position_standing": "Position = risk budget {budget:g}% × risk factor {mult:.2f} ({risks} risk factors) "
    "÷ stop distance {stop:.2f}%, at most {limit:.2f}%, × the market exposure = {raw:.2f}%; {rounding}.",
    "entry_hold_standing": "No new position: the stock is not in its reference universe's top or bottom fifth (or "
    "its evidence coverage is too thin); holders keep theirs.",
    "warn_low_coverage": "The composite's evidence coverage {coverage} is below {min_coverage:.0%}: no trade on it.",
    "why_standing": "the composite's factors (one-month reversal, volatility, turnover, size) are monthly signals, "
    "held about {horizon_days} trading days",
    "entry_buy": "Build the {position:g}% position in two tranches: buy {half:g}% first{at_price}, {second}; exit "
    "everything below the stop.",
    "entry_buy_second_support": "add the other {half:g}% on a pullback towards support {support} that holds",
    "entry_buy_second_plain": "add the other {half:g}% once the price holds and the thesis is not invalidated",
    "entry_sell": "Sell, reduce or short {position:g}% in two tranches: {half:g}% first{at_price}, the other {half:g}% "
    "into a rebound; a move through the stop invalidates the bearish case, so stop selling there.",
    "entry_sell_a_share": "An A-share is not shorted here: SELL means exit or avoid. Holders sell {position:g}% in two "
    "tranches, {half:g}% first{at_price}, the other {half:g}% into a rebound; non-holders stay out. A move through "
    "the stop invalidates the bearish case, so stop selling there.",
    "entry_hold": "Open no new position; holders keep theirs, and act once the debate is directional with confidence "
    "≥ {threshold:.2f}.",
    "at_price": " (near the reference price {price})",
    "hold_levels_from": " The stop and take-profit apply only if entering, from the reference price {price}.",
    "hold_levels_from_dated": " The stop and take-profit apply only if entering, from the close of {date}, {price}.",
    "at_price_dated": " (near the reference price {price}, the close of {date})",
    "level_percent": "{level} risk level: {distance:g}% from entry",
    "stop_anchor_long": "1% below support {anchor} ({distance:.2f}% from the reference price)",
    "stop_anchor_short": "1% above resistance {anchor} ({distance:.2f}% from the reference price)",
    "take_anchor_long": "resistance {anchor} ({distance:.2f}% from the reference price)",
    "take_anchor_short": "support {anchor} ({distance:.2f}% from the reference price)",
    "percent_rules": " (volatility unknown: percentage rules)",
    "atr_source_atr": ", ATR(14) {atr_price}",
    "atr_source_realised": ", estimated from {vol:g}% annualised volatility",
    "stop_atr": "{multiple:g} ATR (one ATR = {atr:.2f}%{source}): {distance:.2f}% from entry",
    "stop_atr_anchor_long": "{buffer:g} ATR below support {anchor} ({atr_multiple:.2f} ATR, {distance:.2f}% from the "
    "reference price)",
    "stop_atr_anchor_short": "{buffer:g} ATR above resistance {anchor} ({atr_multiple:.2f} ATR, {distance:.2f}% from "
    "the reference price)",
    "stop_bounded": ", limited to {distance:.2f}% ({atr_multiple:.2f} ATR): a stop stays within {min_atr:g}–{max_atr:"
    "g} ATR and {min_pct:g}–{max_pct:g}% of entry, the percentages first",
    "take_reward_risk": "{ratio:g} × the stop distance (reward/risk {ratio:g}): {distance:.2f}% from entry",
    "take_atr_anchor_long": "resistance {anchor} ({distance:.2f}% from the reference price, reward/risk {ratio:.2f})",
    "take_atr_anchor_short": "support {anchor} ({distance:.2f}% from the reference price, reward/risk {ratio:.2f})",
    "take_valuation": "the intrinsic value range's end {anchor} ({distance:.2f}% from the reference price, reward/risk "
    "{ratio:.2f})",
    "warn_more_risks": "{count} more risk factors not listed.",
    "warn_disagreements": "Unresolved disagreements: {count}, e.g.: {first}",
    "warn_low_confidence": "The debate's confidence {confidence:.2f} is below the action threshold {threshold:.2f}; "
    "the signal does not support a trade.",
    "warn_failed_experts": "Incomplete analysis: {count} expert(s) failed ({names}); the verdict rests on the others, "
    "and this counts as one risk factor.",
    "warn_no_risks": "The debate named no risk factors; that does not mean there are none.",
    "reason_action": "Debate outcome {direction} at confidence {confidence:.2f} (action threshold {threshold:.2f}) → "
    "{action}.",
    "reason_position": "Position = cap {max:g}% × confidence factor {scale:.2f} × risk factor {mult:.2f} ({risks} risk "
    "factors) = {raw:.2f}%; {rounding}.",
    "reason_position_budget": "Position = risk budget {budget:g}% × confidence factor {scale:.2f} × risk factor {mult:"
    ".2f} ({risks} risk factors) = {risk:.2f}% of the portfolio at risk, ÷ the {stop:.2f}% stop = {raw:.2f}%, "
    "limited to {limit:.2f}% (min(cap {max:g}%, {budget:g}% ÷ {stop:.2f}%)); {rounding}.",
    "reason_levels_atr": "Volatility: one ATR = {atr:.2f}%{source}; stop {stop:.2f}% ({stop_atr:.2f} ATR, allowed "
    "{min_atr:g}–{max_atr:g} ATR), take-profit {take:.2f}% (reward/risk {ratio:.2f}, at least {min_ratio:g}); "
    "{risks} risk factors → {level} risk level.",
    "reason_no_volatility": "No volatility (ATR) was given, so the levels and the position follow the percentage "
    "rules.",
    "reason_sell_a_share": "For an A-share, SELL means exit or avoid, not a short.",
    "reason_sell_other": "SELL means selling the holding, or a short.",
    "why_evidence": "the evidence that carried the debate works on that time scale",
    "reason_no_position": "HOLD opens no position: 0%.",
    "reason_levels": "{risks} risk factors → {level} risk level → stop {stop:g}%, take-profit {take:g}% from entry.",
    "reason_horizon": "Horizon {horizon}: {why}.",
    "why_hold": "a wait-and-see verdict is revisited soon",
    "why_contested": "{count} unresolved disagreements need to be tested soon",
    "why_high_risk": "a HIGH risk level shortens the holding period",
    "why_strong": "confidence ≥ {threshold:.2f} with a LOW risk level",
    "why_default": "a directional call with some risk or disagreement",
    "reason_calibrated": "Calibrated confidence {calibrated:.2f}: the in-sample share of calls with a raw score near "
    "{raw:.2f} that made money (docs/decisions.md).",
    "reason_confidence": "Verdict confidence = {confidence:.2f} × (1 − 0.05 × {count} open disagreement(s)) = {result:"
    ".2f}.",
    "reason_theses": "Bull thesis: {bull}; bear thesis: {bear}; conflict resolution: {resolution}.",
    "none": "(none)",
    "round_step": "rounded down to a {step:g}% step → {position:g}%",
    "round_floor": "rounded down to a {step:g}% step it would be {stepped:g}%, so the {step:g}% minimum position "
    "applies → {position:g}%",
    "round_limit": "held at the limit → {position:g}%",
    "entry_hold_unpriced": "Open no new position: there is no price to act on; holders manage theirs by their own "
    "stop and review once a close of the day and a volatility measure are available.",
    "reason_unpriced": "There is no price to act on ({missing}): a BUY or SELL cannot set its stop or its size, so "
    "the verdict is HOLD.",
    "unpriced_price": "no reference close on the analysis date or within {days} trading days before it",
    "unpriced_volatility": "no volatility measure (ATR or realised volatility)",
    "rank_unknown": "not ranked",
    "coverage_unknown": "unknown",
    "list_sep": ", ",
}

_TEXTS = {"zh": ZH, "en": EN}


def text(language: Language, key: str, **values: object) -> str:
    return _TEXTS[language][key].format(**values)


Say = Callable[..., str]


def writer(language: Language, **values: object) -> Say:
    """``say(key, **more)``: the text ``key`` filled with ``values`` and ``more`` (which wins)."""

    def say(key: str, **more: object) -> str:
        return text(language, key, **(values | more))

    return say


def price_text(price: float) -> str:
    """A price as the LLM's prompt gives it: no exponent, no trailing zeros, never rounded to 6 digits (the rules'
    narrative writes prices at the reference price's precision: ``shared_contracts.text.format_price``)."""
    return f"{price:.6f}".rstrip("0").rstrip(".")
