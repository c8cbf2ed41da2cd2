"""Which coordinator processes are alive, so that one starting (or sweeping) marks ``interrupted`` only the
sessions of a coordinator that is gone, never those another replica is still running.

Each coordinator registers itself in ``coordinator_instances`` at start and renews ``heartbeat_at`` every
``lease / 3`` seconds. An instance is gone when:

- it ran in this process namespace (same boot and same PID namespace, so its pid means the same here) and
  its process no longer exists: its pid is free, or taken by a process that started at another time. This
  is known at once, so a coordinator restarted after a crash interrupts the dead one's sessions
  immediately;
- it ran elsewhere (another node, another container) and its heartbeat is older than the lease. The
  machines' clocks must agree to well within the lease (30 s by default; NTP keeps them to milliseconds);
- its row is missing (it shut down, or was swept): sessions it still shows as running are orphans.

Sessions recorded before instances were (``owner`` NULL) are treated as orphans, as before.

After this coordinator could not reach the store, it judges no one by heartbeat until it has reached the
store again for a whole lease: an outage stops every replica's renewals, so right after one every other
heartbeat looks stale while its coordinator is alive and running sessions. Each renewal also writes the
final statuses of sessions whose finishing write the store refused (they would stay ``running``); while the store
is down or such a status waits, renewals come every ``RECOVERY_CHECK_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import structlog
from sqlalchemy import ColumnElement, Connection, delete, insert, or_, select, update

from coordinator.domain.model.session import utcnow
from coordinator.infrastructure.persistence.session_repository import INSTANCES, SqlAlchemySessionRepository
from coordinator.infrastructure.persistence.session_rows import SESSIONS
from coordinator.infrastructure.persistence.tables import CoordinatorInstanceRow
from coordinator.infrastructure.persistence.write_transactions import SqlAlchemyStore

log = structlog.get_logger(__name__)

DEFAULT_LEASE_SECONDS = 30.0
RECOVERY_CHECK_SECONDS = 2.0


def _read(path: str) -> str | None:
    try:
        return Path(path).read_bytes().decode("utf-8", "replace").strip()
    except OSError:
        return None


def process_started(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, /proc), or None: no such process, or no /proc."""
    try:  # no such process (or no /proc): nothing to split
        return int((_read(f"/proc/{pid}/stat") or "").rsplit(")", 1)[1].split()[19])
    except (IndexError, ValueError):
        return None


def _pid_namespace() -> str | None:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


@dataclass(frozen=True)
class InstanceIdentity:
    instance_id: str
    hostname: str
    """For people reading the table; liveness does not use it (containers may share a hostname)."""
    boot_id: str | None
    pid_namespace: str | None
    pid: int
    process_started: int | None

    @classmethod
    def of_this_process(cls) -> InstanceIdentity:
        pid, boot_id = os.getpid(), _read("/proc/sys/kernel/random/boot_id")
        return cls(str(uuid.uuid4()), socket.gethostname(), boot_id, _pid_namespace(), pid, process_started(pid))

    def shares_pids_with(self, other: InstanceIdentity) -> bool:
        """Whether ``other.pid`` names the same process here (same boot, same PID namespace)."""
        return (
            self.boot_id is not None
            and self.pid_namespace is not None
            and (self.boot_id, self.pid_namespace) == (other.boot_id, other.pid_namespace)
            and self.process_started is not None
            and other.process_started is not None
        )


@dataclass(frozen=True)
class InstanceRecord:
    identity: InstanceIdentity
    heartbeat_at: datetime


def is_alive(record: InstanceRecord, *, here: InstanceIdentity, lease: timedelta, now: datetime) -> bool:
    other = record.identity
    if here.shares_pids_with(other):
        return process_started(other.pid) == other.process_started
    return now - record.heartbeat_at < lease


class SqlAlchemyInstanceStore(SqlAlchemyStore):
    """The ``coordinator_instances`` rows, and the sessions they own."""

    async def register_instance(self, identity: InstanceIdentity) -> None:
        now = utcnow()
        values = {**dataclasses.asdict(identity), "started_at": now, "heartbeat_at": now}
        await self._write(lambda conn: conn.execute(insert(INSTANCES), values))

    async def renew_instance(self, instance_id: str) -> bool:
        """False when the row is gone (another replica swept it)."""

        def statements(conn: Connection) -> bool:
            renewed = update(INSTANCES).where(INSTANCES.c.instance_id == instance_id).values(heartbeat_at=utcnow())
            return bool(conn.execute(renewed).rowcount)

        return await self._write(statements)

    async def instances(self) -> Sequence[InstanceRecord]:
        async with self._transaction() as db:
            rows = (await db.scalars(select(CoordinatorInstanceRow))).all()
        names = [field.name for field in dataclasses.fields(InstanceIdentity)]
        return [InstanceRecord(InstanceIdentity(*(getattr(r, n) for n in names)), r.heartbeat_at) for r in rows]

    async def interrupt_orphaned_sessions(self, gone: Sequence[str]) -> int:
        """Forget the instances in ``gone``; every ``running`` session whose owner is not a registered instance
        (gone, shut down, or never recorded) becomes ``interrupted``. Returns how many."""
        now = utcnow()
        orphaned = or_(SESSIONS.c.owner.is_(None), SESSIONS.c.owner.not_in(select(INSTANCES.c.instance_id)))

        def statements(conn: Connection) -> int:
            if gone:
                conn.execute(delete(INSTANCES).where(INSTANCES.c.instance_id.in_(gone)))
            return _interrupt(conn, orphaned, now)

        return await self._write(statements)

    async def release_instance(self, instance_id: str) -> int:
        """At shutdown: this instance's sessions still ``running`` become ``interrupted``, and its row goes."""
        now = utcnow()

        def statements(conn: Connection) -> int:
            interrupted = _interrupt(conn, SESSIONS.c.owner == instance_id, now)
            conn.execute(delete(INSTANCES).where(INSTANCES.c.instance_id == instance_id))
            return interrupted

        return await self._write(statements)


def _interrupt(conn: Connection, owned: ColumnElement[bool], now: datetime) -> int:
    """The ``running`` sessions matching ``owned`` that can be resumed (``resumable``: checkpointed) are queued again
    (a coordinator claims and resumes them); the others become ``interrupted``. Returns how many were interrupted."""
    conn.execute(
        update(SESSIONS)
        .where(SESSIONS.c.status == "running", SESSIONS.c.resumable.is_(True), owned)
        .values(status="queued", owner=None, updated_at=now)
    )
    result = conn.execute(
        update(SESSIONS)
        .where(SESSIONS.c.status == "running", owned)
        .values(status="interrupted", completed_at=now, updated_at=now)
    )
    return int(result.rowcount or 0)


class InstanceLease:
    """This coordinator's row in ``coordinator_instances``: registered, renewed, and released. Each renewal also
    writes the final statuses ``sessions`` could not write (the store was down)."""

    def __init__(
        self,
        store: SqlAlchemyInstanceStore,
        sessions: SqlAlchemySessionRepository,
        lease_seconds: float,
        identity: InstanceIdentity | None = None,
    ) -> None:
        self.identity = identity or InstanceIdentity.of_this_process()
        self._store = store
        self._sessions = sessions
        self._lease = timedelta(seconds=lease_seconds)
        self._task: asyncio.Task[None] | None = None
        # Since when the store has answered this coordinator without a break (None: it did not, last time).
        self._store_reached_since: datetime | None = utcnow() - self._lease

    @property
    def instance_id(self) -> str:
        return self.identity.instance_id

    async def start(self) -> int:
        """Register, interrupt the sessions of coordinators that are gone, and renew in the background.
        Returns how many sessions were interrupted."""
        await self._store.register_instance(self.identity)
        interrupted = await self.sweep()
        self._task = asyncio.create_task(self._renew_forever(), name="coordinator-instance-lease")
        return interrupted

    async def sweep(self) -> int:
        """Interrupt the running sessions of every coordinator that is gone; returns how many."""
        now = utcnow()
        trust_heartbeats = self._store_reached_since is not None and now - self._store_reached_since >= self._lease
        gone = [
            r.identity.instance_id
            for r in await self._store.instances()
            if r.identity.instance_id != self.instance_id
            and (trust_heartbeats or self.identity.shares_pids_with(r.identity))
            and not is_alive(r, here=self.identity, lease=self._lease, now=now)
        ]
        return await self._store.interrupt_orphaned_sessions(gone)

    async def renew(self) -> None:
        """One round: renew this coordinator's row, write what the store refused, sweep."""
        try:
            if not await self._store.renew_instance(self.instance_id):
                # Swept by another replica (this process stalled longer than the lease): back in.
                await self._store.register_instance(self.identity)
        except Exception:
            self._store_reached_since = None
            raise
        if self._store_reached_since is None:
            self._store_reached_since = utcnow()
        written = await self._sessions.write_unwritten_finishes()
        if written:
            log.info("unwritten_session_statuses_written", count=written)
        interrupted = await self.sweep()
        if interrupted:
            log.warning("orphaned_sessions_interrupted", count=interrupted)

    async def _renew_forever(self) -> None:
        interval = self._lease.total_seconds() / 3
        while True:
            # Sooner while the store is down or holds back a final status: a session is finished soon after the
            # store takes writes again.
            behind = self._store_reached_since is None or self._sessions.holds_unwritten_finishes
            await asyncio.sleep(min(interval, RECOVERY_CHECK_SECONDS) if behind else interval)
            try:
                await self.renew()
            except Exception as exc:  # the store may be briefly unreachable; the next round retries
                log.warning("instance_lease_renewal_failed", error=str(exc) or type(exc).__name__)

    async def stop(self) -> int:
        """Stop renewing; this coordinator's sessions still running become ``interrupted`` and its row
        is removed. Returns how many sessions were interrupted."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        return await self._store.release_instance(self.instance_id)
