"""The judge's configuration (environment / .env); every variable is listed in the README."""

from __future__ import annotations

from pydantic import Field

from service_kit.settings import EngineSettings


class Settings(EngineSettings):
    """The engine settings (ANALYSIS_ENGINE, LLM_*, REPORT_LANGUAGE), the service kit's, and the position cap."""

    judge_max_position_percent: float = Field(default=30.0, gt=0.0, le=100.0)
    """JUDGE_MAX_POSITION_PERCENT: the largest position any verdict may carry, in percent of the portfolio."""
