"""Numbers as the Markdown report prints them, from report.json's plain values (None prints as "–")."""

from __future__ import annotations

from typing import Any

DASH = "–"


def number(value: float | None, digits: int = 2) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def percent(value: float | None, digits: int = 2) -> str:
    """A fraction as a percentage: 0.0123 → ``1.23%``."""
    return DASH if value is None else f"{value * 100:.{digits}f}%"


def interval(estimate: dict[str, Any] | None, digits: int = 2, *, as_percent: bool = True) -> str:
    """An estimate as ``value [low, high] (n=…)``; the bracket is left out below 2 observations."""
    if estimate is None:
        return DASH
    show = percent if as_percent else number
    if estimate["value"] is None:
        return f"{DASH} (n={estimate['n']})"
    bounds = "" if estimate["low"] is None else f" [{show(estimate['low'], digits)}, {show(estimate['high'], digits)}]"
    return f"{show(estimate['value'], digits)}{bounds} (n={estimate['n']})"
