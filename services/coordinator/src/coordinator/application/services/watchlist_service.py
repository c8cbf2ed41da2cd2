"""The watchlist use cases: keep a client's named lists of symbols (each symbol one the research universe has),
run one now (a batch, as of the last trading day the data has unless a day is given), and schedule its runs
(``ScheduleService``). Private per client, as sessions and batches are (an ``admin`` sees every client's)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import date

from coordinator.application.services.batch_service import (
    BatchCommand,
    BatchService,
    BatchState,
    normalized_symbols,
)
from coordinator.domain.exceptions import (
    InvalidScheduleError,
    InvalidWatchlistError,
    UnknownSymbolsError,
    WatchlistNotFoundError,
)
from coordinator.domain.model.session import utcnow
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.model.watchlist import DEFAULT_CALENDAR, MAX_WATCHLIST_NAME, Watchlist
from coordinator.domain.ports.channel_store import IChannelStore
from coordinator.domain.ports.market_reference_gateway import IMarketReferenceGateway
from coordinator.domain.ports.schedule_calendar import IScheduleCalendar
from coordinator.domain.ports.watchlist_store import IWatchlistStore


class WatchlistService:
    def __init__(
        self,
        store: IWatchlistStore,
        batches: BatchService,
        channels: IChannelStore,
        market: IMarketReferenceGateway,
        calendar: IScheduleCalendar,
        *,
        today: Callable[[], date] = date.today,
    ) -> None:
        self._store = store
        self._batches = batches
        self._channels = channels
        self._market = market
        self._calendar = calendar
        self._today = today

    async def create(self, name: str, symbols: list[str], viewer: Viewer) -> Watchlist:
        """Raises 400 ``invalid_watchlist``, ``symbols_empty``, ``invalid_symbol``, ``unknown_symbols`` (naming
        them), 413 ``batch_too_large``, 409 ``watchlist_name_taken``."""
        watchlist = Watchlist(str(uuid.uuid4()), _name(name), await self._known(symbols), viewer.client_id)
        await self._store.create(watchlist)
        return watchlist

    async def get(self, watchlist_id: str, viewer: Viewer) -> Watchlist:
        watchlist = await self._store.get(watchlist_id)
        if watchlist is None or not (viewer.sees_all or watchlist.client_id == viewer.client_id):
            raise WatchlistNotFoundError(watchlist_id)
        return watchlist

    async def named(self, name: str, viewer: Viewer) -> Watchlist:
        """The viewer's watchlist of that name."""
        watchlist = await self._store.find(viewer.client_id, name)
        if watchlist is None:
            raise WatchlistNotFoundError(name)
        return watchlist

    async def page(self, viewer: Viewer, *, offset: int, limit: int) -> tuple[list[Watchlist], int]:
        return await self._store.page(viewer.only_client, offset=offset, limit=limit)

    async def update(self, watchlist_id: str, name: str, symbols: list[str], viewer: Viewer) -> Watchlist:
        watchlist = await self.get(watchlist_id, viewer)
        changed = replace(watchlist, name=_name(name), symbols=await self._known(symbols), updated_at=utcnow())
        await self._store.update(changed)
        return changed

    async def delete(self, watchlist_id: str, viewer: Viewer) -> None:
        """Deletes it and its schedules; its batches (ordinary sessions) stay."""
        await self.get(watchlist_id, viewer)
        await self._store.delete(watchlist_id)

    async def run(
        self,
        watchlist_id: str,
        viewer: Viewer,
        *,
        analysis_date: str | None = None,
        channels: list[str] | None = None,
        request_id: str | None = None,
        language: str | None = None,
    ) -> BatchState:
        """Submits a batch of the watchlist's symbols (``analysis_date``: default the last trading day with data;
        ``language``: default REPORT_LANGUAGE), telling ``channels`` (the viewer's) when it ends."""
        watchlist = await self.get(watchlist_id, viewer)
        await self.check_channels(channels or [], watchlist.client_id)
        day = (
            analysis_date
            if analysis_date is not None
            else (await self.default_day(watchlist, DEFAULT_CALENDAR)).isoformat()
        )
        command = BatchCommand(
            symbols=list(watchlist.symbols),
            analysis_date=day,
            request_id=request_id,
            client_id=watchlist.client_id,
            watchlist_id=watchlist.watchlist_id,
            channels=list(dict.fromkeys(channels or [])),
            language=language,
        )
        return await self._batches.submit(command)

    async def default_day(self, watchlist: Watchlist, calendar: str) -> date:
        """The last trading day with data: offline, the latest last bar among the list's symbols (not after
        today); live (an open-ended universe), the exchange's latest trading day up to today."""
        today = self._today()
        universe = await self._market.universe()
        if not universe.open_ended:
            ends = [s.bars.last for s in universe.symbols if s.symbol in set(watchlist.symbols) and s.bars is not None]
            if ends:
                return min(date.fromisoformat(max(ends)), today)
        return self._calendar.last_session(calendar, today)

    async def check_channels(self, channel_ids: list[str], client_id: str) -> None:
        """Raises 400 ``invalid_schedule`` naming a channel that is not the client's."""
        for channel_id in channel_ids:
            channel = await self._channels.get(channel_id)
            if channel is None or channel.client_id != client_id:
                raise InvalidScheduleError(f"channels: no channel {channel_id!r} of yours")

    async def _known(self, given: list[str]) -> list[str]:
        symbols = normalized_symbols(given)
        universe = await self._market.universe()
        if universe.open_ended:
            return symbols
        known = {s.symbol for s in universe.symbols}
        unknown = [s for s in symbols if s not in known]
        if unknown:
            raise UnknownSymbolsError(unknown)
        return symbols


def _name(given: str) -> str:
    name = " ".join(given.split())
    if not name:
        raise InvalidWatchlistError("name must not be blank")
    if len(name) > MAX_WATCHLIST_NAME:
        raise InvalidWatchlistError(f"name is {len(name)} characters; at most {MAX_WATCHLIST_NAME}")
    return name
