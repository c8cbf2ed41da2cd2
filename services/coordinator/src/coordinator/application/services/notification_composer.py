"""What a watchlist run's notification says (``Notification``): its ranked table's top and bottom, what changed
since the list's previous run (new BUY/SELL, flips, verdicts gone; the previous run's BUY/SELL calls that touched
their stop or target between the two runs' analysis dates), and a link to the batch in the console."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, timedelta

from coordinator.domain.exceptions import GatewayError
from coordinator.domain.model.batch import Batch, BatchItem, ranked
from coordinator.domain.model.channel import Language
from coordinator.domain.model.notification import Change, ChangeKind, Notification, RankedRow, table_ends
from coordinator.domain.model.outcome import StoredVerdict, score_verdict
from coordinator.domain.model.session import utcnow
from coordinator.domain.ports.batch_store import IBatchStore
from coordinator.domain.ports.price_bars_gateway import IPriceBarsGateway
from coordinator.domain.ports.watchlist_store import IWatchlistStore

BARS_CONCURRENCY = 8
MAX_CALLS_CHECKED = 200
"""The previous run's BUY/SELL calls whose stop and target are checked (the best-scored first)."""
TRADES = ("BUY", "SELL")
TITLES = {
    "zh": "自选股「{name}」：{total} 只已研究（截至 {day}）",
    "en": "Watchlist {name}: {total} researched as of {day}",
}


class NotificationComposer:
    def __init__(
        self,
        batches: IBatchStore,
        watchlists: IWatchlistStore,
        bars: IPriceBarsGateway,
        *,
        console_base_url: str = "",
    ) -> None:
        self._batches = batches
        self._watchlists = watchlists
        self._bars = bars
        self._console = console_base_url.rstrip("/")

    async def watchlist_run(self, batch: Batch, language: str) -> Notification:
        """The notification of ``batch`` (a watchlist's run that has ended), in ``language`` (zh or en)."""
        items = ranked(await self._batches.items(batch.batch_id))
        progress = await self._batches.progress(batch.batch_id)
        watchlist = await self._watchlists.get(batch.watchlist_id) if batch.watchlist_id else None
        name = watchlist.name if watchlist is not None else (batch.watchlist_id or batch.batch_id)
        previous = await self._batches.previous_run(batch)
        changes: list[Change] = []
        if previous is not None:
            before = {i.symbol: i for i in await self._batches.items(previous.batch_id)}
            changes = _action_changes(items, before)
            changes += await self._levels_hit(previous, batch.analysis_date)
        top, bottom = table_ends([_row(rank, item) for rank, item in enumerate(items, start=1)])
        lang: Language = "en" if language == "en" else "zh"
        return Notification(
            type="watchlist.run.completed",
            title=TITLES[lang].format(name=name, total=batch.total, day=batch.analysis_date.isoformat()),
            language=lang,
            watchlist_id=batch.watchlist_id,
            watchlist_name=name,
            batch_id=batch.batch_id,
            batch_status=batch.status,
            analysis_date=batch.analysis_date.isoformat(),
            previous_analysis_date=previous.analysis_date.isoformat() if previous is not None else None,
            total=progress.total,
            failed=progress.failed,
            top=top,
            bottom=bottom,
            changes=changes,
            link=f"{self._console}/console/#/batches/{batch.batch_id}",
            created_at=(batch.completed_at or utcnow()).astimezone(UTC).isoformat().replace("+00:00", "Z"),
        )

    async def _levels_hit(self, previous: Batch, until: date) -> list[Change]:
        """The previous run's BUY/SELL calls that touched their stop or target after its analysis date, up to
        ``until`` (the bars public on this run's analysis date)."""
        sessions = await self._batches.sessions(previous.batch_id)
        calls = [v for v in map(StoredVerdict.of, sessions) if v is not None and v.action in TRADES]
        calls = sorted(calls, key=lambda v: -(v.score or 0.0))[:MAX_CALLS_CHECKED]
        limit = asyncio.Semaphore(BARS_CONCURRENCY)

        async def one(call: StoredVerdict) -> Change | None:
            async with limit:
                try:
                    bars = await self._bars.bars(call.symbol, start=call.entry_day - timedelta(days=40), end=until)
                except GatewayError:
                    return None  # no bars now: nothing said about its levels
            trade = score_verdict(call, bars).trade
            if trade is None or trade.exit_reason not in ("stop", "target") or trade.exit_day is None:
                return None
            kind: ChangeKind = "stop_hit" if trade.exit_reason == "stop" else "target_hit"
            day = trade.exit_day.isoformat()
            price = round(trade.exit_price, 4) if trade.exit_price is not None else None
            return Change(kind, call.symbol, action=call.action, price=price, day=day)

        found = await asyncio.gather(*(one(c) for c in calls))
        return [c for c in found if c is not None]


def _row(rank: int, item: BatchItem) -> RankedRow:
    return RankedRow(
        rank=rank,
        symbol=item.symbol,
        session_id=item.session_id,
        status=item.status,
        action=item.action,
        score=item.score,
        universe_rank=item.universe_rank,
        position_percent=item.position_percent,
        confidence=item.confidence,
    )


def _action_changes(items: list[BatchItem], before: dict[str, BatchItem]) -> list[Change]:
    """New BUY/SELL, flips between them, and verdicts gone, in the ranked table's order."""
    changes = []
    for item in items:
        was = before[item.symbol].action if item.symbol in before else None
        now = item.action
        if now in TRADES and was in TRADES and now != was:
            changes.append(Change("flip", item.symbol, action=now, previous=was))
        elif now in TRADES and now != was:
            changes.append(Change("new_buy" if now == "BUY" else "new_sell", item.symbol, action=now, previous=was))
        elif now is None and was is not None:
            changes.append(Change("dropped", item.symbol, previous=was))
    return changes
