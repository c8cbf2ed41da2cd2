"""The in-sample fit of the verdict's confidence: monotone, shrunk toward the base rate, flat without signal, per
action on the standing's strength, written with its provenance, and the mapped confidence scored as the report
scores it."""

from __future__ import annotations

import gzip
import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from evaluation.calibration_fit import (
    document_text,
    fit_calibration,
    fit_document,
    main,
    mapped_confidence,
    strength,
)
from evaluation.records import ResearchRecord


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
    heavy = fit_calibration(calls, bins=2, prior=200)  # the shipped prior: most of the way to the base rate
    assert heavy[0][1] == pytest.approx((30 + 200 * 0.55) / 300, abs=1e-4)


def test_no_signal_gives_the_base_rate_everywhere() -> None:
    calls = [(0.5 + (i % 40) / 100, i % 2 == 0) for i in range(400)]
    knots = fit_calibration(calls, bins=4, prior=30)
    assert all(abs(p - 0.5) < 0.05 for _, p in knots)
    assert fit_calibration([]) == []


def test_without_a_given_direction_the_better_fitting_one_is_taken() -> None:
    falling = [(0.1 + i / 1000, i % 10 < 8) for i in range(100)] + [(0.5 + i / 1000, i % 10 < 2) for i in range(100)]
    assert [p for _, p in fit_calibration(falling, bins=2, prior=0, increasing=None)] == pytest.approx([0.8, 0.2])
    assert [p for _, p in fit_calibration(falling, bins=2, prior=0)] == pytest.approx([0.5, 0.5])  # forced up: pooled


def test_bins_of_tied_strengths_give_one_knot() -> None:
    assert fit_calibration([(0.3, True), (0.3, False), (0.3, True), (0.3, True)], bins=2, prior=0) == [(0.3, 0.5)]


def test_the_strength_is_the_judges() -> None:
    def record(rank: float | None, score: float | None) -> ResearchRecord:
        return ResearchRecord("policy", "A", date(2024, 1, 31), "ok", universe_rank=rank, score=score)

    assert strength(record(0.9, -0.5)) == 0.8
    assert strength(record(0.1, None)) == 0.8
    assert strength(record(None, -0.37)) == 0.37
    assert strength(record(None, None)) is None


def document() -> dict[str, object]:
    day = date(2023, 1, 31)
    calls = {
        "BUY": [(0.7, True, day), (0.9, True, day), (0.6, False, day), (0.8, False, day + timedelta(days=28))],
        "SELL": [(0.7, False, day), (0.9, True, day)],
        "HOLD": [(0.1, True, day), (0.4, False, day), (0.2, True, day)],
    }
    return fit_document(
        calls, split=date(2023, 10, 31), bins=2, prior=0, cost=0.003, command="cmd", records={"commit": "abc"}
    )


def test_the_document_holds_knots_window_and_provenance_per_action() -> None:
    doc = document()
    actions = doc["actions"]
    assert isinstance(actions, dict)
    buy = actions["BUY"]
    assert (buy["n"], buy["base_rate"], buy["direction"]) == (4, 0.5, "increasing")
    assert buy["knots"] == [[0.65, 0.5], [0.85, 0.5]]  # each bin one hit in two
    assert buy["fit_window"] == {"first": "2023-01-31", "last": "2023-02-28"}
    assert buy["strength_range"] == [0.6, 0.9]
    assert (doc["split"], doc["bins"], doc["prior"], doc["command"]) == ("2023-10-31", 2, 0, "cmd")
    assert set(actions) == {"BUY", "SELL", "HOLD"}
    text = document_text(doc)
    assert "[0.65, " in text
    assert json.loads(text) == doc
    only_buys = {"BUY": [(0.7, True, date(2023, 1, 31))], "SELL": [], "HOLD": []}
    with pytest.raises(ValueError, match="no in-sample SELL"):
        fit_document(only_buys, split=date(2023, 10, 31), bins=2, prior=0, cost=0.003, command="", records={})


def test_the_mapped_confidence_interpolates_and_holds_the_ends() -> None:
    doc = {"actions": {"BUY": {"knots": [[0.6, 0.4], [0.8, 0.5]], "base_rate": 0.45}}}
    assert mapped_confidence(doc, "BUY", 0.85, None) == 0.45  # strength 0.7: half-way
    assert mapped_confidence(doc, "BUY", 1.0, None) == 0.5
    assert mapped_confidence(doc, "BUY", None, 0.1) == 0.4
    assert mapped_confidence(doc, "BUY", None, None) == 0.45


def test_the_command_fits_in_sample_only_and_checks_the_mapped_confidence(tmp_path: Path) -> None:
    bars_dir = tmp_path / "bars"
    bars_dir.mkdir()
    start = date(2023, 1, 2)
    days = [start + timedelta(days=i) for i in range(400)]
    for symbol, drift in (("600000.SH", 0.002), ("000001.SZ", -0.002)):
        lines = ["date,open,high,low,close,volume,amount"]
        for i, d in enumerate(days):
            price = 100 * (1 + drift) ** i
            lines.append(f"{d.isoformat()},{price},{price * 1.001},{price * 0.999},{price},1,")
        (bars_dir / f"{symbol}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = []
    for month in range(1, 12):
        analysis = date(2023, month, 28)
        for symbol, rank, action in (("600000.SH", 0.9, "BUY"), ("000001.SZ", 0.1, "SELL"), ("000001.SZ", 0.5, "HOLD")):
            rows.append(
                {
                    "configuration": "policy",
                    "symbol": symbol,
                    "analysis_date": analysis.isoformat(),
                    "status": "ok",
                    "as_of": analysis.isoformat(),
                    "action": action,
                    "confidence": 0.8,
                    "universe_rank": rank,
                    "score": 2 * rank - 1,
                    "stop_percent": -30.0 if action != "SELL" else 30.0,
                    "take_profit_percent": 60.0 if action != "SELL" else -60.0,
                    "time_horizon": "SHORT_TERM",
                }
            )
    records = tmp_path / "records.jsonl.gz"
    records.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
    out, check = tmp_path / "verdict_confidence.json", tmp_path / "check"
    args = [str(records), "--split", "2023-09-01", "--bars", str(bars_dir), "--out", str(out), "--check", str(check)]
    assert main([*args, "--records-commit", "abc", "--bins", "2"]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["records"]["commit"] == "abc"
    assert doc["command"].startswith("python -m evaluation.calibration_fit ")
    # in sample (January to August) every BUY of the rising stock and every SELL of the falling one was right,
    # and every HOLD of the falling stock too
    for action in ("BUY", "SELL", "HOLD"):
        assert (doc["actions"][action]["n"], doc["actions"][action]["base_rate"]) == (8, 1.0)
        assert doc["actions"][action]["fit_window"] == {"first": "2023-01-28", "last": "2023-08-28"}
    section = json.loads((check / "calibration.json").read_text(encoding="utf-8"))
    assert section["in_sample"]["trades"]["brier"] == 0.0
    assert section["out_of_sample"]["hold"]["n"] == 3  # September to November
    assert (check / "reliability.png").stat().st_size > 0
