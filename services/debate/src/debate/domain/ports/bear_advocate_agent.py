"""Port of the bear advocate: argues the short side from the experts' summaries."""

from __future__ import annotations

from abc import ABC, abstractmethod

from debate.domain.dtos.bull_bear_argument import BearArgument
from debate.domain.dtos.debate_input import DebateInput


class IBearAdvocateAgentPort(ABC):
    @abstractmethod
    async def advocate(self, input: DebateInput) -> BearArgument:
        """Build the bear case from ``input``."""
