"""The command line: options and defaults, the command report.json records, LLM mode, the services' config."""

from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path

import pytest

from evaluation.cli import llm_mode
from evaluation.options import ALL_EXPERTS, reported_command, settings_from
from evaluation.outputs import write_records
from evaluation.records import ResearchRecord
from evaluation.stack import DROPPED, dotenv, service_config, service_env
from service_kit.stack.launcher import base_env, process_cpu_seconds


def test_defaults() -> None:
    settings = settings_from([])
    assert settings.symbols is None
    assert (settings.start, settings.end, settings.split_date) == (None, None, None)
    assert (settings.grid, settings.concurrency, settings.allow_short) == ("month-end", None, False)
    assert settings.experts == ALL_EXPERTS
    assert len(ALL_EXPERTS) == 5
    assert settings.configurations == {"policy": ALL_EXPERTS, "technical_only": ("technical_analyst",)}
    assert settings.out.parent == Path("eval-results")
    assert (settings.coordinator_urls, settings.research_url, settings.coordinators) == (None, None, 2)
    assert not settings.budget.limited


def test_options() -> None:
    settings = settings_from(
        [
            *("--symbols", "600519.SH, 601318.SH,600519.SH", "--start", "2024-01-01", "--end", "2024-12-31"),
            *("--grid", "week-end", "--experts", "technical_analyst,macro_intelligence", "--concurrency", "3"),
            *("--split-date", "2024-09-30", "--allow-short", "--no-baseline-run", "--out", "/tmp/x"),
            *("--max-llm-calls", "900", "--max-llm-tokens", "2000000"),
        ]
    )
    assert settings.symbols == ("600519.SH", "601318.SH")
    assert (settings.start, settings.end, settings.split_date) == (
        date(2024, 1, 1),
        date(2024, 12, 31),
        date(2024, 9, 30),
    )
    assert settings.configurations == {"policy": ("technical_analyst", "macro_intelligence")}
    assert (settings.grid, settings.concurrency, settings.allow_short, settings.out) == (
        "week-end",
        3,
        True,
        Path("/tmp/x"),
    )
    assert (settings.budget.max_calls, settings.budget.max_tokens) == (900, 2_000_000)


def test_a_running_stack_is_used_when_either_url_is_given() -> None:
    settings = settings_from(["--coordinator-url", "http://10.0.0.5:8000/"])
    assert (settings.coordinator_urls, settings.research_url) == (("http://10.0.0.5:8000",), "http://127.0.0.1:8001")
    settings = settings_from(["--research-url", "http://r:8001", "--coordinator-url", "http://a:8000,http://b:8000"])
    assert settings.coordinator_urls == ("http://a:8000", "http://b:8000")


@pytest.mark.parametrize(
    "argv",
    [
        ["--experts", "technical_analyst,astrologer"],
        ["--start", "2024-13-01"],
        ["--start", "2024-06-01", "--end", "2024-01-01"],
        ["--concurrency", "0"],
        ["--grid", "daily"],
        ["--coordinator-url", "http://x:8000", "--max-llm-calls", "10"],
    ],
)
def test_mistakes_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        settings_from(argv)
    assert exit_info.value.code == 2
    assert "research-eval: error:" in capsys.readouterr().err


def test_the_reported_command_leaves_out_what_does_not_change_the_evaluation() -> None:
    argv = [
        "--symbols",
        "A,B",
        "--out",
        "/tmp/run 1",
        "--concurrency=32",
        "--research-url",
        "http://r",
        "--allow-short",
    ]
    assert reported_command(argv) == "research-eval --symbols A,B --allow-short"
    assert settings_from(["--out=/tmp/a", "--grid", "week-end"]).command == "research-eval --grid week-end"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, False),
        ({"ANALYSIS_ENGINE": "rules", "LLM_BASE_URL": "http://llm"}, False),
        ({"ANALYSIS_ENGINE": "llm"}, True),
        ({"LLM_BASE_URL": "http://llm/v1"}, True),
        ({"ANALYSIS_ENGINE": "auto", "LLM_API_KEY": "sk"}, True),
    ],
)
def test_llm_mode(config: dict[str, str], expected: bool) -> None:
    assert llm_mode(config) is expected


def test_the_services_get_the_pass_through_variables_from_the_environment_over_dotenv(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# local\nexport LLM_MODEL='from-dotenv'\nLLM_API_KEY=\"sk-dotenv\"\n"
        "DATABASE_URL=ignored\n\nREPORT_LANGUAGE=zh\n"
    )
    assert dotenv(env_file) == {
        "LLM_MODEL": "from-dotenv",
        "LLM_API_KEY": "sk-dotenv",
        "DATABASE_URL": "ignored",
        "REPORT_LANGUAGE": "zh",
    }
    environ = {"REPORT_LANGUAGE": "en", "SNAPSHOT_DIR": "snap", "PATH": "/bin", "ANALYSIS_ENGINE": "rules"}
    config = service_config(environ, env_file)
    assert config == {
        "LLM_MODEL": "from-dotenv",
        "LLM_API_KEY": "sk-dotenv",
        "REPORT_LANGUAGE": "en",
        "SNAPSHOT_DIR": str(Path("snap").resolve()),
        "ANALYSIS_ENGINE": "rules",
    }


def test_the_services_environment_drops_what_would_configure_them_another_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_BASE_URL", "http://real-llm")
    monkeypatch.setenv("MARKET_DATA_PROVIDER", "akshare")
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://prod")
    monkeypatch.setenv("LOG_LEVEL", "DEBUG")
    env = base_env(drop=DROPPED, **service_env({"LLM_BASE_URL": "http://127.0.0.1:9999", "ANALYSIS_ENGINE": "llm"}))
    assert env["LLM_BASE_URL"] == "http://127.0.0.1:9999"
    assert env["ANALYSIS_ENGINE"] == "llm"
    assert env["LOG_LEVEL"] == "WARNING"
    assert "MARKET_DATA_PROVIDER" not in env
    assert "DATABASE_URL" not in env


def test_records_are_written_one_json_object_a_line(tmp_path: Path) -> None:
    records = [
        ResearchRecord(
            "policy", "A", date(2024, 1, 31), "ok", as_of=date(2024, 1, 31), action="BUY", failed_experts=("x",)
        ),
        ResearchRecord("technical_only", "A", date(2024, 1, 31), "refused", reason="before the first bar"),
    ]
    path = write_records(records, tmp_path / "records.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["analysis_date"] == "2024-01-31"
    assert lines[0]["failed_experts"] == ["x"]
    assert (lines[1]["status"], lines[1]["as_of"]) == ("refused", None)


def test_the_cpu_time_of_a_process_is_read_from_proc() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("/proc is Linux's")
    sum(i * i for i in range(200_000))
    seconds = process_cpu_seconds(os.getpid())
    assert seconds is not None
    assert seconds > 0
    assert process_cpu_seconds(2**22 + 12345) is None
