"""The in-sample calibration fit: monotone, shrunk toward the base rate, flat without signal."""

from __future__ import annotations

import pytest

from evaluation.calibration_fit import fit_calibration


def test_groups_whose_hit_rate_falls_are_pooled_by_weight() -> None:
    # Without shrinkage the four groups of 10 hit 3, 5, 4, 6 times: the middle pair is pooled to 0.45.
    hits = [3, 5, 4, 6]
    calls = [(0.5 + g / 10 + i / 1000, i < h) for g, h in enumerate(hits) for i in range(10)]
    assert [p for _, p in fit_calibration(calls, bins=4, prior=0)] == pytest.approx([0.3, 0.45, 0.45, 0.6])
    # Two groups of 20 hitting 11 and 8 times: both pool to 19 / 40.
    calls = [(0.5 + i / 1000, i < 11) for i in range(20)] + [(0.7 + i / 1000, i < 8) for i in range(20)]
    assert [p for _, p in fit_calibration(calls, bins=2, prior=0)] == pytest.approx([0.475, 0.475])


def test_a_real_signal_survives_and_stays_monotone() -> None:
    calls = [(0.55 + i / 1000, i % 10 < 3) for i in range(100)] + [(0.80 + i / 1000, i % 10 < 8) for i in range(100)]
    knots = fit_calibration(calls, bins=2, prior=30)
    assert [p for _, p in knots] == sorted(p for _, p in knots)
    assert knots[0][1] == pytest.approx((30 + 30 * 0.55) / 130, abs=1e-4)
    assert knots[1][1] > 0.7


def test_no_signal_gives_the_base_rate_everywhere() -> None:
    calls = [(0.5 + (i % 40) / 100, i % 2 == 0) for i in range(400)]
    knots = fit_calibration(calls, bins=4, prior=30)
    assert all(abs(p - 0.5) < 0.05 for _, p in knots)
    assert fit_calibration([]) == []
