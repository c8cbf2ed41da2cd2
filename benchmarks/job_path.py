"""Section 7 (issue 48): the coordinator's job path on PostgreSQL, in process (``services/coordinator/tests/
bench_jobs.py`` against a new database on the local server, dropped after): the job's overhead against the same
research run directly (p50, p95) and the time to the first event of 100 concurrent asynchronous submissions (p50,
p95). Skipped, saying why, when no PostgreSQL answers at ``BENCH_POSTGRES_URL`` (default the local server's
``test`` database, user ``postgres``)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import make_url

from benchmarks.harness import REPO_ROOT

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
BENCH = REPO_ROOT / "services" / "coordinator" / "tests" / "bench_jobs.py"


async def job_path_on_postgres(rounds: int, burst: int, log: Callable[[str], None]) -> dict[str, Any]:
    import asyncpg

    admin = make_url(os.environ.get("BENCH_POSTGRES_URL", ADMIN_URL)).set(drivername="postgresql")
    name = f"bench_jobs_{uuid.uuid4().hex[:10]}"
    try:
        conn = await asyncpg.connect(admin.render_as_string(hide_password=False), timeout=5)
    except Exception as exc:
        log(f"  skipped: no PostgreSQL at {admin.render_as_string()}: {type(exc).__name__}: {exc}")
        return {"skipped": f"no PostgreSQL at {admin.render_as_string()} ({type(exc).__name__})"}
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
        database = admin.set(drivername="postgresql+asyncpg", database=name).render_as_string(hide_password=False)
        arguments = ["--rounds", str(rounds), "--burst", str(burst), "--subscribers", "1", "--seconds", "0.1"]
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(BENCH), *arguments, "--database-url", database, "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd=REPO_ROOT,
        )  # fmt: skip
        output = (await process.communicate())[0].decode()
    finally:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()
    lines = output.splitlines()
    found = [line.removeprefix("JSON ") for line in lines if line.startswith("JSON ")]
    if process.returncode != 0 or not found:
        raise RuntimeError(f"bench_jobs.py failed ({process.returncode}):\n" + "\n".join(lines[-20:]))
    figures: dict[str, Any] = json.loads(found[-1])
    log(
        f"  PostgreSQL job path: overhead p50 {figures['overhead_p50_ms']:+.1f} ms (p95 "
        f"{figures['overhead_p95_ms']:+.1f}), first event at {burst} concurrent p95 "
        f"{figures['first_event_p95_ms']:.0f} ms (p50 {figures['first_event_p50_ms']:.0f})"
    )
    return figures | {"rounds": rounds, "command": f"python {BENCH.relative_to(REPO_ROOT)} {' '.join(arguments)}"}
