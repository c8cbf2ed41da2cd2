"""The benchmarks (``make bench``, benchmarks/) in their smallest configuration: they still run end to end
and write a well-formed report. Targets are not checked here: a benchmark measures, it does not gate CI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def commit_in_clone(ref: str) -> bool:
    found = subprocess.run(["git", "cat-file", "-e", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True, check=False)
    return found.returncode == 0


def run_module(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done


@pytest.mark.e2e
def test_bench_smoke_writes_json_markdown_and_png(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    done = run_module("benchmarks", "--smoke", "--out", str(out), "--no-docs", timeout=300)

    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["config"] == "smoke"
    assert "error" not in report["meta"]
    assert report["meta"]["machine"]["nproc"] >= 1
    [critical] = report["critical_path"]["per_latency"]
    assert critical["runs"] == 2
    assert critical["wall_p50_ms"] > 0
    assert critical["sequential_p50_ms"] > 0
    assert {lv["concurrency"] for lv in report["concurrency"]["levels"]} == {1, 4}
    assert all(lv["peak_rss_mb"]["coordinator"] for lv in report["concurrency"]["levels"])
    assert report["rules"]["single"]["p50_ms"] > 0
    assert report["rules"]["saturation_rps"] > 0
    floor = report["floor"]
    assert {lv["concurrency"] for lv in floor["levels"]} == {1, 4}
    assert all(lv["errors"] == 0 for lv in floor["levels"]), floor["levels"]
    assert floor["single_runs"] == 2  # every one-at-a-time run made the nine LLM calls of a research
    assert floor["single_overhead_p50_ms"] > 0  # it waited for its four LLM stages, as the product does
    assert set(floor["hops_p50_ms"]) == set(critical["hops_p50_ms"])
    # section 1 ran beside the floor: each of its runs was followed by one of the floor's, and ours is per pair
    assert floor["paired_with_section_1"] is True
    assert all("floor" in run and "ours_ms" in run for run in critical["samples"])
    assert critical["paired_floor"]["runs"] == 2
    assert set(floor["ours_hops_p50_ms"]) == set(critical["hops_p50_ms"])
    assert floor["levels"][0]["cpu_ms_per_research"]["research"] > 0
    assert report["economy"]["full_research"]["llm_calls"] > 0
    assert report["economy"]["projection"]["raw_bytes"] > report["economy"]["projection"]["projected_bytes"] > 0
    assert len(report["economy"]["retries"]) == 2
    baseline = report["profile"]["baseline"]
    if commit_in_clone(baseline["ref"]):
        for variant in ("before", "after"):
            assert report["profile"]["rules"]["variants"][variant]["throughput_rps"] > 0
    else:  # a shallow clone: the comparison says why it did not run
        assert "not in this clone" in baseline["unavailable"]

    markdown = (out / "report.md").read_text(encoding="utf-8")
    for heading in (
        "## 1. Critical-path",
        "## 2. Concurrency",
        "## 3. Rules mode",
        "## 4. LLM economy",
        "## 5. Profile",
        "## 6. The floor",
    ):
        assert heading in markdown
    assert "| target | measured | met | floor, same run (section 6) |" in markdown
    assert "ours, the product's overhead minus the floor's run by run" in markdown
    assert markdown in done.stdout  # the table is printed too

    png = (out / "report.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(png) > 10_000


@pytest.mark.e2e
def test_micro_clients_measures_every_client_it_names() -> None:
    done = run_module("benchmarks.micro_clients", "--calls", "20", timeout=120)
    rows = [line for line in done.stdout.splitlines() if "ms CPU per call" in line]
    assert len(rows) == 20  # 10 clients, each sequential and with 10 in flight
    assert any("httpx-aiohttp" in row for row in rows)
    assert any("post(cast_to=ChatCompletion), aiohttp" in row for row in rows)
    assert any("post(cast_to=bytes) + ChatReply, aiohttp" in row for row in rows)
    assert any("the same POST with aiohttp alone" in row for row in rows)


@pytest.mark.e2e
def test_bench_deployed_logging_runs_services_as_the_image_does(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    run_module(
        "benchmarks",
        "--smoke",
        "--sections",
        "rules",
        "--service-logging",
        "deployed",
        "--out",
        str(out),
        timeout=120,
    )

    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["service_logging"] == "LOG_LEVEL=INFO, access log on"
    assert report["rules"]["single"]["p50_ms"] > 0
    assert "the services' logging: LOG_LEVEL=INFO, access log on" in (out / "report.md").read_text(encoding="utf-8")
    research_log = (out / "work" / "rules" / "research.log").read_text(encoding="utf-8")
    assert '"logger": "uvicorn.access"' in research_log
    assert '"event": "expert_done"' in research_log


@pytest.mark.e2e
def test_bench_floor_alone_measures_its_own_one_at_a_time_runs(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    run_module("benchmarks", "--smoke", "--sections", "floor", "--out", str(out), "--no-docs", timeout=120)

    floor = json.loads((out / "report.json").read_text(encoding="utf-8"))["floor"]
    assert floor["paired_with_section_1"] is False
    assert floor["single_runs"] == 2
    assert floor["single_overhead_p50_ms"] > 0
    assert "ours_p50_ms" not in floor
    assert "One research at a time (2 runs): floor overhead" in (out / "report.md").read_text(encoding="utf-8")
