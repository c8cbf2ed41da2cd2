"""The evaluation statistics on known inputs."""

from __future__ import annotations

import pytest

from verdict_statistics.metrics import (
    Estimate,
    brier,
    brier_against_constant,
    calibration,
    equal_count_bins,
    equity_curve,
    flip_rate,
    max_drawdown,
    mean_ci,
    sharpe,
    wilson,
)


def test_mean_ci_uses_the_t_quantile_and_the_sample_deviation() -> None:
    estimate = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])  # mean 3, stdev 1.5811, t(0.975; 4) = 2.776445 (t table)
    assert estimate.value == 3.0
    assert estimate.n == 5
    assert estimate.low == pytest.approx(3 - 2.776445 * 1.5811388 / 5**0.5)
    assert estimate.high == pytest.approx(3 + 2.776445 * 1.5811388 / 5**0.5)
    assert estimate.excludes_zero()
    assert not mean_ci([-1.0, 1.0, -1.0, 1.0]).excludes_zero()
    assert mean_ci([]).value is None
    assert mean_ci([0.4]).low is None


def test_mean_ci_at_twenty_values_uses_the_exact_t_quantile() -> None:
    # 1..20: mean 10.5, sample variance 35; t(0.975; 19) = 2.093024 in the published tables (1.96 is 6 % narrower).
    estimate = mean_ci([float(i) for i in range(1, 21)])
    half = 2.093024 * 35**0.5 / 20**0.5
    assert estimate.value == 10.5
    assert estimate.low == pytest.approx(10.5 - half, abs=1e-6)
    assert estimate.high == pytest.approx(10.5 + half, abs=1e-6)


def test_mean_ci_of_constant_values_is_a_point() -> None:
    assert mean_ci([0.02, 0.02, 0.02]) == Estimate(0.02, 0.02, 0.02, 3)


def test_wilson_interval_of_a_known_proportion() -> None:
    estimate = wilson(8, 10)
    assert estimate.value == 0.8
    assert estimate.low == pytest.approx(0.4902, abs=1e-4)
    assert estimate.high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0).value is None


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_newcombes_worked_examples(successes: int, n: int, low: float, high: float) -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, Table II, method 3 (score interval without correction).
    estimate = wilson(successes, n)
    assert estimate.value == successes / n
    assert estimate.low == pytest.approx(low, abs=1e-4)
    assert estimate.high == pytest.approx(high, abs=1e-4)


def test_brier_against_the_constant_base_rate_predictor() -> None:
    result = brier([0.9, 0.8, 0.2, 0.1], [True, True, False, False])
    assert result.score == pytest.approx((0.01 + 0.04 + 0.04 + 0.01) / 4)
    assert result.base_rate == 0.5
    assert result.base_rate_score == 0.25
    assert result.skill == pytest.approx(1 - 0.025 / 0.25)
    useless = brier([0.9, 0.9], [False, True])
    assert useless.skill is not None
    assert useless.skill < 0


def test_brier_against_the_realised_constant_with_a_month_bootstrap() -> None:
    # 12 months of 10 calls, 4 hits each: the constant is 0.4 and its Brier 0.24 in every resample
    months = [f"2024-{m:02d}" for m in range(1, 13) for _ in range(10)]
    outcomes = [i % 10 < 4 for i in range(120)]
    sharp = [0.9 if hit else 0.1 for hit in outcomes]
    result = brier_against_constant(sharp, outcomes, months)
    assert (result.n, result.clusters) == (120, 12)
    assert result.rate == pytest.approx(0.4)
    assert result.score == pytest.approx(0.01)
    assert result.constant_score == pytest.approx(0.24)
    assert result.excess.value == pytest.approx(0.01 - 0.24)
    assert result.skill.value == pytest.approx(1 - 0.01 / 0.24)
    assert result.skill.low == pytest.approx(result.skill.value)  # every month alike: no spread
    assert result.skill.high == pytest.approx(result.skill.value)
    assert result.skill.n == 12
    constant = brier_against_constant([0.4] * 120, outcomes, months)
    assert constant.skill.value == pytest.approx(0.0)
    assert constant.excess.value == pytest.approx(0.0)


def test_the_month_bootstrap_interval_widens_when_months_differ_and_is_reproducible() -> None:
    # months alternate 8 and 2 hits in 10: 0.5 is the realised rate, but not a resample's
    months = [f"m{m:02d}" for m in range(20) for _ in range(10)]
    outcomes = [i % 10 < (8 if (i // 10) % 2 == 0 else 2) for i in range(200)]
    flat = [0.5] * 200
    first = brier_against_constant(flat, outcomes, months)
    assert first == brier_against_constant(flat, outcomes, months)  # seeded
    assert first.skill.value == pytest.approx(0.0)
    assert first.skill.high == pytest.approx(0.0)  # no resample's constant does worse than 0.5
    assert first.skill.low is not None
    assert first.skill.low < -0.01
    assert first.excess.low == pytest.approx(0.0)
    single = brier_against_constant([0.5, 0.5], [True, False], ["m", "m"])
    assert single.skill.value == pytest.approx(0.0)
    assert (single.skill.low, single.clusters) == (None, 1)
    empty = brier_against_constant([], [], [])
    assert (empty.score, empty.skill.value, empty.n) == (None, None, 0)


def test_equal_count_bins_sort_the_calls_by_probability() -> None:
    bins = equal_count_bins([0.9, 0.1, 0.2, 0.8, 0.5], [True, False, True, True, False], bins=2)
    assert [(b.n, b.low, b.high) for b in bins] == [(2, 0.1, 0.2), (3, 0.5, 0.9)]
    assert bins[0].hit_rate.value == 0.5
    assert bins[1].mean_confidence == pytest.approx(2.2 / 3)
    assert len(equal_count_bins([0.3], [True], bins=5)) == 1


def test_calibration_bins_by_confidence() -> None:
    bins = calibration([0.05, 0.55, 0.58, 0.95, 1.0], [False, True, False, True, True])
    assert len(bins) == 10
    assert (bins[0].n, bins[5].n, bins[9].n) == (1, 2, 2)
    assert bins[5].hit_rate.value == 0.5
    assert bins[9].mean_confidence == pytest.approx(0.975)
    assert bins[3].mean_confidence is None


def test_sharpe_drawdown_and_flips() -> None:
    assert sharpe([0.01, 0.01]) is None
    assert sharpe([0.02, 0.0]) == pytest.approx(0.01 / 0.0141421356 * 12**0.5)
    curve = equity_curve([0.10, -0.50, 0.20])
    assert curve == pytest.approx([1.0, 1.1, 0.55, 0.66])
    assert max_drawdown(curve) == pytest.approx(-0.5)
    assert max_drawdown([1.0, 1.2, 1.3]) == 0.0
    flips = flip_rate({"A": ["HOLD", "BUY", "BUY"], "B": ["SELL", "HOLD"]})
    assert (flips.value, flips.n) == (pytest.approx(2 / 3), 3)


def test_spearman_ic_ranks_with_ties_and_refuses_what_has_no_order() -> None:
    from scipy import stats

    from verdict_statistics.metrics import spearman_ic

    assert spearman_ic([0.1, 0.2, 0.3, 0.4], [0.01, 0.05, 0.02, 0.09]) == pytest.approx(0.8)
    assert spearman_ic([3.0, 2.0, 1.0], [0.1, 0.2, 0.3]) == pytest.approx(-1.0)
    tied = ([0.0, 0.0, 0.5, -0.5, 0.5], [0.01, -0.02, 0.03, -0.04, 0.02])
    assert spearman_ic(*tied) == pytest.approx(float(stats.spearmanr(*tied).statistic))
    assert spearman_ic([0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]) is None  # a constant score ranks nothing
    assert spearman_ic([0.1, 0.2], [0.1, 0.2]) is None


def test_monthly_ic_needs_the_minimum_of_stocks_per_month() -> None:
    from verdict_statistics.metrics import monthly_ic

    full = [("2024-01", float(i), float(i) * 0.01) for i in range(10)]
    short = [("2024-02", float(i), -float(i)) for i in range(9)]
    months = monthly_ic(short + full)
    assert [(m.month, m.n) for m in months] == [("2024-01", 10), ("2024-02", 9)]
    assert months[0].ic == pytest.approx(1.0)
    assert months[1].ic is None  # 9 < 10
    assert monthly_ic(short, min_count=9)[0].ic == pytest.approx(-1.0)
