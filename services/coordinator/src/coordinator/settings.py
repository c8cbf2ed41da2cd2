"""The coordinator's configuration, from the environment (and ``.env``). Loaded with
``service_kit.settings.load_settings``: a bad value fails at start naming the variable."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator, model_validator

from coordinator.application.services.usage_accounting import DEFAULT_RESERVATION
from coordinator.infrastructure.persistence.engine import normalize_database_url
from coordinator.infrastructure.persistence.instances import DEFAULT_LEASE_SECONDS
from service_kit.settings import ServiceSettings
from shared_contracts.language import Language
from shared_contracts.redaction import url_password
from shared_contracts.usage import MAX_TOKEN_BUDGET, ModelPrice


class Settings(ServiceSettings):
    research_service_url: str = "http://127.0.0.1:8001"
    debate_service_url: str = "http://127.0.0.1:8002"
    judge_service_url: str = "http://127.0.0.1:8003"
    database_url: str = "sqlite+aiosqlite:///./data/coordinator.db"
    report_language: Language | None = Field(
        default=None,
        description="The language of a research that names none (set it to the peers' REPORT_LANGUAGE); unset: such "
        "a research names none to the peers either, and each writes in its own REPORT_LANGUAGE.",
    )

    expert_timeout_seconds: float = Field(default=120.0, gt=0, description="One expert call, retries included.")
    debate_timeout_seconds: float = Field(default=180.0, gt=0, description="The debate call, retries included.")
    judge_timeout_seconds: float = Field(default=90.0, gt=0, description="The judge call, retries included.")
    bars_timeout_seconds: float = Field(default=15.0, gt=0, description="One bars call to research, retries included.")
    connect_timeout_seconds: float = Field(default=5.0, gt=0)
    http_max_attempts: int = Field(default=3, ge=1, le=3, description="Attempts per call (transient failures).")
    http_backoff_seconds: float = Field(default=0.5, ge=0, description="First retry wait; doubles, with jitter.")
    http_backoff_max_seconds: float = Field(default=4.0, ge=0)
    readiness_timeout_seconds: float = Field(default=2.0, gt=0)
    # Renewed every third of it; a coordinator elsewhere silent this long is gone (its sessions: interrupted).
    session_lease_seconds: float = Field(default=DEFAULT_LEASE_SECONDS, ge=1.0, le=86_400.0)
    service_api_key: SecretStr | None = None  # our key (scope service) for the peers; needed with AUTH_MODE=api_key
    session_retention_days: int = Field(default=180, ge=0, description="Finished sessions older are deleted; 0: kept.")
    session_purge_interval_seconds: float = Field(default=3600.0, ge=1.0, description="How often the purge runs.")
    http_max_connections: int = Field(default=200, ge=1, description="Open connections to all peers together.")
    research_concurrency: int = Field(default=128, ge=1, le=1000, description="Researches run at once here.")
    research_queue_limit: int = Field(
        default=100,
        ge=0,
        description="Queued researches, shared equally among the clients with researches waiting; beyond a "
        "client's share: 503 queue_full.",
    )
    event_streams_per_client: int = Field(
        default=32, ge=1, description="Event streams one client may follow at once here; beyond: 429 too_many_streams."
    )
    event_streams_total: int = Field(
        default=256, ge=1, description="Event streams all clients together may follow here; beyond: 429."
    )
    stall_seconds: float = Field(default=120.0, gt=0, description="A research silent this long: session.stalled.")
    job_poll_seconds: float = Field(
        default=0.5, gt=0, le=5.0, description="How often the queue, cancellations and events are read from the store."
    )

    batch_chunk_size: int = Field(
        default=100, ge=1, le=1000, description="A batch's items claimed and sent to the peers together."
    )
    batch_concurrency: int = Field(default=4, ge=1, le=64, description="Batch chunks this coordinator runs at once.")
    batch_queue_limit: int = Field(
        default=20_000, ge=1, description="Batch items that may wait at once (all batches); beyond: 503 queue_full."
    )
    batch_call_timeout_seconds: float = Field(
        default=600.0, gt=0, description="One bulk call of a batch chunk to a peer, retries included."
    )

    schedule_poll_seconds: float = Field(
        default=15.0, gt=0, le=60.0, description="How often the schedules are read for a slot that is due."
    )
    delivery_poll_seconds: float = Field(default=2.0, gt=0, le=60.0, description="How often the outbox is read.")
    delivery_max_attempts: int = Field(default=6, ge=1, le=50, description="Attempts per notification, then failed.")
    delivery_retry_base_seconds: float = Field(
        default=120.0, gt=0, description="The wait after a notification's first failed attempt; doubles, with jitter."
    )
    delivery_retry_max_seconds: float = Field(
        default=2400.0, gt=0, description="The longest wait between attempts (a Retry-After included)."
    )
    delivery_timeout_seconds: float = Field(default=15.0, gt=0, le=300.0, description="One attempt to send.")
    console_base_url: str = Field(
        default="", description="The console's address in notifications' links (e.g. https://research.example.com)."
    )
    telegram_api_base: str = "https://api.telegram.org"
    smtp_host: str | None = Field(default=None, description="The SMTP server e-mail channels send through.")
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_username: str | None = None
    smtp_password: SecretStr | None = None
    smtp_from: str | None = Field(default=None, description="The From address of notifications by e-mail.")
    smtp_starttls: bool = Field(default=True, description="Upgrade the connection with STARTTLS (port 587).")
    smtp_use_tls: bool = Field(default=False, description="Connect over TLS from the start (port 465).")

    research_token_budget: int | None = Field(
        default=None, ge=1, le=MAX_TOKEN_BUDGET, description="Tokens one research's model calls may use; unset: no cap."
    )
    client_daily_tokens: int = Field(
        default=0,
        ge=0,
        description="Tokens a client's researches may use per 24 hours, each research's budget held from its "
        "submission (memory, or Redis with REDIS_URL); 0: none.",
    )
    research_token_reservation: int = Field(
        default=DEFAULT_RESERVATION,
        ge=1,
        le=MAX_TOKEN_BUDGET,
        description="With CLIENT_DAILY_TOKENS: what a research with no token budget (RESEARCH_TOKEN_BUDGET or the "
        "request's) holds of the quota, and may use.",
    )
    llm_prices: dict[str, ModelPrice] = Field(
        default_factory=dict,
        description='Per model, its price per million tokens, JSON: {"gpt-4o": {"input": 2.5, "output": 10}}.',
    )

    def secret_values(self) -> list[str | None]:
        service_key = self.service_api_key.get_secret_value() if self.service_api_key else None
        smtp_password = self.smtp_password.get_secret_value() if self.smtp_password else None
        return [*super().secret_values(), service_key, url_password(self.database_url), smtp_password]

    @field_validator("research_service_url", "debate_service_url", "judge_service_url", "telegram_api_base")
    @classmethod
    def _http_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")) or len(value) <= len("https://"):
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value

    @model_validator(mode="after")
    def _service_key_with_api_keys(self) -> Settings:
        if self.service_api_key is not None and not self.service_api_key.get_secret_value().strip():
            self.service_api_key = None  # SERVICE_API_KEY= (empty, as in .env.example): not set
        if self.auth_mode == "api_key" and self.service_api_key is None:
            raise ValueError(
                "AUTH_MODE=api_key needs SERVICE_API_KEY, the key the coordinator calls research, debate and judge "
                'with (create it with: make keys ARGS="create coordinator --scope service"; '
                "stock-research-keys in an image)"
            )
        return self

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        if "://" not in value:
            raise ValueError(
                f"must be a SQLAlchemy URL such as sqlite+aiosqlite:///./data/coordinator.db, got {value!r}"
            )
        normalize_database_url(value)  # another backend or a synchronous driver: a configuration error, at start
        return value
