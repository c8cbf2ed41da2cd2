"""The report on hand-made records and bars whose figures can be worked out by hand: per-action counts and a hit
rate (entered at the next open, after costs), one month of the portfolio, the moving-average baseline switching
in and out, the in/out-of-sample split, determinism of report.json, report.md and the charts, and the Markdown's
sections."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from evaluation.bar_series import BarSeries
from evaluation.baselines import ma_crossover
from evaluation.markdown import render_markdown
from evaluation.portfolio import Period, simulate
from evaluation.records import Configuration, ResearchRecord
from evaluation.report import ReportOptions, build_report, write_report
from evaluation.verdicts import reason_key
from shared_contracts.scoring import DailyBar

D0 = date(2024, 1, 1)
Bar = tuple[float, float, float, float]


def day(i: int) -> date:
    return D0 + timedelta(days=i)


def series(n: int, overrides: dict[int, Bar] | None = None, price: float = 100.0) -> list[DailyBar]:
    """``n`` daily bars (one per calendar day from D0) at ``price`` ±1, with some days replaced."""
    rows = overrides or {}
    return [DailyBar(day(i), *rows.get(i, (price, price + 1, price - 1, price))) for i in range(n)]


def verdict(symbol: str, i: int, action: str, configuration: Configuration = "policy", **fields: Any) -> ResearchRecord:
    sell = action == "SELL"
    defaults: dict[str, Any] = {
        "as_of": day(i),
        "confidence": 0.6,
        "position_percent": 20.0,
        "stop_percent": 5.0 if sell else -5.0,
        "take_profit_percent": -10.0 if sell else 10.0,
        "time_horizon": "SHORT_TERM",
        "engine": "rules",
        "overall_status": "success",
    }
    return ResearchRecord(configuration, symbol, day(i), "ok", action=action, **{**defaults, **fields})


def options(**fields: Any) -> ReportOptions:
    defaults: dict[str, Any] = {
        "start": day(0),
        "end": day(200),
        "split_date": day(100),
        "grid": "month-end",
        "experts": ("technical_analyst", "financial_auditor"),
        "engine": "rules",
        "command": "research-eval --start 2024-01-01",
        "commit": "abc1234",
        "machine": "test box",
    }
    return ReportOptions(**{**defaults, **fields})


# Every trade enters at the next day's open (100) and pays 0.3 % for the round trip.
# AAA: the BUY of day 0 reaches its target (+10 %) on day 5, the BUY of day 31 its stop (-5 %) on day 35, the SELL
# of day 60 its target (a 10 % fall) on day 65; the HOLD of day 91 runs to its horizon; the BUY of day 195 is
# pending (5 of 20 days). A failed research on day 10, a refused one on the split date (day 100).
AAA = series(201, {5: (100, 111, 99, 100), 35: (100, 101, 94, 100), 65: (100, 101, 89, 100)})
RECORDS = [
    verdict("AAA", 0, "BUY", atr=2.0),
    ResearchRecord("policy", "AAA", day(10), "failed", reason="500 internal_error: the judge timed out"),
    verdict("AAA", 31, "BUY"),
    verdict("AAA", 60, "SELL"),
    verdict("AAA", 91, "HOLD", position_percent=0.0),
    ResearchRecord("policy", "AAA", day(100), "refused", reason="422 insufficient_history: 40 bars"),
    verdict("AAA", 195, "BUY"),
    verdict("AAA", 0, "BUY", "technical_only"),
    verdict("AAA", 31, "HOLD", "technical_only"),
]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return build_report(RECORDS, {"AAA": AAA}, options())


def test_counts_per_action_and_a_hit_rate(report: dict[str, Any]) -> None:
    buy, sell, hold = (report["per_action"]["policy"]["whole"][a] for a in ("BUY", "SELL", "HOLD"))
    assert (buy["count"], buy["scored"], buy["pending"]) == (3, 2, 1)
    assert buy["hit_rate"]["value"] == 0.5
    assert buy["hit_rate"]["n"] == 2
    assert buy["call_return"]["mean"]["value"] == pytest.approx(0.022)  # (+10 % - 5 %) / 2 - 0.3 %
    assert buy["exits"] == {"stop": 1, "target": 1, "horizon": 0}
    assert sell["hit_rate"]["value"] == 1.0
    assert sell["call_return"]["mean"]["value"] == pytest.approx(0.097)
    assert sell["realised_return"]["mean"]["value"] == 0.0  # exit/avoid: flat without --allow-short
    assert hold["hit_rate"] is None
    assert (hold["count"], hold["exits"]["horizon"]) == (1, 1)
    technical = report["per_action"]["technical_only"]["whole"]
    assert (technical["BUY"]["count"], technical["BUY"]["hit_rate"]["value"], technical["HOLD"]["count"]) == (1, 1.0, 1)
    actions = report["actions"]["policy"]["whole"]
    assert actions["counts"]["BUY"]["count"] == 3
    assert actions["flip_rate"]["value"] == 0.75  # BUY BUY SELL HOLD BUY: 3 changes in 4 pairs
    assert actions["flip_rate"]["n"] == 4


def test_calibration_and_stop_distance(report: dict[str, Any]) -> None:
    calibration = report["calibration"]["policy"]["whole"]
    assert calibration["n"] == 3  # two scored BUYs and the SELL, all at confidence 0.6: hit, miss, hit
    assert calibration["brier"]["score"] == pytest.approx((0.4**2 + 0.6**2 + 0.4**2) / 3, abs=1e-6)
    assert calibration["brier"]["base_rate_score"] == pytest.approx(2 / 9, abs=1e-6)
    assert [b["n"] for b in calibration["bins"]] == [0] * 6 + [3] + [0] * 3
    stops = report["stop_distance"]["policy"]["whole"]  # only the first BUY has an ATR: 5 % of 100 over 2
    assert (stops["n"], stops["median"], stops["within_band"]["value"]) == (1, 2.5, 1.0)
    assert stops["target_to_stop_median"] == {"value": 2.0, "n": 1}
    assert [row["symbol"] for row in report["stop_distance_by_symbol"]["policy"]] == ["AAA"]
    # out of sample the one BUY is pending: nothing to score against the in-sample constant (2/3)
    constant = report["calibration"]["policy"]["out_of_sample"]["against_in_sample_constant"]
    assert constant == {"rate": pytest.approx(2 / 3, abs=1e-6), "score": None, "skill": None, "n": 0}


def test_the_in_sample_constant_scores_out_of_sample_calls() -> None:
    # in sample: a hit at 0.6 (the BUY of day 0); out of sample: a hit and a miss, each at confidence 0.6
    bars = series(301, {5: (100, 111, 99, 100), 105: (100, 111, 99, 100), 135: (100, 101, 94, 100)})
    records = [verdict("AAA", 0, "BUY"), verdict("AAA", 100, "BUY"), verdict("AAA", 130, "BUY")]
    constant = build_report(records, {"AAA": bars}, options(end=day(300)))["calibration"]["policy"]["out_of_sample"]
    against = constant["against_in_sample_constant"]
    assert (against["rate"], against["n"]) == (1.0, 2)
    assert against["score"] == pytest.approx(0.5)  # always 1.0: right once, wrong once
    assert against["skill"] == pytest.approx(1 - ((0.4**2 + 0.6**2) / 2) / 0.5)


def test_the_confidence_as_the_probability_that_trades_and_holds_are_right(report: dict[str, Any]) -> None:
    whole = report["calibration"]["policy"]["whole"]
    trades, hold = whole["trades"], whole["hold"]
    # the two scored BUYs and the SELL, in three months, at 0.6: hit, miss, hit
    assert (trades["n"], trades["months"], trades["hit_rate"]["value"]) == (3, 3, pytest.approx(2 / 3))
    assert trades["brier"] == pytest.approx((0.4**2 + 0.6**2 + 0.4**2) / 3, abs=1e-6)
    assert trades["constant_brier"] == pytest.approx(2 / 9, abs=1e-6)
    assert trades["excess"]["value"] == pytest.approx(trades["brier"] - 2 / 9, abs=1e-6)
    assert trades["skill"]["value"] == pytest.approx(1 - trades["brier"] / (2 / 9), abs=1e-5)
    assert trades["skill"]["n"] == 3
    assert (trades["tolerance"], trades["within_tolerance"]) == (0.005, True)
    assert [b["n"] for b in trades["bins"]] == [1, 1, 1]
    # the HOLD of day 91: the long it declined, 100 → 100 over 20 days, lost the cost: right, at 0.6
    assert (hold["n"], hold["hit_rate"]["value"], hold["brier"]) == (1, 1.0, pytest.approx(0.16))
    assert (hold["constant_brier"], hold["skill"]["value"], hold["within_tolerance"]) == (0.0, None, False)
    assert report["calibration"]["policy"]["out_of_sample"]["hold"]["against_in_sample_constant"]["rate"] == 1.0
    assert "### The confidence as the probability that the call is right" in render_markdown(report)


def test_a_hold_is_wrong_when_the_long_it_declined_made_money() -> None:
    rising = series(60, {21: (110, 111, 109, 110)})  # the 20th bar after day 1's open closes at 110
    records = [verdict("AAA", 1, "HOLD", confidence=0.3), verdict("AAA", 2, "HOLD", confidence=0.7)]
    hold = build_report(records, {"AAA": rising}, options())["calibration"]["policy"]["whole"]["hold"]
    assert (hold["n"], hold["hit_rate"]["value"]) == (2, 0.5)  # day 2's long ends on day 22: 100 → 100
    assert hold["brier"] == pytest.approx((0.3**2 + 0.3**2) / 2)


def test_market_wide_sweeps_are_counted_per_date() -> None:
    records = [verdict(s, 0, "BUY") for s in ("A", "B", "C")] + [verdict("D", 0, "HOLD")]
    records += [verdict(s, 31, a) for s, a in (("A", "BUY"), ("B", "SELL"), ("C", "HOLD"), ("D", "HOLD"))]
    bars = {s: series(60) for s in "ABCD"}
    sweeps = build_report(records, bars, options(end=day(59)))["concentration"]["policy"]["whole"]
    assert sweeps["dates"] == 2
    assert sweeps["dates_over_limit"] == 1  # 3 of 4 BUY on day 0 (75 % > 60 %); day 31: 25 %
    assert sweeps["max"] == {"share": 0.75, "date": day(0).isoformat(), "action": "BUY"}


def test_in_sample_and_out_of_sample_split_on_the_analysis_date(report: dict[str, Any]) -> None:
    coverage = report["coverage"]["policy"]
    assert coverage["whole"]["n"] == 7
    inside, outside = coverage["in_sample"], coverage["out_of_sample"]
    assert (inside["n"], inside["by_status"]["ok"]["count"], inside["by_status"]["failed"]["count"]) == (5, 4, 1)
    assert (outside["n"], outside["by_status"]["refused"]["count"]) == (2, 1)  # the split date is out-of-sample
    assert outside["refusal_reasons"] == [{"reason": "422 insufficient_history", "count": 1}]
    assert report["per_action"]["policy"]["in_sample"]["BUY"]["scored"] == 2
    assert report["per_action"]["policy"]["out_of_sample"]["BUY"]["pending"] == 1
    samples = [(p["start"], p["sample"]) for p in report["portfolio"]["periods"]]
    assert samples[-2:] == [(day(100).isoformat(), "out_of_sample"), (day(195).isoformat(), "out_of_sample")]
    assert samples[3] == (day(60).isoformat(), "in_sample")
    months = report["portfolio"]["strategies"]["policy"]
    assert (months["in_sample"]["periods"], months["out_of_sample"]["periods"]) == (5, 2)


def test_reasons_are_grouped_by_their_code() -> None:
    assert reason_key("422 insufficient_history: 40 bars") == "422 insufficient_history"
    assert reason_key("HTTP 500 internal_error: boom") == "HTTP 500 internal_error"
    assert reason_key("before the first bar (2021-03-01)") == "before the first bar"
    assert reason_key("no verdict (overall_status failed, debate)") == "no verdict (overall_status failed, debate)"


@pytest.mark.parametrize(
    ("allow_short", "policy_return", "exposure"), [(False, 0.02 - 0.00075, 0.5), (True, 0.07 - 0.0015, 1.0)]
)
def test_one_month_of_the_portfolio(allow_short: bool, policy_return: float, exposure: float) -> None:
    # Bought at day 1's open (100), held to the end of the data: AAA ends at 104 (+4 %), BBB at 90 (-10 %). The BUY
    # and the SELL each ask for 50 %: long AAA alone, 50 % gross; with shorting, 100 % gross split equally, BBB
    # short (+10 % on its half). A trade pays half of 0.3 % on what it moves.
    bars = {
        "AAA": series(30, {29: (100, 104.5, 99, 104)}),
        "BBB": series(30, {29: (100, 101, 89, 90)}),
    }
    records = [
        verdict("AAA", 0, "BUY", position_percent=50.0),
        verdict("BBB", 0, "SELL", position_percent=50.0),
        verdict("AAA", 29, "HOLD"),
        verdict("BBB", 29, "HOLD"),
    ]
    built = build_report(records, bars, options(end=day(29), allow_short=allow_short, exposure="verdict"))
    portfolio = built["portfolio"]
    (period,) = portfolio["periods"]
    assert (period["start"], period["end"]) == (day(0).isoformat(), day(29).isoformat())
    assert period["returns"]["policy"] == pytest.approx(policy_return)
    assert period["exposure"]["policy"] == pytest.approx(exposure)
    assert period["turnover"]["policy"] == pytest.approx(exposure)
    universe = (0.04 - 0.10) / 2 - 0.0015
    assert period["returns"]["equal_weight"] == pytest.approx(universe)
    assert period["exposure"]["equal_weight"] == pytest.approx(1.0)
    matched = portfolio["strategies"]["equal_weight_matched"]["whole"]
    assert matched["mean_exposure"] == pytest.approx(exposure)
    assert matched["mean_return"]["value"] == pytest.approx(universe * exposure)  # the same exposure as the policy
    assert period["returns"]["ma_crossover"] == 0.0  # fewer than 200 bars: no position
    assert portfolio["curves"]["equity"]["policy"] == [1.0, pytest.approx(1 + policy_return)]
    assert portfolio["strategies"]["policy"]["whole"]["mean_exposure"] == pytest.approx(exposure)
    excess = portfolio["excess_over"]["equal_weight"]["whole"]
    assert excess["mean"]["value"] == pytest.approx(policy_return - universe)
    assert excess["excludes_zero"] is False
    assert "too few" in excess["statement"]


def test_the_moving_average_crossover_switches_in_and_out() -> None:
    # Rising 1 a day for 250 days, then falling 6 a day: the 50-day average is above the 200-day one from the
    # 200th close on, and below it at the end.
    closes = [100.0 + i if i < 250 else 350.0 - 6 * (i - 250) for i in range(300)]
    bars = {"AAA": BarSeries([DailyBar(day(i), c, c, c, c) for i, c in enumerate(closes)])}
    rule = ma_crossover(bars, budget=1.0)
    assert rule(day(198)) == {}  # 199 closes
    assert rule(day(199)) == {"AAA": 1.0}
    assert rule(day(220)) == {"AAA": 1.0}
    assert rule(day(299)) == {}  # 50-day mean 203 < 200-day mean 256.6
    run = simulate([Period(day(198), day(220)), Period(day(220), day(230))], ["AAA"], bars, rule, budget=1.0, cost=0.0)
    assert run.returns == [0.0, pytest.approx(331 / 321 - 1)]  # the open after day 220 to the open after day 230
    assert run.turnover == [0.0, 1.0]


def test_the_report_is_deterministic_and_the_markdown_reads_on_its_own(tmp_path: Path) -> None:
    first = build_report(RECORDS, {"AAA": AAA}, options(llm=True))
    again = build_report(list(reversed(RECORDS)), {"AAA": tuple(reversed(AAA))}, options(llm=True))
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)
    written = [write_report(r, tmp_path / name) for r, name in ((first, "a"), (again, "b"))]
    names = [path.name for path in written[0]]
    assert names == ["report.json", "report.md", "equity_curves.png", "reliability.png", "actions_over_time.png"]
    assert [path.name for path in written[1]] == names
    for a, b in zip(*written, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert json.loads((tmp_path / "a" / "report.json").read_text()) == json.loads(json.dumps(first))
    markdown = (tmp_path / "a" / "report.md").read_text()
    for heading in (
        "# Walk-forward evaluation",
        "## How to read this",
        "## Headline",
        "## 1. Coverage",
        "## 2. Actions",
    ):
        assert heading in markdown
    for heading in ("## 3. Verdicts by action", "## 4. Portfolio", "## 5. Calibration", "## 6. Stop distance"):
        assert heading in markdown
    assert "**Beside a size/liquidity tilt.**" in markdown
    assert "Too few months to tell the score from a size/liquidity tilt." in markdown  # one stock: no cross-section
    for line in ("`research-eval --start 2024-01-01`", "abc1234", "test box", "technical_analyst, financial_auditor"):
        assert line in markdown
    for name in names[2:]:
        assert f"]({name})" in markdown
    assert "may have seen prices and news of the test period" in markdown
    assert "may have seen" not in render_markdown(build_report(RECORDS, {"AAA": AAA}, options()))
