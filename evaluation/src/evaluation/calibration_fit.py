"""Fit the judge's confidence calibration on the in-sample period of an evaluation report.

A monotone map from the policy's raw confidence to the realised hit rate of its BUY/SELL calls: the calls
are grouped into ``bins`` equal-count groups by raw confidence, each group's hit rate is shrunk toward the
overall base rate with the weight of ``prior`` pseudo-calls (so a small group cannot claim much), and an
isotonic regression (pool-adjacent violators, ``scipy.optimize``) makes the sequence non-decreasing. The
result is a list of (raw, calibrated) knots to interpolate between; with no signal in sample it is flat at the
base rate, which is what keeps the out-of-sample Brier score near the constant predictor's.

Example::

    knots = fit_calibration([(0.62, True), (0.70, False), ...], bins=4, prior=30)
    # [(0.61, 0.47), (0.66, 0.49), (0.72, 0.52), (0.80, 0.52)]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from scipy.optimize import isotonic_regression

from evaluation.bar_series import read_bars_csv
from shared_contracts.scoring import DailyBar, score_trade


def fit_calibration(
    calls: Sequence[tuple[float, bool]], *, bins: int = 4, prior: float = 30.0
) -> list[tuple[float, float]]:
    """(raw confidence, calibrated probability) knots, raw ascending; empty without calls."""
    if not calls:
        return []
    ordered = sorted(calls)
    base = sum(hit for _, hit in ordered) / len(ordered)
    groups = [ordered[i * len(ordered) // bins : (i + 1) * len(ordered) // bins] for i in range(bins)]
    groups = [g for g in groups if g]
    raw = [statistics.fmean(c for c, _ in g) for g in groups]
    shrunk = [(sum(hit for _, hit in g) + prior * base) / (len(g) + prior) for g in groups]
    fitted = isotonic_regression(shrunk, weights=[len(g) + prior for g in groups], increasing=True).x
    return [(round(r, 4), round(float(p), 4)) for r, p in zip(raw, fitted, strict=True)]


def scored_calls(records_file: Path, bars_dir: Path, before: date) -> list[tuple[float, bool]]:
    """(raw confidence, profitable) of the scored policy BUY/SELL verdicts analysed before ``before``."""
    calls: list[tuple[float, bool]] = []
    cache: dict[str, list[DailyBar]] = {}
    for line in records_file.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["configuration"] != "policy" or r["status"] != "ok" or r["action"] not in ("BUY", "SELL"):
            continue
        if date.fromisoformat(r["analysis_date"]) >= before or r["confidence"] is None:
            continue
        bars = cache.setdefault(r["symbol"], read_bars_csv(bars_dir, r["symbol"]))
        outcome = score_trade(
            bars,
            entry_day=date.fromisoformat(r["as_of"] or r["analysis_date"]),
            action=r["action"],
            time_horizon=r["time_horizon"],
            stop_percent=r["stop_percent"],
            take_profit_percent=r["take_profit_percent"],
            analysis_day=date.fromisoformat(r["analysis_date"]),
            symbol=r["symbol"],
        )
        if outcome.profitable is not None:
            calls.append((r["confidence"], outcome.profitable))
    return calls


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evaluation.calibration_fit RECORDS BARS_DIR SPLIT``: print the knots fitted in sample."""
    parser = argparse.ArgumentParser(prog="calibration-fit", description=main.__doc__)
    parser.add_argument("records", type=Path, help="records.jsonl of an evaluation run")
    parser.add_argument("bars_dir", type=Path, help="the snapshot's bars/ folder")
    parser.add_argument("split", type=date.fromisoformat, help="only verdicts analysed before this date")
    parser.add_argument("--bins", type=int, default=4)
    parser.add_argument("--prior", type=float, default=30.0)
    args = parser.parse_args(argv)
    calls = scored_calls(args.records, args.bars_dir, args.split)
    knots = fit_calibration(calls, bins=args.bins, prior=args.prior)
    base = sum(hit for _, hit in calls) / len(calls) if calls else None
    print(json.dumps({"n": len(calls), "base_rate": base, "knots": knots}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
