"""Runs a validated research request end to end: experts in parallel, then debate, then judge."""

from __future__ import annotations

from abc import ABC, abstractmethod

from coordinator.domain.dtos.research_dtos import ResearchRequest, ResearchResult
from coordinator.domain.ports.research_progress import IResearchProgressListener


class IResearchOrchestrationPort(ABC):
    @abstractmethod
    async def run(self, request: ResearchRequest, listener: IResearchProgressListener | None = None) -> ResearchResult:
        """Run the research. ``listener`` is awaited as each expert, the debate and the judge finish
        (stages that do not run are reported ``skipped``). What ``request`` carries from a retry's
        source session (results, debate outcome) is used but not reported: the caller stores it."""
