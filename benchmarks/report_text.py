"""The report's number formatting and the small phrases its tables share (a figure or "–", met or not, CPU per
research by process).

Example::

    fmt(12.345, 1, " ms")  # "12.3 ms"; fmt(None) is "–"
"""

from __future__ import annotations

import math
from typing import Any


def fmt(value: Any, digits: int = 1, suffix: str = "") -> str:
    """A number with ``digits`` decimals and ``suffix``; "–" for None and NaN; anything else as text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int | float):
        return f"{value:.{digits}f}{suffix}"
    return str(value)


def yes(ok: bool | None) -> str:
    """A target's "met" cell."""
    return "–" if ok is None else ("yes" if ok else "**no**")


def at_hundred(levels: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The level of 100 concurrent researches, if measured."""
    return next((lv for lv in levels if lv["concurrency"] == 100), None)


def ratio_text(level: dict[str, Any]) -> str:
    """A level's p95 over the single p50, its p95 and its errors."""
    ratio = fmt(level.get("p95_over_single_p50"), 2, "×")
    return f"{ratio} ({fmt(level['p95_ms'], 0, ' ms')}), {level['errors']} errors"


def cpu_total(level: dict[str, Any]) -> float | None:
    """CPU ms per research summed over the processes, None when not measured."""
    cpu = level.get("cpu_ms_per_research") or {}
    return sum(cpu.values()) if cpu else None


def cpu_line(heading: str, measured: dict[str, Any]) -> str:
    """``heading``, then each process's CPU ms per research and the total."""
    cpu = measured["cpu_ms_per_research"]
    return (
        f"{heading}, ms: "
        + ", ".join(f"{k} {fmt(v, 1)}" for k, v in cpu.items())
        + f"; total {fmt(cpu_total(measured), 1)}."
    )
