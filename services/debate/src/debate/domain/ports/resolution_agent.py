"""Port of the resolution: cross-examines both cases and settles the conflict."""

from __future__ import annotations

from abc import ABC, abstractmethod

from debate.domain.dtos.bull_bear_argument import BearArgument, BullArgument
from debate.domain.dtos.risk_matrix import ResolutionResult


class IResolutionAgentPort(ABC):
    @abstractmethod
    async def resolve(self, symbol: str, bull: BullArgument, bear: BearArgument) -> ResolutionResult:
        """Weigh ``bull`` against ``bear`` and return the direction, confidence, risks and reasoning."""
