"""Wire models of the coordinator's daily workflow: watchlists, their schedules, channels and the outbox's
deliveries.

- ``POST/GET /api/v1/coordinator/watchlists``, ``GET/PUT/DELETE …/watchlists/{id}`` — ``WatchlistBody`` →
  ``WatchlistView`` (201 + ``Location`` on create), ``WatchlistPage``;
- ``POST …/watchlists/{id}/run`` — ``WatchlistRunBody`` → 202 ``BatchAccepted`` (``shared_contracts.batches``);
- ``POST/GET …/watchlists/{id}/schedules``, ``GET/DELETE …/watchlists/{id}/schedules/{schedule_id}`` —
  ``ScheduleBody`` → ``ScheduleView`` (next fire times, last runs with their batches);
- ``POST/GET /api/v1/coordinator/channels``, ``GET/DELETE …/channels/{id}``, ``POST …/channels/{id}/test`` —
  ``ChannelBody`` → ``ChannelCreated`` / ``ChannelView``, ``ChannelTestResult``;
- ``GET /api/v1/coordinator/deliveries?status=``, ``GET …/deliveries/{id}``, ``POST …/deliveries/{id}/retry`` —
  ``DeliveryView``, ``DeliveryPage``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from shared_contracts.batches import MAX_BATCH_SYMBOLS
from shared_contracts.experts import ISO_DATE_JSON_SCHEMA
from shared_contracts.language import Language, RequestLanguage
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA

MAX_WATCHLIST_SYMBOLS = MAX_BATCH_SYMBOLS
"""A watchlist is run as one batch."""
ChannelKind = Literal["webhook", "slack", "feishu", "wecom", "telegram", "email"]
DeliveryStatus = Literal["pending", "delivered", "failed"]


class WatchlistBody(BaseModel):
    """A watchlist's name (unique among the caller's) and its symbols, each one the research universe has
    (an unknown one is a 400 ``unknown_symbols`` that names it)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, description="e.g. Core holdings")
    symbols: Annotated[
        list[str],
        WithJsonSchema(
            {
                "type": "array",
                "items": {**SYMBOL_JSON_SCHEMA, "examples": ["600519.SH", "000001.SZ"]},
                "minItems": 1,
                "maxItems": MAX_WATCHLIST_SYMBOLS,
            }
        ),
    ] = Field(description="The symbols (a symbol listed twice is kept once).")


class WatchlistLinks(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    self_: str = Field(alias="self")
    run: str = Field(description="Research it now (POST).")
    schedules: str
    batches: str = Field(description="Its runs (GET, newest first).")


class WatchlistView(BaseModel):
    watchlist_id: str
    name: str
    symbols: list[str]
    created_at: datetime
    updated_at: datetime
    last_batch_id: str | None = Field(default=None, description="Its latest run, when it has one.")
    links: WatchlistLinks


class WatchlistPage(BaseModel):
    items: list[WatchlistView]
    total: int
    limit: int
    offset: int


class WatchlistRunBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    analysis_date: Annotated[str | None, WithJsonSchema({"anyOf": [ISO_DATE_JSON_SCHEMA, {"type": "null"}]})] = Field(
        default=None, description="ISO date (default: the last trading day the data has)."
    )
    channels: list[str] = Field(
        default_factory=list, description="Channels told when the run ends (default: none).", max_length=20
    )
    language: RequestLanguage = Field(
        default=None,
        description="The language every item is written in: zh or en (default: the coordinator's REPORT_LANGUAGE, "
        "unset: the services' own).",
    )


class ScheduleBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cron: str = Field(description="Five fields (minute hour day month weekday), e.g. `0 18 * * 1-5`.", max_length=200)
    timezone: str = Field(default="Asia/Shanghai", description="IANA time zone the cron reads in.", max_length=64)
    trading_days_only: bool = Field(default=True, description="Skip slots on days the exchange is closed.")
    calendar: str = Field(default="XSHG", description="The exchange's calendar (XSHG, XHKG, XNYS, …).", max_length=16)
    channels: list[str] = Field(default_factory=list, description="Channels told when a run ends.", max_length=20)


class ScheduleRunView(BaseModel):
    slot: datetime = Field(description="The slot that fired (UTC).")
    fired_at: datetime
    batch_id: str | None = None
    batch_status: str | None = None
    error: str | None = Field(default=None, description="Why no batch started, when none did.")


class ScheduleView(BaseModel):
    schedule_id: str
    watchlist_id: str
    cron: str
    timezone: str
    trading_days_only: bool
    calendar: str
    channels: list[str]
    created_at: datetime
    next_fire_times: list[datetime] = Field(description="The next five slots (UTC).")
    last_runs: list[ScheduleRunView] = Field(description="The latest runs, newest first (up to ten).")


class ScheduleList(BaseModel):
    items: list[ScheduleView]


class ChannelBody(BaseModel):
    """``target``: the receiver's URL (webhook; slack, feishu and wecom: the bot's incoming-webhook URL), a chat id
    (telegram) or e-mail addresses, comma-separated (email). ``secret``: a webhook's signing secret (``whsec_`` +
    base64; generated and shown once when omitted), a Feishu bot's signing secret, a Telegram bot token
    (required). Stored, never shown back."""

    model_config = ConfigDict(extra="forbid")

    kind: ChannelKind
    target: str = Field(min_length=1, max_length=2000)
    secret: str | None = Field(default=None, max_length=500)
    name: str | None = Field(default=None, max_length=100)
    language: Language = Field(default="zh", description="The messages' language.")


class ChannelView(BaseModel):
    channel_id: str
    kind: ChannelKind
    target: str = Field(description="The target; a chat bot's URL masked to its host and last characters.")
    name: str | None = None
    language: Language
    has_secret: bool
    created_at: datetime


class ChannelCreated(ChannelView):
    secret: str | None = Field(
        default=None, description="A webhook's generated signing secret, shown this once (null otherwise)."
    )


class ChannelPage(BaseModel):
    items: list[ChannelView]
    total: int
    limit: int
    offset: int


class ChannelTestResult(BaseModel):
    delivered: bool
    status_code: int | None = Field(default=None, description="The receiver's HTTP status, when it answered.")
    error: str | None = None


class DeliveryView(BaseModel):
    delivery_id: str = Field(description="Also the webhook's `webhook-id`, the same on every attempt.")
    channel_id: str
    batch_id: str | None = None
    watchlist_id: str | None = None
    status: DeliveryStatus
    attempts: int
    next_attempt_at: datetime | None = Field(default=None, description="When pending: the next attempt.")
    last_error: str | None = None
    last_status_code: int | None = None
    created_at: datetime
    delivered_at: datetime | None = None


class DeliveryPage(BaseModel):
    items: list[DeliveryView]
    total: int
    limit: int
    offset: int
