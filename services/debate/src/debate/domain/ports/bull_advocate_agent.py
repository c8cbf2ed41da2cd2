"""Port of the bull advocate: argues the long side from the experts' summaries."""

from __future__ import annotations

from abc import ABC, abstractmethod

from debate.domain.dtos.bull_bear_argument import BullArgument
from debate.domain.dtos.debate_input import DebateInput


class IBullAdvocateAgentPort(ABC):
    @abstractmethod
    async def advocate(self, input: DebateInput) -> BullArgument:
        """Build the bull case from ``input``."""
