"""What a running research reports, in the order it happens: each expert starting and finishing, the debate and
the verdict starting and finishing, and at the end the gathered result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from coordinator.domain.dtos.research_dtos import ResearchResult
from coordinator.domain.model.session import ExpertOutcome, StageOutcome

Stage = Literal["debate", "verdict"]


@dataclass(frozen=True)
class ExpertStarted:
    expert: str


@dataclass(frozen=True)
class ExpertFinished:
    expert: str
    outcome: ExpertOutcome


@dataclass(frozen=True)
class StageStarted:
    stage: Stage


@dataclass(frozen=True)
class StageFinished:
    """``outcome.status`` ``skipped``: the stage did not run (every expert failed, or the debate is skipped)."""

    stage: Stage
    outcome: StageOutcome


@dataclass(frozen=True)
class ResearchFinished:
    result: ResearchResult


Progress = ExpertStarted | ExpertFinished | StageStarted | StageFinished | ResearchFinished
