"""What a failed peer call says of itself: the research service's refusal of an expert (``ExpertFailure``), the
model calls a failed stage had made, and the tokens a stage's result or problem says it used."""

from __future__ import annotations

from datetime import date
from typing import Any

from coordinator.domain.dtos.research_dtos import ExpertFailure
from coordinator.domain.exceptions import PeerResponseError
from shared_contracts.experts import is_iso_date


def tokens_used_by(data: dict[str, Any] | None) -> int:
    """The tokens a stage's result (or a failed stage's problem detail) says its model calls used."""
    usage = (data or {}).get("usage")
    if not isinstance(usage, dict):
        return 0
    return sum(n for key in ("input_tokens", "output_tokens") if isinstance(n := usage.get(key), int))


def spent_by_failure(exc: Exception) -> int:
    return tokens_used_by(exc.extensions) if isinstance(exc, PeerResponseError) else 0


def usage_of_failure(exc: Exception) -> dict[str, Any] | None:
    """The ``usage`` a peer's problem detail reported: the model calls a failed stage had made."""
    usage = exc.extensions.get("usage") if isinstance(exc, PeerResponseError) else None
    return usage if isinstance(usage, dict) else None


def failure_of(exc: Exception) -> ExpertFailure | None:
    """What the research service said of a refused expert: its status, problem code and, when it named one,
    the earliest day its data can support (``insufficient_history``)."""
    if not isinstance(exc, PeerResponseError):
        return None
    earliest = exc.extensions.get("earliest_usable_date")
    day = date.fromisoformat(earliest) if isinstance(earliest, str) and is_iso_date(earliest) else None
    return ExpertFailure(status=exc.status, code=exc.peer_code, earliest_usable_date=day, usage=usage_of_failure(exc))
