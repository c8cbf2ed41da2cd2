"""The information-coefficient section shared by the report and the live scorecard, and the signed score the
policies before ``score`` are ranked by."""

from __future__ import annotations

import statistics

import pytest
from scipy import stats

from verdict_statistics.scorecard import ic_section, signed_score


def test_signed_score_prefers_the_verdicts_score_and_signs_the_debate_otherwise() -> None:
    assert signed_score(-0.4, "BULLISH", 0.9) == -0.4
    assert signed_score(None, "BULLISH", 0.6) == 0.6
    assert signed_score(None, "BEARISH", 0.6) == -0.6
    assert signed_score(None, "NEUTRAL", 0.3) == 0.0
    assert signed_score(None, None, 0.3) is None
    assert signed_score(None, "BULLISH", None) is None


def test_ic_section_averages_months_with_a_t_interval() -> None:
    rows = []
    perfect = [("2024-01", float(i), float(i)) for i in range(12)]
    inverse = [("2024-02", float(i), -float(i)) for i in range(12)]
    noisy = [("2024-03", float(i), float((i * 7) % 12)) for i in range(12)]
    rows = perfect + inverse + noisy + [("2024-04", 1.0, 0.1)] * 3  # too few in April
    section = ic_section(rows)
    ics = [m["ic"] for m in section["months"]]
    assert ics[:2] == [1.0, -1.0]
    assert ics[3] is None
    values = [1.0, -1.0, float(stats.spearmanr(range(12), [(i * 7) % 12 for i in range(12)]).statistic)]
    mean = statistics.fmean(values)
    half = stats.t.ppf(0.975, 2) * statistics.stdev(values) / 3**0.5
    assert section["mean"]["value"] == pytest.approx(mean, abs=1e-6)
    assert section["mean"]["low"] == pytest.approx(mean - half, abs=1e-6)
    assert section["mean"]["n"] == 3  # months, not stocks
    assert section["observations"] == 39
    assert section["positive_months"]["n"] == 3
