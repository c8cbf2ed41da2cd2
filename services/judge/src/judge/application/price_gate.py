"""No action without a price (issue 38), for an engine whose proposal is not the rules': a BUY or SELL proposed on
an input without a reference close or a volatility measure (``JudgeInput.unpriced``) becomes a HOLD with no
position, and its reasoning says why. The rules engine holds such a call itself, with its own reasoning."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.model.enums import Action

_HELD = {
    "zh": "（没有可执行的价格依据：{missing}，{action} 无法设定止损与仓位，改为 HOLD。）",
    "en": " (No price to act on: {missing}; a {action} cannot set its stop or its size, so the verdict is HOLD.)",
}
_MISSING = {
    "zh": {"price": "无分析日的参考收盘价", "volatility": "无波动率"},
    "en": {"price": "no reference close of the analysis date", "volatility": "no volatility measure"},
}


def hold_without_price(
    proposal: VerdictProposal, judge_input: JudgeInput, language: Literal["zh", "en"]
) -> VerdictProposal:
    """``proposal``, or a HOLD of it when it trades without a price to act on (module doc)."""
    missing = judge_input.unpriced
    if proposal.action is Action.HOLD or not missing:
        return proposal
    named = ("、" if language == "zh" else ", ").join(_MISSING[language][m] for m in missing)
    held = _HELD[language].format(missing=named, action=proposal.action.value)
    return replace(proposal, action=Action.HOLD, position_percent=0.0, reasoning=proposal.reasoning + held)
