"""The look-ahead canary: a snapshot whose future (every row not public on day D) is replaced by absurd
values must give byte-identical expert results, debate and verdict at D — all five experts, several
symbols and dates, in the research service and through the whole stack. Any figure read from the future
changes an output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import ALL_EXPERTS, RESEARCH
from lookahead_canary import distorted_snapshot

from research.container import build_container
from research.infrastructure.data.snapshot_provider import DEFAULT_SNAPSHOT_DIR, OfflineSnapshotProvider
from research.settings import Settings
from service_kit.stack.launcher import Stack, running_stack
from shared_contracts.errors import ServiceError

DATES = [date(2021, 6, 30), date(2024, 4, 29), date(2024, 4, 30), date(2025, 1, 15), date(2025, 6, 30)]
"""Mid-history, the day before and the day A-share FY2023 reports are public, a CPI release day, a late date."""
SYMBOLS = ["600519.SH", "601318.SH", "000001.SZ", "300750.SZ", "600036.SH", "000021.SZ", "AAPL"]
"""Financials + valuation, an insurer, a bank without valuation, ChiNext, a bank with valuation, bars only, US."""
STACK_DATE = date(2024, 6, 28)
STACK_SYMBOLS = ["600519.SH", "601318.SH", "000021.SZ"]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


async def _outputs(snapshot: Path, on: date) -> dict[str, str]:
    settings = Settings(_env_file=None, analysis_engine="rules")  # type: ignore[call-arg]
    container = build_container(settings, provider=OfflineSnapshotProvider(snapshot), today=lambda: date(2026, 11, 25))
    out: dict[str, str] = {}
    for symbol in SYMBOLS:
        for expert in ALL_EXPERTS:
            try:
                out[f"{symbol} {expert}"] = _canonical(await container.experts.run(expert, symbol, None, on))
            except ServiceError as exc:
                out[f"{symbol} {expert}"] = f"{exc.code}: {exc} {getattr(exc, 'problem_extra', None)}"
    return out


@pytest.mark.parametrize("on", DATES, ids=str)
async def test_the_future_distorted_changes_no_expert_result(on: date, tmp_path: Path) -> None:
    distorted = tmp_path / "distorted"
    changed = distorted_snapshot(DEFAULT_SNAPSHOT_DIR, distorted, on)
    assert all(changed[kind] > 0 for kind in ("bars", "financials", "valuation", "macro")), changed
    original, canary = await _outputs(DEFAULT_SNAPSHOT_DIR, on), await _outputs(distorted, on)
    different = [key for key in original if original[key] != canary[key]]
    assert not different, f"results at {on} read data published later: {different}"
    worked = [key for key, text in original.items() if text.startswith("{")]
    assert len(worked) >= len(original) // 2, "too few experts produced a result for the canary to mean much"


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Stack]]:
    workdir = tmp_path_factory.mktemp("canary")
    distorted = workdir / "snapshot"
    distorted_snapshot(DEFAULT_SNAPSHOT_DIR, distorted, STACK_DATE)
    env = {"LOG_LEVEL": "WARNING", "ANALYSIS_ENGINE": "rules"}
    (workdir / "original").mkdir()
    (workdir / "distorted").mkdir()
    with (
        running_stack(workdir / "original", common_env=env) as original,
        running_stack(workdir / "distorted", common_env={**env, "SNAPSHOT_DIR": str(distorted)}) as canary,
    ):
        yield original, canary


def _research(stack: Stack, symbol: str) -> dict[str, Any]:
    body = {"symbol": symbol, "experts": ALL_EXPERTS, "analysis_date": STACK_DATE.isoformat()}
    with httpx.Client(base_url=stack["coordinator"].url, timeout=60) as client:
        response = client.post(RESEARCH, json=body)
    assert response.status_code == 200, response.text[:2000]
    reply: dict[str, Any] = response.json()
    return reply


@pytest.mark.e2e
@pytest.mark.parametrize("symbol", STACK_SYMBOLS)
def test_the_future_distorted_changes_nothing_through_the_coordinator(symbol: str, stacks: tuple[Stack, Stack]) -> None:
    original, canary = (_research(stack, symbol) for stack in stacks)
    assert original["analysis_date"] == STACK_DATE.isoformat()
    for part in ("expert_results", "debate_outcome", "verdict"):
        assert _canonical(original[part]) == _canonical(canary[part]), f"{symbol} {part} differs"
    assert original["verdict"] is not None
    for name, envelope in original["expert_results"].items():
        if envelope["status"] == "success":
            assert envelope["data"]["as_of"] <= STACK_DATE.isoformat(), name
