"""How the coordinator asks one research expert for its analysis."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from coordinator.domain.model.enums import ExpertType


@dataclass(frozen=True)
class ExpertRun:
    """An expert's result and how many attempts (calls) it took to get it."""

    data: dict[str, Any]
    attempts: int = 1


class IResearchExpertGateway(ABC):
    @abstractmethod
    async def run_expert(
        self,
        expert_type: ExpertType,
        symbol: str,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one expert and return its result. Raises ``GatewayError`` (with ``attempts``) on failure."""

    async def run_expert_detailed(
        self,
        expert_type: ExpertType,
        symbol: str,
        options: dict[str, Any] | None = None,
    ) -> ExpertRun:
        """``run_expert`` plus the number of attempts; gateways that retry override it."""
        return ExpertRun(await self.run_expert(expert_type, symbol, options))
