"""A finished run scored again from its records.jsonl, report.json and the snapshot's bars: the records read back
as written, the same report with the same options, another with other portfolio options."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest

from evaluation.outputs import write_records
from evaluation.records import ResearchRecord, read_records
from evaluation.report import ReportOptions, build_report, write_report
from evaluation.rescore import main
from shared_contracts.scoring import DailyBar

D0 = date(2024, 1, 1)


def bars(price: float) -> list[DailyBar]:
    return [
        DailyBar(D0 + timedelta(days=i), price + i, price + i + 1, price + i - 1, price + i, 1.0) for i in range(60)
    ]


RECORDS = [
    ResearchRecord(
        "policy",
        symbol,
        D0 + timedelta(days=day),
        "ok",
        as_of=D0 + timedelta(days=day),
        action=action,
        confidence=0.4,
        position_percent=30.0,
        stop_percent=-5.0,
        take_profit_percent=10.0,
        time_horizon="SHORT_TERM",
        direction="BULLISH",
        debate_confidence=0.5,
        failed_experts=("valuation_modeler",),
        score=0.2,
    )
    for symbol, action in (("600000.SH", "BUY"), ("000001.SZ", "HOLD"))
    for day in (0, 31)
] + [ResearchRecord("policy", "600000.SH", D0 + timedelta(days=45), "refused", reason="422 insufficient_history")]


def test_records_read_back_as_written(tmp_path: Path) -> None:
    write_records(RECORDS, tmp_path / "records.jsonl")
    assert read_records(tmp_path / "records.jsonl") == RECORDS


def test_a_run_is_rescored_from_its_files(tmp_path: Path) -> None:
    run, snapshot = tmp_path / "run", tmp_path / "bars"
    snapshot.mkdir()
    series = {"600000.SH": bars(100.0), "000001.SZ": bars(50.0)}
    for symbol, rows in series.items():
        lines = ["date,open,high,low,close,volume,amount"]
        lines += [f"{b.day.isoformat()},{b.open},{b.high},{b.low},{b.close},1," for b in rows]
        (snapshot / f"{symbol}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = ReportOptions(
        start=D0,
        end=D0 + timedelta(days=59),
        split_date=D0 + timedelta(days=31),
        grid="month-end",
        experts=("technical_analyst",),
        engine="rules",
        commit="abc1234",
    )
    write_report(build_report(RECORDS, series, options), run)
    write_records(RECORDS, run / "records.jsonl")

    assert main([str(run), "--out", str(tmp_path / "same"), "--bars", str(snapshot)]) == 0
    again = json.loads((tmp_path / "same" / "report.json").read_text())
    first = json.loads((run / "report.json").read_text())
    assert {k: v for k, v in again.items() if k != "options"} == {k: v for k, v in first.items() if k != "options"}
    assert again["options"]["commit"] == "abc1234"  # the verdicts' commit

    main([str(run), "--out", str(tmp_path / "costly"), "--bars", str(snapshot), "--cost", "0.01"])
    costly = json.loads((tmp_path / "costly" / "report.json").read_text())
    assert costly["options"]["cost"] == 0.01
    buy = costly["per_action"]["policy"]["whole"]["BUY"]["call_return"]["mean"]["value"]
    before = first["per_action"]["policy"]["whole"]["BUY"]["call_return"]["mean"]["value"]
    assert buy == pytest.approx(before - 0.007, abs=2e-6)
