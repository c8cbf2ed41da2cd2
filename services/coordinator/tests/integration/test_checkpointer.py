"""The SQLite checkpointer (LangGraph's ``SqliteSaver`` on a thread of its own): what it writes is read back after
reopening the file, the calls queued together commit in one group, a failing write loses only itself (logged), and a
failing read fails its caller."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from structlog.testing import capture_logs

from coordinator.infrastructure.orchestration.checkpointer import (
    SqliteSaverOnThread,
    checkpoint_file,
    open_checkpointer,
)
from coordinator.infrastructure.persistence.engine import normalize_database_url


def _config(thread_id: str, checkpoint_id: str | None = None) -> Any:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    return {"configurable": configurable | ({"checkpoint_id": checkpoint_id} if checkpoint_id else {})}


async def test_what_it_writes_is_read_back_after_reopening(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'coordinator.db'}"
    checkpoint = empty_checkpoint()
    async with open_checkpointer(url) as saver:
        assert isinstance(saver, SqliteSaverOnThread)
        saved = await saver.aput(_config("s1"), checkpoint, {"step": 1}, {})
        await saver.aput_writes(saved, [("experts", {"fundamental": 1})], task_id="t1")
    assert checkpoint_file(normalize_database_url(url)).exists()
    async with open_checkpointer(url) as saver:
        found = await saver.aget_tuple(_config("s1"))
        assert found is not None
        assert found.checkpoint["id"] == checkpoint["id"]
        assert [(w[1], w[2]) for w in found.pending_writes or []] == [("experts", {"fundamental": 1})]
        await saver.adelete_thread("s1")
        assert await saver.aget_tuple(_config("s1")) is None


async def test_writes_commit_in_a_group_and_a_failing_one_loses_only_itself(tmp_path: Path) -> None:
    saver = await SqliteSaverOnThread.open(tmp_path / "checkpoints.db")
    hold = threading.Event()
    try:
        saved = await saver.aput(_config("s1"), empty_checkpoint(), {"step": 1}, {})
        assert await saver.aget_tuple(saved) is not None  # committed
        saver._thread.submit(hold.wait)  # the thread is busy: the next calls queue up and commit as one group
        with capture_logs() as logs:
            # A task's writes are handed to the thread: the call returns before they are committed.
            await saver.aput_writes(saved, [("experts", {"a": 1})], task_id="t1")
            await saver.aput_writes(_config("s1"), [("experts", {"b": 2})], task_id="t2")  # no checkpoint_id: fails
            await saver.aput_writes(saved, [("experts", {"c": 3})], task_id="t3")
            assert len(saver._queued) == 3
            hold.set()
            found = await saver.aget_tuple(_config("s1"))  # a read comes after the writes asked for before it
        assert found is not None
        assert sorted(w[0] for w in found.pending_writes or []) == ["t1", "t3"]
        assert [e["event"] for e in logs if e["log_level"] == "warning"] == ["checkpoint_not_written"]
    finally:
        hold.set()
        await saver.close()


async def test_a_failing_read_fails_its_caller(tmp_path: Path) -> None:
    saver = await SqliteSaverOnThread.open(tmp_path / "checkpoints.db")
    try:
        with pytest.raises(KeyError):  # no thread_id in its config
            await saver.aget_tuple({"configurable": {}})
        assert await saver.aget_tuple(_config("s1")) is None  # the thread serves the next call
    finally:
        await saver.close()


@pytest.mark.postgres
def test_coordinators_starting_together_on_a_new_postgresql_database_all_open_it() -> None:
    import asyncio
    from contextlib import AsyncExitStack

    from coordinator_persistence_fakes import local_postgres_database

    from coordinator.infrastructure.orchestration.checkpointer import open_checkpointer

    async def open_three(url: str) -> int:
        async with AsyncExitStack() as stack:
            savers = await asyncio.gather(*(stack.enter_async_context(open_checkpointer(url)) for _ in range(3)))
            return len(savers)

    with local_postgres_database() as url:
        assert asyncio.run(open_three(url)) == 3
