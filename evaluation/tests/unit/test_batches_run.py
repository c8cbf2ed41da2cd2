"""The run through batches: one batch per configuration and date, its items' answers read back as records exactly
as one research's answer would be, a refused or broken batch as failed records."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from typing import Any

import httpx

from evaluation.batches import batches_of, run_batches
from evaluation.runner import Job

URL = "http://coordinator.test"
BATCHES = "/api/v1/coordinator/batches"


def jobs() -> list[Job]:
    days = [date(2024, 1, 31), date(2024, 2, 29)]
    return [Job(c, ("technical_analyst",), s, d) for s in ("A.SH", "B.SH", "C.SH") for d in days for c in ("x", "y")]


def research(symbol: str) -> dict[str, Any]:
    verdict = {"action": "BUY", "confidence": 0.6, "position_percent": 5.0, "score": 0.4, "engine": {"kind": "rules"}}
    return {
        "session_id": f"s-{symbol}",
        "symbol": symbol,
        "overall_status": "completed",
        "expert_results": {},
        "debate_outcome": None,
        "verdict": verdict,
        "retry_count": 0,
    }


class Coordinator:
    """Batches end at once; ``C.SH`` is a symbol without data (404 symbol_not_found, as POST /research says)."""

    def __init__(self, refuse: bool = False) -> None:
        self.batches: dict[str, dict[str, Any]] = {}
        self.refuse = refuse

    async def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "POST" and path == BATCHES:
            if self.refuse:
                return httpx.Response(503, json={"code": "queue_full", "status": 503, "title": "", "detail": "full"})
            batch_id = f"b{len(self.batches)}"
            self.batches[batch_id] = json.loads(request.content)
            return httpx.Response(202, json={"batch_id": batch_id}, headers={"Location": f"{BATCHES}/{batch_id}"})
        batch_id = path.split("/")[5]
        if path.endswith("/events"):
            return httpx.Response(200, text="event: batch.progress\ndata: {}\n\nevent: batch.completed\ndata: {}\n\n")
        symbols = self.batches[batch_id]["symbols"]
        offset, limit = int(request.url.params["offset"]), int(request.url.params["limit"])
        items = [self._item(s) for s in symbols[offset : offset + limit]]
        return httpx.Response(200, json={"items": items, "total": len(symbols), "limit": limit, "offset": offset})

    def _item(self, symbol: str) -> dict[str, Any]:
        if symbol == "C.SH":
            problem = {"status": 404, "code": "symbol_not_found", "title": "", "detail": "no data for C.SH"}
            failed = {**research(symbol), "overall_status": "failed", "verdict": None}
            item = {"symbol": symbol, "session_id": "s", "status": "failed", "http_status": 404}
            return {**item, "research": failed, "problem": problem}
        item = {"symbol": symbol, "session_id": "s", "status": "completed", "http_status": 200}
        return {**item, "research": research(symbol)}


def run(coordinator: Coordinator) -> list[Any]:
    async def go() -> list[Any]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(coordinator.handle)) as client:
            return (await run_batches(client, [URL], jobs(), concurrency=2)).records

    return asyncio.run(go())


def test_the_jobs_go_as_one_batch_per_configuration_and_date() -> None:
    groups = batches_of(jobs())
    assert len(groups) == 4
    assert all(len({(j.configuration, j.analysis_date) for j in g}) == 1 for g in groups)
    assert sorted(j.symbol for j in groups[0]) == ["A.SH", "B.SH", "C.SH"]


def test_each_item_becomes_the_record_its_research_answer_would_make() -> None:
    coordinator = Coordinator()
    records = run(coordinator)

    assert len(coordinator.batches) == 4
    assert len(records) == 12
    by_symbol = {(r.configuration, r.symbol, r.analysis_date): r for r in records}
    ok = by_symbol[("x", "A.SH", date(2024, 1, 31))]
    assert (ok.status, ok.action, ok.score, ok.session_id) == ("ok", "BUY", 0.4, "s-A.SH"), ok.reason
    refused = by_symbol[("y", "C.SH", date(2024, 2, 29))]
    assert (refused.status, refused.reason) == ("refused", "symbol_not_found: no data for C.SH")
    assert [(r.configuration, r.symbol, r.analysis_date) for r in records] == sorted(by_symbol)


def test_a_refused_batch_makes_a_failed_record_of_each_of_its_researches() -> None:
    records = run(Coordinator(refuse=True))

    assert len(records) == 12
    assert {r.status for r in records} == {"failed"}
    assert all("batch refused: HTTP 503" in (r.reason or "") for r in records)
