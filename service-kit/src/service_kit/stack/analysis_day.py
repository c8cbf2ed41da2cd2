"""The day a research is made as of when its caller names none, for the clients of a running stack (the CLI, the
``make run`` banner): the last trading day the data has for the symbols, from the coordinator's
``GET /api/v1/coordinator/universe`` (each symbol's ``bars.last``); for a live provider (``open_ended``), a symbol
the data does not list, or a universe that cannot be read, the last weekday up to today. The API itself, asked
without a date, uses today (the spec); these clients choose a day that has data and say which and why."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from shared_contracts.experts import is_iso_date

UNIVERSE = "/api/v1/coordinator/universe"


def last_weekday(today: dt.date | None = None) -> str:
    """The last Monday-to-Friday day up to ``today`` (default: today), as YYYY-MM-DD."""
    today = today or dt.date.today()
    return (today - dt.timedelta(days=max(0, today.weekday() - 4))).isoformat()


def default_analysis_date(
    client: httpx.Client, coordinator_url: str, symbols: Sequence[str], today: dt.date | None = None
) -> tuple[str, str]:
    """The day and, in words, why: the newest ``bars.last`` of ``symbols`` in the coordinator's universe, else the
    last weekday up to ``today``. A transport error (nothing listening) is raised to the caller."""
    weekday = last_weekday(today)
    try:
        response = client.get(f"{coordinator_url.rstrip('/')}{UNIVERSE}")
        body: Any = response.json() if response.status_code == 200 else None
    except ValueError:
        body = None
    if not isinstance(body, Mapping):
        return weekday, "the last weekday up to today (the data's universe could not be read)"
    wanted = {s.strip().upper() for s in symbols}
    lasts = {
        str(item["symbol"]): str(item["bars"]["last"])
        for item in body.get("symbols") or []
        if isinstance(item, Mapping)
        and str(item.get("symbol", "")).upper() in wanted
        and isinstance(item.get("bars"), Mapping)
        and is_iso_date(str(item["bars"].get("last")))
    }
    named = ", ".join(symbols) if len(symbols) <= 3 else "these symbols"
    if lasts:
        day = max(lasts.values())
        return day, f"the last trading day the data has for {named}" + _ending_earlier(lasts, day)
    if body.get("open_ended"):
        return weekday, f"the last weekday up to today (the data provider, {body.get('data_provider')}, is live)"
    return weekday, f"the last weekday up to today (the data lists no bars for {named})"


def _ending_earlier(lasts: Mapping[str, str], day: str, shown: int = 3) -> str:
    """``"; the data of X ends earlier (on D)"`` for the symbols whose last bar is before ``day`` (a few named)."""
    earlier = sorted((last, symbol) for symbol, last in lasts.items() if last < day)
    if not earlier:
        return ""
    named = ", ".join(f"{symbol} on {last}" for last, symbol in earlier[:shown])
    more = f" and {len(earlier) - shown} more" if len(earlier) > shown else ""
    return f"; the data of some ends earlier ({named}{more})"
