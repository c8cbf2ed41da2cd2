"""How many event streams (a session's or a batch's ``…/events``) this coordinator serves at once: each holds a
connection for as long as it is followed, so one client opening hundreds would take the connections every other
client's calls need. A client may hold ``per_client`` streams, and all clients together ``total``; a stream beyond
either is refused (``TooManyStreamsError``, 429) before it starts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from coordinator.domain.exceptions import TooManyStreamsError


class StreamSlots:
    def __init__(self, *, per_client: int, total: int, retry_after_seconds: int = 5) -> None:
        self.per_client = per_client
        self.total = total
        self._retry_after = retry_after_seconds
        self._held: Counter[str] = Counter()

    @contextmanager
    def hold(self, client_id: str) -> Iterator[None]:
        """A slot for one of ``client_id``'s streams while the block runs; raises ``TooManyStreamsError`` when the
        client holds ``per_client`` already or every client together ``total``."""
        if self._held[client_id] >= self.per_client:
            raise TooManyStreamsError(f"{self.per_client} event streams are open for this client", self._retry_after)
        if self._held.total() >= self.total:
            raise TooManyStreamsError(f"{self.total} event streams are open on this server", self._retry_after)
        self._held[client_id] += 1
        try:
            yield
        finally:
            self._held[client_id] -= 1
            if not self._held[client_id]:
                del self._held[client_id]

    def held(self, client_id: str) -> int:
        return self._held[client_id]
