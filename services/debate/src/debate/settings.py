"""The debate's configuration (environment / .env); every variable is listed in the README."""

from __future__ import annotations

from service_kit.settings import EngineSettings


class Settings(EngineSettings):
    """The engine settings (ANALYSIS_ENGINE, LLM_*, REPORT_LANGUAGE) and the service kit's."""
