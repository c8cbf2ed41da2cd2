"""Where watchlists, their schedules and the slots those fired are kept."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from coordinator.domain.model.batch import Batch
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.model.watchlist import Schedule, ScheduleRun, Watchlist


class IWatchlistStore(ABC):
    @abstractmethod
    async def create(self, watchlist: Watchlist) -> None:
        """Raises ``WatchlistNameTakenError`` when the client has a watchlist of that name."""

    @abstractmethod
    async def get(self, watchlist_id: str) -> Watchlist | None: ...

    @abstractmethod
    async def find(self, client_id: str, name: str) -> Watchlist | None:
        """The client's watchlist of that name."""

    @abstractmethod
    async def page(self, client_id: str | None, *, offset: int, limit: int) -> tuple[list[Watchlist], int]:
        """Watchlists by name (``client_id``'s only, unless None), and how many there are in all."""

    @abstractmethod
    async def update(self, watchlist: Watchlist) -> None:
        """Raises ``WatchlistNameTakenError`` when the client has another watchlist of that name."""

    @abstractmethod
    async def delete(self, watchlist_id: str) -> None:
        """Deletes the watchlist and its schedules (its batches stay)."""

    @abstractmethod
    async def add_schedule(self, schedule: Schedule) -> None: ...

    @abstractmethod
    async def schedule(self, schedule_id: str) -> Schedule | None: ...

    @abstractmethod
    async def schedules(self, watchlist_id: str | None = None) -> list[Schedule]:
        """The watchlist's schedules, oldest first (every schedule when None)."""

    @abstractmethod
    async def delete_schedule(self, schedule_id: str) -> None: ...

    @abstractmethod
    async def runs(self, schedule_id: str, limit: int) -> list[tuple[ScheduleRun, str | None]]:
        """The schedule's latest runs, newest first, each with its batch's status (None without a batch)."""

    @abstractmethod
    async def fire(self, run: ScheduleRun, batch: Batch | None, sessions: Sequence[ResearchSession]) -> bool:
        """Records that ``run.slot`` of ``run.schedule_id`` fired and stores its batch and items, in one
        transaction; False (nothing stored) when that slot has fired already (here or in another coordinator)."""

    @abstractmethod
    async def fired(self, schedule_id: str, slot: datetime) -> bool:
        """Whether that slot has fired."""
