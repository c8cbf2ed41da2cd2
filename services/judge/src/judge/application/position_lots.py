"""The position in whole lots, when the caller says how large the portfolio is.

With ``portfolio_value`` and ``reference_price`` a BUY or SELL of ``position %`` is
``shares = floor(value × position % / 100 / price / lot) × lot`` (``lot`` 100 for A-shares, 1 elsewhere:
``domain.model.risk.lot_size``); the position is then ``shares × price / value × 100`` (never more than
the engine's, as the shares are rounded down), and the entry strategy says so. With no whole lot in the
budget the position stays as the engine sized it, ``position_shares`` is 0 and the entry strategy says
the budget is below one lot. HOLD, or a missing value or price: nothing changes (``position_shares`` None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.model.enums import Action
from judge.domain.model.risk import is_a_share, lot_size


@dataclass(frozen=True)
class LotSizing:
    shares: int
    position_percent: float
    sentence: str
    """What the entry strategy adds, in the report language."""


_TEXTS: dict[str, dict[Literal["zh", "en"], str]] = {
    "lots_a_share": {
        "zh": "按组合市值 {value} 与参考价 {price} 计：{position:g}% 折合 {shares} 股（{lots} 手，每手 {lot} 股），"
        "实际仓位 {actual:g}%。",
        "en": "With a portfolio of {value} at the reference price {price}: {position:g}% is {shares} shares "
        "({lots} lots of {lot}), {actual:g}% of the portfolio.",
    },
    "lots_other": {
        "zh": "按组合市值 {value} 与参考价 {price} 计：{position:g}% 折合 {shares} 股，实际仓位 {actual:g}%。",
        "en": "With a portfolio of {value} at the reference price {price}: {position:g}% is {shares} shares, "
        "{actual:g}% of the portfolio.",
    },
    "below_one_lot": {
        "zh": "按组合市值 {value} 计，{position:g}% 的预算 {budget} 不足一手（{lot} 股 × {price} = {cost}），"
        "无法按此仓位下单。",
        "en": "With a portfolio of {value}, the {position:g}% budget ({budget}) is below one lot ({lot} shares × "
        "{price} = {cost}); the position cannot be traded at this size.",
    },
}


def size_in_lots(
    judge_input: JudgeInput, action: Action, position_percent: float, language: Literal["zh", "en"]
) -> LotSizing | None:
    """The shares and the position they make (module doc); None when there is nothing to express."""
    value, price = judge_input.portfolio_value, judge_input.reference_price
    if value is None or price is None or action is Action.HOLD or position_percent <= 0:
        return None
    lot = lot_size(judge_input.symbol)
    budget = value * position_percent / 100.0
    whole_lots = budget / price / lot
    if not math.isfinite(whole_lots):  # a price so tiny that no share count can say it
        return None
    lots = math.floor(whole_lots + 1e-9)
    shares = lots * lot
    common = {"value": _amount(value), "price": _amount(price), "position": position_percent, "lot": lot}
    if shares == 0:
        sentence = _TEXTS["below_one_lot"][language].format(budget=_amount(budget), cost=_amount(lot * price), **common)
        return LotSizing(shares=0, position_percent=position_percent, sentence=sentence)
    actual = min(round(shares * price / value * 100.0, 2), position_percent)
    key = "lots_a_share" if is_a_share(judge_input.symbol) else "lots_other"
    sentence = _TEXTS[key][language].format(shares=shares, lots=lots, actual=actual, **common)
    return LotSizing(shares=shares, position_percent=actual, sentence=sentence)


def _amount(value: float) -> str:
    """An amount as people write it: no exponent, at most 4 decimals, no trailing zeros."""
    return f"{value:.4f}".rstrip("0").rstrip(".")
