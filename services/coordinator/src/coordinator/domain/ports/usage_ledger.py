"""Where what researches spent on model calls is kept (by client, day and model), and the client's daily token
quota."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from shared_contracts.usage import LLMUsage


@dataclass(frozen=True)
class UsageRecord:
    """What one stage of one session spent, counted on ``day`` (UTC, the day the session ended)."""

    session_id: str
    stage: str
    client_id: str
    day: date
    usage: LLMUsage


@dataclass(frozen=True)
class UsageTotal:
    """The usage of one client on one day with one model, summed."""

    client_id: str
    day: date
    model: str
    usage: LLMUsage


class IUsageLedger(ABC):
    @abstractmethod
    async def record_usage(self, records: Sequence[UsageRecord]) -> None:
        """Store ``records`` (a session's stage recorded again replaces its earlier record)."""

    @abstractmethod
    async def usage_totals(self, *, client_id: str | None, start: date, end: date) -> list[UsageTotal]:
        """Sums by client, day and model, ``start`` to ``end`` inclusive; only ``client_id``'s unless None. Ordered
        by day, client, model."""


class ITokenQuota(ABC):
    """The tokens a client's researches may use per 24 hours (``CLIENT_DAILY_TOKENS``), held before they are spent.

    A research holds its token budget when it is submitted (``reserve``: all of a batch's items at once, or none);
    the count is what was spent plus what is held, so concurrent submissions cannot take more than the quota. When
    it ends, ``settle`` ends its hold: what it spent stays counted, the rest is given back. The window starts with
    the first hold of the day and lasts 24 hours (a hold made in an earlier window is gone with it: settling then
    counts only what was spent)."""

    daily_tokens: int

    @abstractmethod
    async def reserve(self, client_id: str, holds: Mapping[str, int]) -> tuple[str, int] | None:
        """Hold ``holds`` (hold id, e.g. a session id → tokens) for ``client_id``, atomically and all or none; (why,
        seconds until the window resets) when they do not fit in what is left today, None once held."""

    @abstractmethod
    async def settle(self, client_id: str, hold: str, spent: int) -> None:
        """End ``hold`` (unknown: nothing held): ``spent`` tokens counted, the rest of what it held given back."""
