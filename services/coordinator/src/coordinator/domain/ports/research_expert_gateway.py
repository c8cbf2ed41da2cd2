"""How the coordinator asks one research expert for its analysis."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import date
from typing import Any

from coordinator.domain.model.enums import ExpertType


@dataclass(frozen=True)
class ExpertRun:
    """An expert's result and how many attempts (calls) it took to get it."""

    data: dict[str, Any]
    attempts: int = 1


class ExpertOptions(dict[str, Any]):
    """What the graph hands ``run_expert`` as ``options``: the expert's own options (the dict's items) and
    the day the whole research is made as of (``analysis_date``, which is not one of them: a gateway sends it
    beside the options). A plain dict is still accepted by every gateway: then no date is given."""

    def __init__(self, options: dict[str, Any] | None = None, *, analysis_date: date | None = None) -> None:
        super().__init__(options or {})
        self.analysis_date = analysis_date

    def __repr__(self) -> str:
        return f"ExpertOptions({dict.__repr__(self)}, analysis_date={self.analysis_date!r})"


def analysis_date_of(options: dict[str, Any] | None) -> date | None:
    """The research's analysis date carried by ``options`` (an ``ExpertOptions``), else None."""
    return options.analysis_date if isinstance(options, ExpertOptions) else None


class IResearchExpertGateway(ABC):
    @abstractmethod
    async def run_expert(
        self,
        expert_type: ExpertType,
        symbol: str,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one expert and return its result. ``options`` may be an ``ExpertOptions`` carrying the
        research's analysis date. Raises ``GatewayError`` (with ``attempts``) on failure."""

    async def run_expert_detailed(
        self,
        expert_type: ExpertType,
        symbol: str,
        options: dict[str, Any] | None = None,
    ) -> ExpertRun:
        """``run_expert`` plus the number of attempts; gateways that retry override it."""
        return ExpertRun(await self.run_expert(expert_type, symbol, options))
