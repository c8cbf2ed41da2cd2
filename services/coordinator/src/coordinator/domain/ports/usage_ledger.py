"""Where what researches spent on model calls is kept (by client, day and model), and the client's daily token
quota."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
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
    @abstractmethod
    async def refusal(self, client_id: str) -> tuple[str, int] | None:
        """(why, seconds until it resets) when ``client_id`` has no token left today; None otherwise."""

    @abstractmethod
    async def spend(self, client_id: str, tokens: int) -> None: ...
