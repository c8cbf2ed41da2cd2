"""The use case's input as the caller gave it: not yet validated (the service validates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coordinator.domain.model.session import LOCAL_CLIENT_ID


@dataclass(frozen=True)
class ResearchCommand:
    symbol: str | None
    experts: list[str] | None
    options: dict[str, dict[str, Any]] | None = None
    skip_debate: bool = False
    analysis_date: str | None = None
    language: str | None = None
    """As sent (zh or en expected; None: REPORT_LANGUAGE); the service validates it."""
    token_budget: int | None = None
    """The request's own token budget (the lower of it and RESEARCH_TOKEN_BUDGET applies)."""
    """As sent (``YYYY-MM-DD`` expected); the service validates and resolves it."""
    request_id: str | None = field(default=None, compare=False)
    """The caller's X-Request-ID, stored on the session for audit."""
    client_id: str = field(default=LOCAL_CLIENT_ID, compare=False)
    """The caller (its API key's client id): the session is its own."""
