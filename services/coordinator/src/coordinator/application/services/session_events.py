"""The events a research's progress is told as (their data as JSON): what a subscriber of the session's event
stream reads."""

from __future__ import annotations

from typing import Any

from coordinator.domain.model.events import NewEvent
from coordinator.domain.model.progress import ExpertFinished, ExpertStarted, Progress, StageFinished, StageStarted
from coordinator.domain.model.session import ExpertOutcome, StageOutcome
from shared_contracts.projection import ProjectionError, data_quality_of_result, summarize_expert_result


def event_of(progress: Progress) -> NewEvent | None:
    """The event a stage's progress is told as; None for the final result (the terminal event tells it)."""
    if isinstance(progress, ExpertStarted):
        return NewEvent("expert.started", {"expert": progress.expert})
    if isinstance(progress, ExpertFinished):
        return expert_event(progress.expert, progress.outcome)
    if isinstance(progress, StageStarted):
        return NewEvent(f"{progress.stage}.started", {})
    if isinstance(progress, StageFinished):
        return stage_event(progress.stage, progress.outcome)
    return None


def expert_event(expert: str, outcome: ExpertOutcome) -> NewEvent:
    timing = {"duration_ms": outcome.duration_ms, "attempts": outcome.attempts}
    if outcome.status != "success":
        code = outcome.failure.code if outcome.failure is not None else None
        return NewEvent("expert.failed", {"expert": expert, "code": code, "message": outcome.error, **timing})
    data = outcome.data or {}
    try:
        summary = summarize_expert_result(expert, data)
        quality = data_quality_of_result(expert, data)
    except ProjectionError:
        summary = quality = None
    return NewEvent(
        "expert.completed",
        {
            "expert": expert,
            "signal": summary.signal if summary is not None else None,
            "confidence": summary.confidence if summary is not None else None,
            "as_of": data.get("as_of"),
            "data_gaps": quality.data_gaps if quality is not None else 0,
            **timing,
        },
    )


def stage_event(stage: str, outcome: StageOutcome) -> NewEvent:
    """``debate.completed`` (direction, confidence) / ``verdict.completed`` (action, position, stop, target,
    horizon), ``….failed`` (message) or ``….skipped``."""
    timing = {"duration_ms": outcome.duration_ms}
    if outcome.status == "skipped":
        return NewEvent(f"{stage}.skipped", {})
    if outcome.status != "success":
        return NewEvent(f"{stage}.failed", {"message": outcome.error, **timing})
    data: dict[str, Any] = outcome.data or {}
    if stage == "debate":
        return NewEvent(
            "debate.completed", {"direction": data.get("direction"), "confidence": data.get("confidence"), **timing}
        )
    return NewEvent(
        "verdict.completed",
        {
            "action": data.get("action"),
            "position": data.get("position_percent"),
            "stop": data.get("stop_loss"),
            "target": data.get("take_profit"),
            "horizon": data.get("time_horizon"),
            **timing,
        },
    )
