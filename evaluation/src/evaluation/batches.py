"""The run through batches: the researches of one configuration and one grid date go to the coordinator as one
batch (``POST /api/v1/coordinator/batches``, at most ``MAX_BATCH_SYMBOLS`` symbols each), followed on its event
stream to its end, and read back page by page (``…/results``): each item is the research ``POST …/research`` would
have answered, so it becomes a record exactly as one research's answer does (``record_from_response``).

Batches are spread over the coordinators and run ``concurrency`` at a time. A batch that cannot be submitted or
followed makes a ``failed`` record of each of its researches, with the reason.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Sequence
from typing import Any

import httpx

from evaluation.records import ResearchRecord
from evaluation.runner import Job, Progress, RunOutcome, record_from_response, record_key
from shared_contracts.batches import BATCH_TERMINAL_EVENTS, MAX_BATCH_SYMBOLS

BATCHES_PATH = "/api/v1/coordinator/batches"
RESULTS_PAGE = 200


def batches_of(jobs: Sequence[Job]) -> list[list[Job]]:
    """The jobs grouped by configuration and date (in their order), each group cut to ``MAX_BATCH_SYMBOLS``."""
    groups: dict[tuple[str, tuple[str, ...], Any], list[Job]] = {}
    for job in jobs:
        groups.setdefault((job.configuration, job.experts, job.analysis_date), []).append(job)
    return [
        group[i : i + MAX_BATCH_SYMBOLS] for group in groups.values() for i in range(0, len(group), MAX_BATCH_SYMBOLS)
    ]


async def run_batch(client: httpx.AsyncClient, coordinator_url: str, jobs: Sequence[Job]) -> list[ResearchRecord]:
    """One batch's records, one per job."""
    first = jobs[0]
    body = {
        "symbols": [j.symbol for j in jobs],
        "experts": list(first.experts),
        "analysis_date": first.analysis_date.isoformat(),
    }
    try:
        submitted = await client.post(coordinator_url + BATCHES_PATH, json=body)
        if submitted.status_code != 202:
            return _failed_all(jobs, f"batch refused: HTTP {submitted.status_code} {submitted.text[:300]}")
        batch_id = submitted.json()["batch_id"]
        await _until_ended(client, f"{coordinator_url}{BATCHES_PATH}/{batch_id}")
        items = await _results(client, f"{coordinator_url}{BATCHES_PATH}/{batch_id}/results")
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        return _failed_all(jobs, f"batch failed: {type(exc).__name__}: {exc}")
    by_symbol = {item.get("symbol"): item for item in items}
    records = []
    for job in jobs:
        item = by_symbol.get(job.symbol) or {}
        status = item.get("http_status")
        if not isinstance(status, int):
            records.append(_failed(job, f"the batch's item ended {item.get('status', 'missing')}"))
            continue
        answer = {**(item.get("problem") or {}), **(item.get("research") or {})}
        records.append(record_from_response(job, status, answer))
    return records


async def _until_ended(client: httpx.AsyncClient, batch_url: str) -> None:
    """Reads the batch's event stream until its terminal event."""
    async with client.stream("GET", batch_url + "/events") as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line.startswith("event:") and line.split(":", 1)[1].strip() in BATCH_TERMINAL_EVENTS:
                return
    raise httpx.RemoteProtocolError("the batch's event stream ended before its terminal event")


async def _results(client: httpx.AsyncClient, results_url: str) -> list[dict[str, Any]]:
    """Every item of ``BatchResults``, as JSON: read as leniently as one research's answer is."""
    items: list[dict[str, Any]] = []
    for offset in itertools.count(0, RESULTS_PAGE):
        response = await client.get(results_url, params={"offset": offset, "limit": RESULTS_PAGE})
        response.raise_for_status()
        page = response.json()
        items += [i for i in page["items"] if isinstance(i, dict)]
        if offset + RESULTS_PAGE >= int(page["total"]):
            return items
    raise AssertionError("unreachable")


def _failed(job: Job, reason: str) -> ResearchRecord:
    return ResearchRecord(job.configuration, job.symbol, job.analysis_date, "failed", reason=reason)


def _failed_all(jobs: Sequence[Job], reason: str) -> list[ResearchRecord]:
    return [_failed(job, reason) for job in jobs]


async def run_batches(
    client: httpx.AsyncClient,
    coordinator_urls: Sequence[str],
    jobs: Sequence[Job],
    *,
    concurrency: int,
    progress: Progress | None = None,
) -> RunOutcome:
    """Every job through batches, ``concurrency`` batches at once, batch i sent to coordinator i modulo their
    number."""
    started = time.monotonic()
    pending = iter(enumerate(batches_of(jobs)))
    records: list[ResearchRecord] = []

    async def worker() -> None:
        for index, batch in pending:
            done = await run_batch(client, coordinator_urls[index % len(coordinator_urls)], batch)
            records.extend(done)
            if progress is not None:
                progress.advance(len(done))

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    records.sort(key=record_key)
    return RunOutcome(records=records, sent=len(records), seconds=time.monotonic() - started)
