"""The research service's configuration (environment / ``.env``); ``load_settings`` names a bad variable."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import model_validator

from service_kit.settings import EngineSettings


class Settings(EngineSettings):
    market_data_provider: Literal["offline", "akshare", "yfinance"] = "offline"
    """MARKET_DATA_PROVIDER: the offline snapshot (default) or a live provider (optional extras)."""
    data_timeout_seconds: float = 20.0
    """DATA_TIMEOUT_SECONDS: how long a live provider call may take before a 504."""
    snapshot_dir: Path | None = None
    """SNAPSHOT_DIR: another snapshot directory with the same layout; default: the copy in the package."""

    reference_universe: str | None = None
    """REFERENCE_UNIVERSE: comma-separated symbols to rank every stock against (an index's constituents, a
    watchlist); default: the provider's symbols (the offline snapshot's; none for a live provider, whose
    results then carry no relative standing)."""

    @property
    def reference_symbols(self) -> list[str] | None:
        if self.reference_universe is None:
            return None
        return [s.strip() for s in self.reference_universe.split(",") if s.strip()]

    @model_validator(mode="after")
    def _check_data(self) -> Settings:
        if self.data_timeout_seconds <= 0:
            raise ValueError("DATA_TIMEOUT_SECONDS must be positive")
        if self.snapshot_dir is not None and not (self.snapshot_dir / "bars").is_dir():
            raise ValueError(f"SNAPSHOT_DIR {self.snapshot_dir} has no bars/ directory")
        return self
