"""Commits each stage of a research to its session as soon as the orchestrator reports it."""

from __future__ import annotations

from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from coordinator.domain.ports.research_progress import IResearchProgressListener
from coordinator.domain.ports.session_repository import ISessionRepository


class SessionProgressRecorder(IResearchProgressListener):
    def __init__(self, sessions: ISessionRepository, session_id: str) -> None:
        self._sessions = sessions
        self._session_id = session_id

    async def on_expert_finished(self, expert: str, outcome: ExpertOutcome) -> None:
        await self._sessions.record_expert(self._session_id, expert, outcome)

    async def on_debate_finished(self, stage: StageOutcome) -> None:
        await self._sessions.record_debate(self._session_id, stage)

    async def on_verdict_finished(self, stage: StageOutcome) -> None:
        await self._sessions.record_verdict(self._session_id, stage)
