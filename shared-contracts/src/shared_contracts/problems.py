"""RFC 9457 problem details with a stable machine ``code``, the error body of every service."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

PROBLEM_CONTENT_TYPE = "application/problem+json"
RAW_OUTPUT_EXCERPT = "raw_output_excerpt"
RAW_OUTPUT_EXCERPT_CHARS = 1000


def raw_output_member(raw_output: str) -> dict[str, str]:
    """The problem member every service adds to an ``llm_output_invalid``: what the model wrote (its
    beginning), so the failure can be audited; nothing when it wrote nothing."""
    return {RAW_OUTPUT_EXCERPT: raw_output[:RAW_OUTPUT_EXCERPT_CHARS]} if raw_output else {}


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
