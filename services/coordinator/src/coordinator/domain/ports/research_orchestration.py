"""Runs a validated research request end to end: experts in parallel, then debate, then judge."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator

from coordinator.domain.dtos.research_dtos import ResearchRequest, ResearchResult
from coordinator.domain.exceptions import ResumeUnavailableError
from coordinator.domain.model.progress import Progress, ResearchFinished


class IResearchOrchestrationPort(ABC):
    @abstractmethod
    def stream(
        self, request: ResearchRequest, *, run_id: str | None = None, resume: bool = False
    ) -> AsyncGenerator[Progress]:
        """Run the research, yielding each stage as it starts and ends (stages that do not run end ``skipped``)
        and, last, ``ResearchFinished``. What ``request`` carries from a retry's source (results, debate outcome)
        is used but not reported: the caller stores it.

        ``run_id`` names the run in the durable checkpoint store (the session id); with ``resume`` the run
        continues from its last checkpoint (what had finished is not run again) and raises
        ``ResumeUnavailableError`` when there is none."""

    async def forget(self, run_id: str) -> None:
        """Drop what is kept to resume run ``run_id`` (it has ended). Nothing is kept by default."""
        return None

    async def run(self, request: ResearchRequest) -> ResearchResult:
        """The research's result, its progress ignored."""
        async for progress in self.stream(request):
            if isinstance(progress, ResearchFinished):
                return progress.result
        raise ResumeUnavailableError("the research ended without a result")
