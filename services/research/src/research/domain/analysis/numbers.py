"""Small numeric helpers shared by the indicator calculations."""

from __future__ import annotations

import math


def rnd(value: float | None, digits: int = 4) -> float | None:
    """Round for reporting; None and NaN/inf become None (a missing figure is never a number)."""
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def pct_change(new: float | None, old: float | None) -> float | None:
    if new is None or old is None or old == 0:
        return None
    return (new / old - 1.0) * 100.0


def ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den == 0:
        return None
    return num / den


def percentile_rank(value: float, history: list[float]) -> float | None:
    """Share of ``history`` at or below ``value``, in percent (None without history)."""
    if not history:
        return None
    return 100.0 * sum(1 for h in history if h <= value) / len(history)
