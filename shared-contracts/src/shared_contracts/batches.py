"""Wire models of the coordinator's batches: many symbols researched as of one day, ranked together.

- ``POST /api/v1/coordinator/batches`` — ``BatchRequestBody`` → ``202`` ``BatchAccepted`` + ``Location``;
- ``GET  /api/v1/coordinator/batches`` — ``BatchPage`` (the caller's, newest first);
- ``GET  /api/v1/coordinator/batches/{batch_id}`` — ``BatchView`` (progress and the ranked items);
- ``GET  /api/v1/coordinator/batches/{batch_id}/results`` — ``BatchResults`` (each item's full research answer);
- ``GET  /api/v1/coordinator/batches/{batch_id}/events`` — ``batch.progress`` events, then one terminal event;
- ``POST /api/v1/coordinator/batches/{batch_id}/cancel`` — ``BatchView``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from shared_contracts.coordinator import ResearchResponseBody, SessionStatus
from shared_contracts.experts import ISO_DATE_JSON_SCHEMA, ExpertType, IsoDate
from shared_contracts.language import RequestLanguage
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA
from shared_contracts.usage import TokenBudget

MAX_BATCH_SYMBOLS = 1000
BatchStatus = Literal["queued", "running", "completed", "partial", "failed", "cancelled"]
BATCH_TERMINAL_EVENTS = ("batch.completed", "batch.partial", "batch.failed", "batch.cancelled")


def _symbols_required(schema: dict[str, Any]) -> None:
    schema["required"] = ["symbols"]
    schema["properties"]["symbols"].pop("default", None)


class BatchRequestBody(BaseModel):
    """``symbols`` (1 to 1,000; more is a 413), researched as of ``analysis_date`` by ``experts`` (default: all
    five). A symbol the research service does not know is a failed item, not a failed batch."""

    # Lenient: the coordinator validates, each mistake with its own code (400 symbols_empty, invalid_symbol,
    # unknown_expert, ...; 413 batch_too_large); the API document says what that validation requires.
    model_config = ConfigDict(extra="forbid", json_schema_extra=_symbols_required)

    symbols: Annotated[
        list[str] | None,
        WithJsonSchema({"type": "array", "items": SYMBOL_JSON_SCHEMA, "minItems": 1, "maxItems": MAX_BATCH_SYMBOLS}),
    ] = Field(default=None, description="The symbols to research (a symbol listed twice is researched once).")
    analysis_date: Annotated[str | None, WithJsonSchema({"anyOf": [ISO_DATE_JSON_SCHEMA, {"type": "null"}]})] = Field(
        default=None, description="ISO date every item is researched as of (default: today)."
    )
    experts: Annotated[
        list[str] | None,
        WithJsonSchema(
            {
                "anyOf": [
                    {
                        "type": "array",
                        "items": {"type": "string", "enum": [e.value for e in ExpertType]},
                        "minItems": 1,
                        "uniqueItems": True,
                    },
                    {"type": "null"},
                ]
            }
        ),
    ] = Field(default=None, description="The experts each item runs, each once (default: all five).")
    language: RequestLanguage = Field(
        default=None,
        description="The language every item is written in: zh or en (default: the coordinator's REPORT_LANGUAGE, "
        "unset: the services' own); "
        "anything else is 400 invalid_language.",
    )
    token_budget: TokenBudget = Field(default=None, description="Tokens each item's model calls may use.")


class BatchProgressBody(BaseModel):
    done: int = Field(description="Items that have ended, whatever their status.")
    total: int
    failed: int = Field(description="Items that ended failed or interrupted.")


class BatchItemBody(BaseModel):
    """One row of the ranked table: the item's session and its verdict's figures (null without a verdict)."""

    symbol: str
    session_id: str
    status: SessionStatus
    action: str | None = None
    score: float | None = None
    universe_rank: float | None = None
    position_percent: float | None = None
    confidence: float | None = None


class BatchLinks(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    self_: str = Field(alias="self", description="The batch (GET).")
    events: str = Field(description="Its progress events (GET, text/event-stream).")
    results: str = Field(description="Each item's full research answer (GET, paged).")
    cancel: str = Field(description="Cancel it (POST).")


class BatchSummary(BaseModel):
    batch_id: str
    status: BatchStatus
    analysis_date: IsoDate
    experts: list[str]
    progress: BatchProgressBody
    created_at: datetime
    completed_at: datetime | None = None
    watchlist_id: str | None = Field(default=None, description="The watchlist this batch is a run of, if any.")
    schedule_id: str | None = Field(default=None, description="The schedule whose slot started it, if one did.")
    links: BatchLinks


class BatchView(BatchSummary):
    items: list[BatchItemBody] = Field(description="Ordered by score, best first; items without a verdict last.")
    previous_batch_id: str | None = Field(
        default=None,
        description="The watchlist's run before this one (the latest ended one, not analysed after this one's "
        "date), to compare with; null for a batch of no watchlist or its first run.",
    )


class BatchAccepted(BatchSummary):
    """The answer to a submitted batch (202): it is queued; follow ``links.events`` or poll ``links.self``."""


class BatchPage(BaseModel):
    items: list[BatchSummary]
    total: int
    limit: int
    offset: int


class BatchResultItem(BaseModel):
    """An item's research as ``POST /api/v1/coordinator/research`` would have answered it: ``http_status`` and
    ``research`` (the response body) for an item that ended with an overall status, ``problem`` beside it when
    that answer is an error (every expert failed: 404/422/500 with their codes). Items still running or cancelled
    have neither."""

    symbol: str
    session_id: str
    status: SessionStatus
    http_status: int | None = None
    research: ResearchResponseBody | None = None
    problem: dict[str, Any] | None = None


class BatchResults(BaseModel):
    items: list[BatchResultItem]
    total: int
    limit: int
    offset: int


def batch_links(batch_id: str, prefix: str = "/api/v1/coordinator") -> BatchLinks:
    batch = f"{prefix}/batches/{batch_id}"
    return BatchLinks(self_=batch, events=f"{batch}/events", results=f"{batch}/results", cancel=f"{batch}/cancel")
