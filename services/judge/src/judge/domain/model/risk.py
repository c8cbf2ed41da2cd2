"""Risk in units of volatility, and the market's trading unit: the numbers both the rules engine and the
guardrails hold every verdict to (README "Rules engine" and "Guardrails").

One *ATR* here is the 14-day average true range as a percent of the reference close. It is the caller's
``atr`` (price units) over ``reference_price``; without both, an estimate from ``realised_volatility_pct``
(annualised, from daily returns): ``ATR_PER_DAILY_SIGMA × realised / √TRADING_DAYS_PER_YEAR``; without
either, volatility is unknown and the percentage rules apply.

- A stop lies between ``MIN_STOP_ATR`` and ``MAX_STOP_ATR`` ATR from entry (and always inside the
  guardrails' percent bounds, which win when the two disagree: an ATR of 0.1 % cannot make a 0.4 % stop).
- A take-profit lies at least ``MIN_REWARD_RISK`` × the stop distance from entry.
- A position risks at most ``RISK_BUDGET_PERCENT`` of the portfolio if its stop is hit:
  ``position % ≤ RISK_BUDGET_PERCENT / stop % × 100`` (1 % at risk with a 5 % stop: at most 20 %).
- A-shares (``.SH`` / ``.SZ`` / ``.BJ``) trade in lots of ``A_SHARE_LOT`` shares and cannot simply be sold
  short: a SELL there means exit or avoid.
- The market view (the macro expert's backdrop) keeps ``MARKET_EXPOSURE[view]`` of a stock-specific position: it
  scales exposure, never the direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

MIN_STOP_ATR = 1.0  # closer, a day's ordinary range hits the stop
MAX_STOP_ATR = 4.0  # further, the stop no longer limits the loss the thesis can cost
MIN_REWARD_RISK = 2.0
RISK_BUDGET_PERCENT = 1.0
ATR_PER_DAILY_SIGMA = 1.5  # ATR(14) / daily σ of returns (how it was measured: docs/decisions.md, issue 28)
TRADING_DAYS_PER_YEAR = 252

# The guardrails' percent bounds on the levels; the rules engine keeps inside them. A SELL's take-profit lies
# below entry, so less than 100 % from it (at 100 % the price is 0).
MIN_STOP_LOSS_PERCENT = 1.0
MAX_STOP_LOSS_PERCENT = 30.0
MIN_TAKE_PROFIT_PERCENT = 1.0
MAX_TAKE_PROFIT_PERCENT = 200.0
MAX_SELL_TAKE_PROFIT_PERCENT = 95.0

A_SHARE_SUFFIXES = (".SH", ".SZ", ".BJ")
A_SHARE_LOT = 100  # Shanghai, Shenzhen and Beijing buy orders are whole lots of 100 shares
OTHER_MARKET_LOT = 1

MARKET_EXPOSURE = {"FAVORABLE": 1.0, "NEUTRAL": 0.8, "UNFAVORABLE": 0.6}
"""The share of a stock-specific position the market view keeps: exposure, never direction (not a timing claim:
docs/decisions.md, "Stock-specific composite (issue 35)"). The rules engine sizes with it; the guardrails apply it
to any other engine's BUY/SELL."""


def market_exposure(view: str | None) -> float | None:
    """The share of the position ``view`` keeps; None when no market view was heard."""
    return MARKET_EXPOSURE[view] if view is not None else None


VolatilitySource = Literal["atr", "realised"]


@dataclass(frozen=True)
class Volatility:
    """One ATR as a percent of the reference price, and where it came from."""

    atr_percent: float
    source: VolatilitySource
    atr_price: float | None = None
    """The ATR in price units, when the caller gave it (source ``atr``)."""
    realised_volatility_pct: float | None = None
    """The annualised realised volatility it was estimated from (source ``realised``)."""


def volatility_from(
    atr: float | None, reference_price: float | None, realised_volatility_pct: float | None
) -> Volatility | None:
    """ATR over the reference price; else the estimate from realised volatility; else None. An ATR that is not
    a positive finite percent (a tiny ATR over a huge price rounds to 0, the reverse overflows) is no measure:
    the next source is used."""
    if atr is not None and reference_price is not None:
        percent = atr / reference_price * 100.0
        if _measurable(percent):
            return Volatility(atr_percent=percent, source="atr", atr_price=atr)
    if realised_volatility_pct is not None:
        daily_sigma = realised_volatility_pct / math.sqrt(TRADING_DAYS_PER_YEAR)
        percent = ATR_PER_DAILY_SIGMA * daily_sigma
        if _measurable(percent):
            return Volatility(atr_percent=percent, source="realised", realised_volatility_pct=realised_volatility_pct)
    return None


def _measurable(atr_percent: float) -> bool:
    return math.isfinite(atr_percent) and atr_percent > 0.0


def stop_bounds(
    volatility: Volatility,
    *,
    min_percent: float = MIN_STOP_LOSS_PERCENT,
    max_percent: float = MAX_STOP_LOSS_PERCENT,
    min_atr: float = MIN_STOP_ATR,
    max_atr: float = MAX_STOP_ATR,
) -> tuple[float, float]:
    """The stop distances (percent from entry) allowed with this volatility: ``min_atr`` to ``max_atr``
    ATR, inside [min_percent, max_percent] (the percent bounds win a conflict)."""
    low = min(max(min_atr * volatility.atr_percent, min_percent), max_percent)
    high = max(low, min(max_atr * volatility.atr_percent, max_percent))
    return low, high


def risk_budget_cap(stop_percent: float, budget_percent: float = RISK_BUDGET_PERCENT) -> float:
    """The largest position (percent of the portfolio) that loses ``budget_percent`` at a stop
    ``stop_percent`` from entry, rounded down to 0.01."""
    return math.floor(budget_percent / stop_percent * 100.0 * 100.0 + 1e-9) / 100.0


def is_a_share(symbol: str) -> bool:
    return symbol.strip().upper().endswith(A_SHARE_SUFFIXES)


def lot_size(symbol: str) -> int:
    """Shares per order unit: 100 for A-shares, 1 elsewhere (Hong Kong board lots vary by stock and
    are not known here)."""
    return A_SHARE_LOT if is_a_share(symbol) else OTHER_MARKET_LOT
