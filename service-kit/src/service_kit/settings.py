"""Settings shared by every service, and loading that names the bad variable when configuration is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeVar

from limits import parse_many
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from service_kit.api_keys import KeyRing, parse_entries, read_key_file
from shared_contracts.redaction import url_password
from shared_contracts.usage import MAX_TOKEN_BUDGET

DEFAULT_REQUEST_TOKEN_BUDGET = 200_000
"""``REQUEST_TOKEN_BUDGET``'s default: what one request's model calls may use on an analysing service."""
PerModel = int | dict[str, int]
"""A model-call limit: one number for every model, or one per model name (JSON in the environment)."""


class ConfigurationError(RuntimeError):
    """Configuration from the environment is invalid; the message names the variable(s)."""


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_json: bool = True
    # What the compose gateway accepts too (client_max_body_size 1m); larger bodies are 413 request_too_large.
    max_request_body_bytes: int = Field(default=1_048_576, gt=0)
    max_bulk_request_body_bytes: int = Field(
        default=16_777_216, gt=0, description="Bodies of the bulk routes (…/bulk, up to 1,000 items), else 413."
    )
    body_read_timeout_seconds: float = Field(default=30.0, gt=0, description="Whole request body, else 408.")
    header_read_timeout_seconds: float = Field(
        default=10.0, gt=0, description="Request head (read by the server protocol, server.py), else 408."
    )
    # Read by the server protocol (server_limits.py); declared here so that a bad value fails at start.
    max_request_head_bytes: int = Field(default=32_768, gt=0, description="Request line + headers, else 431.")
    max_request_header_lines: int = Field(default=100, gt=0, description="Header lines per request, else 431.")
    max_connections_per_client: int = Field(default=256, gt=0, description="Open connections per address, else 503.")

    auth_mode: Literal["none", "api_key"] = "none"
    api_keys: str = Field(default="", description="client_id=sha256hex[:scope+scope], comma-separated.")
    api_keys_file: Path | None = Field(default=None, description="One entry per line; re-read when it changes.")
    allowed_origins: str = Field(default="", description="Browser origins allowed to send POSTs, comma-separated.")
    rate_limits_enabled: bool | None = Field(default=None, description="Default: on when AUTH_MODE=api_key.")
    rate_limit_writes: str = Field(default="30/minute", description="POSTs per client (limits notation).")
    rate_limit_reads: str = Field(default="300/minute", description="Other requests per client.")
    research_daily_quota: int = Field(default=500, ge=0, description="Researches per client per day; 0: none.")
    redis_url: str | None = Field(
        default=None, description="Rate-limit counters and model-call limits shared by replicas and services."
    )
    otel_exporter_otlp_endpoint: str | None = Field(
        default=None, description="OTLP/HTTP collector (http://host:4318): traces on; unset: off (tracing.py)."
    )
    trust_incoming_trace_context: bool = Field(
        default=False,
        description="Continue any caller's traceparent (behind a gateway that sets it); else only a service key's "
        "or with AUTH_MODE=none. A caller's baggage is never read or forwarded.",
    )

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(o.strip().rstrip("/") for o in self.allowed_origins.split(",") if o.strip())

    @property
    def limits_on(self) -> bool:
        return self.auth_mode == "api_key" if self.rate_limits_enabled is None else self.rate_limits_enabled

    def key_ring(self) -> KeyRing:
        return KeyRing.parse(self.api_keys, self.api_keys_file)

    def secret_values(self) -> list[str | None]:
        """The secrets this configuration holds, masked wherever they would be logged, stored or answered
        (``redaction.remember_secrets``); a service adds its own (the LLM key, the database password)."""
        return [url_password(self.redis_url)]

    @field_validator("rate_limit_writes", "rate_limit_reads")
    @classmethod
    def _rate(cls, value: str) -> str:
        try:
            parse_many(value)
        except ValueError:
            raise ValueError(f"must be a rate such as 30/minute or 10/second;1000/day, got {value!r}") from None
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis(cls, value: str | None) -> str | None:
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"must be a redis:// or rediss:// URL, got {value!r}")
        return value or None

    @model_validator(mode="after")
    def _keys_for_api_key_mode(self) -> ServiceSettings:
        parse_entries(self.api_keys.split(","))  # a malformed entry fails at start, whatever the mode
        if self.api_keys_file is not None:
            read_key_file(self.api_keys_file)
        if self.auth_mode == "api_key" and len(self.key_ring()) == 0:
            raise ValueError(
                "AUTH_MODE=api_key needs at least one key in API_KEYS or API_KEYS_FILE "
                '(create one with: make keys ARGS="create CLIENT_ID"; stock-research-keys in an image)'
            )
        return self


class EngineSettings(ServiceSettings):
    """The analysing services' engine choice (ARCHITECTURE.md "Engines")."""

    analysis_engine: Literal["auto", "rules", "llm"] = "auto"
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str | None = None
    llm_timeout_seconds: float = 60.0
    llm_max_retries: int = 2
    llm_json_mode: bool = True
    llm_fallback_to_rules: bool = False
    llm_numbers_policy: Literal["repair", "mark", "reject"] = Field(
        default="repair", description="What happens to a figure in an LLM answer that is not in its input."
    )
    report_language: Literal["zh", "en"] = "zh"
    # Model-call limits (service_kit.llm.call_limits): a number for every model, or JSON per model; 0: none.
    llm_max_concurrency: PerModel = Field(default=512, description="Model calls in flight at once.")
    llm_requests_per_minute: PerModel = Field(default=0, description="Model calls started per minute.")
    llm_tokens_per_minute: PerModel = Field(default=0, description="Tokens (input + output) per minute.")

    request_token_budget: int = Field(
        default=DEFAULT_REQUEST_TOKEN_BUDGET,
        ge=1,
        le=MAX_TOKEN_BUDGET,
        description="Tokens the model calls of one request (one bulk item) may use here: the coordinator's "
        "X-Token-Budget is capped to it; a client key's is ignored.",
    )
    allow_client_model_calls: bool = Field(
        default=False,
        description="Client keys (not only the coordinator's service key) may run model calls here directly; "
        "their tokens count in no CLIENT_DAILY_TOKENS. Off: 403 model_calls_not_allowed.",
    )

    def secret_values(self) -> list[str | None]:
        return [*super().secret_values(), self.llm_api_key]

    def model_limit(self, limit: PerModel, model: str) -> int | None:
        """``limit`` (one of the ``llm_*`` limits above) for ``model``: None when it has none."""
        value = limit if isinstance(limit, int) else limit.get(model, 0)
        return value or None

    @field_validator("llm_max_concurrency", "llm_requests_per_minute", "llm_tokens_per_minute", mode="before")
    @classmethod
    def _per_model(cls, value: object) -> object:
        values = list(value.values()) if isinstance(value, dict) else [value]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
            raise ValueError(f'must be 0 (none), a positive number or JSON such as {{"gpt-4o": 500}}, got {value!r}')
        return value

    @property
    def uses_llm(self) -> bool:
        if self.analysis_engine == "auto":
            return bool(self.llm_base_url or self.llm_api_key)
        return self.analysis_engine == "llm"

    @model_validator(mode="after")
    def _llm_is_complete(self) -> EngineSettings:
        if self.uses_llm:
            missing = []
            if not (self.llm_base_url or self.llm_api_key):
                missing.append("LLM_BASE_URL and/or LLM_API_KEY")
            if not self.llm_model:
                missing.append("LLM_MODEL")
            if missing:
                raise ValueError(f"the LLM engine needs {' and '.join(missing)}")
        if self.llm_base_url and not self.llm_base_url.startswith(("http://", "https://")):
            raise ValueError(f"LLM_BASE_URL must be an http:// or https:// URL, not {self.llm_base_url!r}")
        if self.llm_timeout_seconds <= 0:
            raise ValueError("LLM_TIMEOUT_SECONDS must be positive")
        if not 0 <= self.llm_max_retries <= 10:
            raise ValueError("LLM_MAX_RETRIES must be between 0 and 10")
        return self


S = TypeVar("S", bound=BaseSettings)


def load_settings(settings_class: type[S]) -> S:
    """Build settings from the environment; raise ConfigurationError naming each bad variable."""
    try:
        return settings_class()
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = "_".join(str(p) for p in err["loc"]).upper()
            msg = str(err["msg"]).removeprefix("Value error, ")
            problems.append(f"{loc}: {msg}" if loc else msg)
        raise ConfigurationError("Invalid configuration: " + "; ".join(problems)) from None


def settings_of_this_process(settings_class: type[S]) -> S:
    """``load_settings`` for an app factory that uvicorn calls: a bad variable ends the process with one
    line naming it (exit status 1), not a traceback around it."""
    try:
        return load_settings(settings_class)
    except ConfigurationError as exc:
        raise SystemExit(str(exc)) from None
