"""The percentile: linear interpolation between closest ranks, the same as the standard library's inclusive one."""

from __future__ import annotations

import math
import statistics

import pytest

from verdict_statistics.quantiles import percentile


def test_the_percentile_interpolates_between_closest_ranks() -> None:
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.95) == pytest.approx(4.8)
    assert (percentile([7.0], 0.95), percentile([1.0, 9.0], 0.0), percentile([1.0, 9.0], 1.0)) == (7.0, 1.0, 9.0)
    assert math.isnan(percentile([], 0.5))


def test_the_percentile_is_the_standard_librarys_inclusive_quantile() -> None:
    samples = [float((i * 37) % 101) for i in range(57)]
    inclusive = statistics.quantiles(samples, n=100, method="inclusive")
    for q in (1, 25, 50, 90, 95, 99):
        assert percentile(samples, q / 100) == pytest.approx(inclusive[q - 1])
