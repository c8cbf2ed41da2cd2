"""Numbers as report.json stores them: the shared scorecard's rounding and estimate objects."""

from __future__ import annotations

from verdict_statistics.scorecard import DIGITS, Json, brier_json, estimate_json, rounded

__all__ = ["DIGITS", "Json", "brier_json", "estimate_json", "rounded"]
