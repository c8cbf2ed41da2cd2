"""What the catalyst detective judges: the detected events, any news, and what data was missing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from research.domain.analysis.events import CatalystEvent
from research.domain.model.market_data import NewsItem


@dataclass(frozen=True)
class CatalystFacts:
    symbol: str
    as_of: date
    events: tuple[CatalystEvent, ...]
    """Detected events, newest first (price events, then the annual-report ones)."""
    news: tuple[NewsItem, ...]
    inputs: tuple[str, ...]
    """The data categories the events come from, e.g. ``bars``, ``financials``, ``news``."""
    gaps: tuple[str, ...]

    @property
    def net_score(self) -> int:
        return sum(e.polarity * e.weight for e in self.events)
