"""Settings shared by every service, and loading that names the bad variable when configuration is wrong."""

from __future__ import annotations

from typing import Literal, TypeVar

from pydantic import Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class ConfigurationError(RuntimeError):
    """Configuration from the environment is invalid; the message names the variable(s)."""


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_json: bool = True
    # What the compose gateway accepts too (client_max_body_size 1m); larger bodies are 413 request_too_large.
    max_request_body_bytes: int = Field(default=1_048_576, gt=0)


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
    report_language: Literal["zh", "en"] = "zh"

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
