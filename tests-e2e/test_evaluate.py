"""``research-eval`` end to end (issue 27): the walk-forward evaluation over 2 symbols × 4 month-ends, rules mode.

The first run uses a stack this test starts (``--coordinator-url``/``--research-url``), so the bars can be read
afterwards to recompute the report's figures; the second run starts the four services itself (the default) in
another output folder, and must write a byte-identical report.json: the report holds no timing, no session id,
nothing of where the stack ran (run.json holds those).

In LLM mode (the fake OpenAI-compatible server behind the evaluator's caching proxy) a rerun is answered from the
cache, and a call budget stops the run before it is exceeded.

The window (2023-11-30 … 2024-02-29) is one where the technical analyst alone says BUY for both symbols at
least once (MEDIUM_TERM, 60 trading days: every trade is scored by 2025-09-30).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest

from service_kit.stack.launcher import Stack, running_stack
from shared_contracts.research import PriceBars
from shared_contracts.scoring import ROUND_TRIP_COST, DailyBar, score_trade
from stack_fakes import llm_replies
from stack_fakes.fake_llm import running_fake_llm

pytestmark = pytest.mark.e2e

SYMBOLS = ("600519.SH", "600926.SH")  # 600926.SH: a top-fifth BUY in this window under the issue-35 policy
ARGS = ("--symbols", ",".join(SYMBOLS), "--start", "2023-11-01", "--end", "2024-02-29")
GRID = ["2023-11-30", "2023-12-31", "2024-01-31", "2024-02-29"]


def evaluate(
    out: Path, *extra: str, args: tuple[str, ...] = ARGS, llm_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "ANALYSIS_ENGINE", "MARKET_DATA"))}
    env.update(llm_env or {})
    result = subprocess.run(
        [sys.executable, "-m", "evaluation", *args, "--out", str(out), *extra],
        cwd=out.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, f"research-eval failed ({result.returncode}):\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("eval-stack"), common_env={"LOG_LEVEL": "WARNING"}) as running:
        yield running


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory, stack: Stack) -> Path:
    out = tmp_path_factory.mktemp("eval") / "first"
    evaluate(out, "--coordinator-url", stack["coordinator"].url, "--research-url", stack["research"].url)
    return out


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]


def bars_of(stack: Stack, symbol: str) -> list[DailyBar]:
    response = httpx.get(f"{stack['research'].url}/api/v1/research/bars/{symbol}", timeout=30)
    response.raise_for_status()
    bars = PriceBars.model_validate_json(response.content).bars
    return [DailyBar(date.fromisoformat(b.date), b.open, b.high, b.low, b.close) for b in bars]


def test_the_run_writes_the_report_the_charts_the_records_and_run_json(first_run: Path) -> None:
    report = read_json(first_run / "report.json")
    assert report["symbols"] == list(SYMBOLS)
    assert report["grid"] == GRID
    options = report["options"]
    assert (options["start"], options["end"], options["grid"], options["engine"]) == (
        "2023-11-01",
        "2024-02-29",
        "month-end",
        "rules",
    )
    assert options["split_date"] == "2024-01-31"  # the grid date nearest two thirds of the range
    assert options["llm"] is False
    assert report["warnings"] == []
    assert options["command"] == "research-eval " + " ".join(ARGS)
    for section in ("coverage", "actions", "per_action", "calibration", "ic", "benchmarks", "ic_size_neutral"):
        assert set(report[section]) == {"policy", "technical_only"}, section
    assert (first_run / "report.md").read_text(encoding="utf-8").strip()
    for chart in report["charts"].values():
        assert (first_run / chart).read_bytes().startswith(b"\x89PNG")

    run = read_json(first_run / "run.json")
    assert run["researches"]["sent"] == 2 * len(SYMBOLS) * len(GRID)
    assert run["researches"]["by_status"] == {"ok": 16}
    assert run["throughput_per_second"] > 0
    assert run["stack"]["started"] is False
    text = (first_run / "report.json").read_text(encoding="utf-8")
    assert "throughput" not in text
    assert "session_id" not in text

    rows = records(first_run)
    assert len(rows) == 16
    assert [(r["configuration"], r["symbol"], r["analysis_date"]) for r in rows] == sorted(
        (c, s, d) for c in ("policy", "technical_only") for s in SYMBOLS for d in GRID
    )


def test_the_reports_buy_figures_are_recomputed_from_the_records_and_the_bars(first_run: Path, stack: Stack) -> None:
    report = read_json(first_run / "report.json")
    bars = {symbol: bars_of(stack, symbol) for symbol in SYMBOLS}
    buys = [r for r in records(first_run) if r["configuration"] == "technical_only" and r["action"] == "BUY"]
    assert buys, "the technical analyst said BUY somewhere in this window when the test was written"
    returns = []
    for record in buys:
        series = bars[record["symbol"]]
        signal = next(i for i, bar in enumerate(series) if bar.day.isoformat() == record["as_of"])
        entry = series[signal + 1]  # the next open after the signal close
        outcome = score_trade(
            series,
            entry_day=series[signal].day,
            action="BUY",
            time_horizon=record["time_horizon"],
            stop_percent=record["stop_percent"],
            take_profit_percent=record["take_profit_percent"],
            symbol=record["symbol"],
        )
        assert outcome.status == "scored"
        assert (outcome.entry_day, outcome.entry_price) == (entry.day, entry.open)
        assert outcome.exit_price is not None
        assert outcome.call_return == pytest.approx(outcome.exit_price / entry.open - 1.0 - ROUND_TRIP_COST)
        returns.append(outcome.call_return)
    figures = report["per_action"]["technical_only"]["whole"]["BUY"]
    assert figures["count"] == len(buys)
    assert figures["scored"] == len(buys)
    assert figures["call_return"]["mean"]["value"] == pytest.approx(sum(returns) / len(returns), abs=1e-6)


def test_a_second_run_on_a_stack_of_its_own_gives_the_same_report(first_run: Path) -> None:
    second = first_run.parent / "second"
    result = evaluate(second)
    assert "research-eval: 16 researches in" in result.stderr
    assert (second / "report.json").read_bytes() == (first_run / "report.json").read_bytes()
    run = read_json(second / "run.json")
    assert run["stack"]["started"] is True
    assert {"stack_start_seconds", "researches_seconds", "report_seconds"} <= set(run["phases_seconds"])
    assert run["coordinators"] == 2  # the default; the first run had the test stack's one
    for service in ("coordinator", "coordinator-2", "research", "debate", "judge"):
        assert (second / "logs" / f"{service}.log").is_file()


def test_llm_mode_goes_through_the_proxy_caches_for_a_rerun_and_keeps_to_the_call_budget(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    work = tmp_path_factory.mktemp("eval-llm")
    args = ("--symbols", "600519.SH", "--start", "2024-05-01", "--end", "2024-06-30", "--no-baseline-run")
    with running_fake_llm(work, llm_replies.script()) as fake:
        llm_env = fake.env(REPORT_LANGUAGE="en")
        evaluate(work / "first", "--max-llm-calls", "9", "--coordinators", "1", args=args, llm_env=llm_env)
        first = read_json(work / "first" / "run.json")
        # 9 calls per research (5 experts, bull, bear, resolution, judge): the budget admits one of the two
        assert first["researches"]["sent"] == 1
        assert first["researches"]["not_run_llm_budget"] == 1
        assert first["budget_stop"].startswith("LLM budget: 9 calls")
        assert (first["llm"]["upstream_calls"], first["llm"]["cache_hits"]) == (9, 0)
        assert first["llm"]["upstream_tokens"] > 0
        assert sum(fake.calls_by_role().values()) == 9
        cache = work / "llm-cache"
        assert len(list(cache.glob("*/*.json"))) == 9

        fake.client.reset(llm_replies.script())
        result = evaluate(work / "second", "--coordinators", "1", args=args, llm_env=llm_env)
        second = read_json(work / "second" / "run.json")
        assert second["researches"]["by_status"] == {"ok": 2}
        llm = second["llm"]
        # the first date's 9 calls come from the cache; so do the second's that ask what the first asked
        # (inputs that did not change between the two dates give the same prompt)
        assert llm["upstream_calls"] + llm["cache_hits"] == 18
        assert llm["cache_hits"] >= 9
        assert sum(fake.calls_by_role().values()) == llm["upstream_calls"]
        assert "answered from the cache" in result.stderr

    report = read_json(work / "second" / "report.json")
    assert report["options"]["llm"] is True
    assert report["options"]["engine"] == "fake-e2e-model"
    assert report["warnings"]
    assert [r["engine"] for r in records(work / "second")] == ["fake-e2e-model", "fake-e2e-model"]
