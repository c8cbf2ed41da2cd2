"""DebateOutcomeDTO: direction and confidence stay within their ranges, wherever they come from."""

from __future__ import annotations

import pytest
from debate_fakes import bear_argument, bull_argument, resolution_result
from pydantic import ValidationError

from debate.application.dtos.debate_outcome_dto import DebateOutcomeDTO, build_outcome
from debate.domain.dtos.risk_matrix import ResolutionResult
from debate.domain.model.enums import DebateDirection
from shared_contracts.engine import EngineInfo


@pytest.mark.parametrize("direction", list(DebateDirection))
def test_every_resolution_direction_maps_to_one_of_the_three_words(direction: DebateDirection) -> None:
    outcome = build_outcome(
        "AAPL", bull_argument(), bear_argument(), resolution_result(direction), EngineInfo(kind="rules")
    )
    assert outcome.direction in {"BULLISH", "BEARISH", "NEUTRAL"}
    assert outcome.direction == direction.value


@pytest.mark.parametrize("direction", ["UP", "bullish ", "BUY", ""])
def test_direction_outside_the_three_words_is_refused(direction: str) -> None:
    with pytest.raises(ValidationError):
        ResolutionResult.model_validate({**resolution_result().model_dump(), "direction": direction})
    outcome = build_outcome("AAPL", bull_argument(), bear_argument(), resolution_result(), EngineInfo(kind="rules"))
    with pytest.raises(ValidationError):
        DebateOutcomeDTO.model_validate({**outcome.model_dump(), "direction": direction})


@pytest.mark.parametrize("confidence", [0.0, 0.5, 1.0])
def test_confidence_between_zero_and_one_is_kept(confidence: float) -> None:
    resolution = resolution_result(confidence=confidence)
    outcome = build_outcome("AAPL", bull_argument(), bear_argument(), resolution, EngineInfo(kind="rules"))
    assert outcome.confidence == confidence
    assert isinstance(outcome.confidence, float)


@pytest.mark.parametrize("confidence", [-0.01, 1.01, 1.5, float("nan"), float("inf")])
def test_confidence_outside_zero_one_is_refused(confidence: float) -> None:
    with pytest.raises(ValidationError):
        ResolutionResult.model_validate({**resolution_result().model_dump(), "confidence": confidence})
    outcome = build_outcome("AAPL", bull_argument(), bear_argument(), resolution_result(), EngineInfo(kind="rules"))
    with pytest.raises(ValidationError):
        DebateOutcomeDTO.model_validate({**outcome.model_dump(), "confidence": confidence})
