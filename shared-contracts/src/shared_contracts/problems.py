"""RFC 9457 problem details with a stable machine ``code``, the error body of every service."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

PROBLEM_CONTENT_TYPE = "application/problem+json"


class ProblemDetail(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    code: str
    request_id: str | None = None
    errors: list[dict[str, Any]] | None = None

    def readable(self) -> str:
        """One line a person can read, e.g. ``404 symbol_not_found: no data for XYZ``."""
        return f"{self.status} {self.code}: {self.detail}"
