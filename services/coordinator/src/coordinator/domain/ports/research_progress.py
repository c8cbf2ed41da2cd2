"""Told as each stage of a research finishes, so that it can be committed at once."""

from __future__ import annotations

from abc import ABC, abstractmethod

from coordinator.domain.model.session import ExpertOutcome, StageOutcome


class IResearchProgressListener(ABC):
    @abstractmethod
    async def on_expert_finished(self, expert: str, outcome: ExpertOutcome) -> None: ...

    @abstractmethod
    async def on_debate_finished(self, stage: StageOutcome) -> None: ...

    @abstractmethod
    async def on_verdict_finished(self, stage: StageOutcome) -> None: ...
