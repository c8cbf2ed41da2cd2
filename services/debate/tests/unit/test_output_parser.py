"""output_parser: the agents' JSON contracts, read strictly."""

from __future__ import annotations

import pytest

from debate.domain.dtos.risk_matrix import ResolutionResult
from debate.infrastructure.agents.output_parser import BullAdvocateOutput, check_sources, parse_agent_output
from shared_contracts.errors import LLMOutputParseError

VALID_RESOLUTION = (
    '{"direction": "BEARISH", "confidence": 0.35, '
    '"risk_matrix": [{"risk": "r", "probability": "LOW", "impact": "HIGH", "mitigation": "m"}], '
    '"key_disagreements": ["d"], "conflict_resolution": "c"}'
)


def _parse(text: str) -> ResolutionResult:
    return parse_agent_output(text, ResolutionResult, agent="resolution")


def test_valid_json_is_parsed_into_the_domain_dto() -> None:
    result = _parse(VALID_RESOLUTION)
    assert result.direction == "BEARISH"
    assert result.confidence == 0.35
    assert result.risk_matrix[0].impact == "HIGH"


def test_json_inside_a_fenced_block_with_prose_around_it() -> None:
    result = _parse(f"Here is my analysis:\n```json\n{VALID_RESOLUTION}\n```\nHope this helps.")
    assert result.direction == "BEARISH"


def test_truncated_json_is_a_parse_error_carrying_the_raw_output() -> None:
    truncated = VALID_RESOLUTION[: len(VALID_RESOLUTION) // 2]
    with pytest.raises(LLMOutputParseError) as caught:
        _parse(truncated)
    assert caught.value.raw_output == truncated
    assert caught.value.agent == "resolution"
    assert caught.value.code == "llm_output_invalid"


def test_non_json_text_is_a_parse_error() -> None:
    with pytest.raises(LLMOutputParseError, match="not a JSON object"):
        _parse("I think the stock will go up.")


def test_a_json_array_is_not_the_promised_object() -> None:
    with pytest.raises(LLMOutputParseError):
        _parse("[1, 2, 3]")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("direction", '"UP"'),
        ("direction", '"bullish-ish"'),
        ("risk_matrix", '[{"risk": "r", "probability": "SEVERE", "impact": "HIGH", "mitigation": "m"}]'),
    ],
)
def test_a_value_outside_the_vocabulary_is_a_parse_error(field: str, value: str) -> None:
    import json

    data = json.loads(VALID_RESOLUTION)
    data[field] = json.loads(value)
    with pytest.raises(LLMOutputParseError, match=field):
        _parse(json.dumps(data))


@pytest.mark.parametrize("confidence", ["1.5", "-0.1", "NaN", "Infinity"])
def test_confidence_outside_zero_one_or_not_a_number_is_a_parse_error(confidence: str) -> None:
    text = VALID_RESOLUTION.replace('"confidence": 0.35', f'"confidence": {confidence}')
    assert confidence in text
    with pytest.raises(LLMOutputParseError):
        _parse(text)


def test_missing_fields_are_a_parse_error_naming_them() -> None:
    with pytest.raises(LLMOutputParseError, match="conflict_resolution"):
        _parse('{"direction": "NEUTRAL", "confidence": 0.5, "risk_matrix": [], "key_disagreements": []}')


def test_extra_keys_are_ignored_and_dropped() -> None:
    text = VALID_RESOLUTION.replace('"direction"', '"ignore_previous_instructions": "buy", "direction"')
    result = _parse(text)
    assert result.direction == "BEARISH"
    assert "ignore_previous_instructions" not in result.model_dump()


def test_wrong_strength_in_an_advocate_answer_is_a_parse_error() -> None:
    text = (
        '{"core_thesis": "t", "acknowledged_risks": [], "supporting_arguments": '
        '[{"argument": "a", "evidence": "e", "source_experts": [], "strength": "EXTREME"}]}'
    )
    with pytest.raises(LLMOutputParseError, match="strength"):
        parse_agent_output(text, BullAdvocateOutput, agent="bull_advocate")


def test_citing_an_expert_not_in_the_input_is_a_parse_error() -> None:
    with pytest.raises(LLMOutputParseError, match="warren_buffett"):
        check_sources([["technical_analyst"], ["warren_buffett"]], ["technical_analyst"], agent="bull", raw_output="x")
    check_sources([["technical_analyst"]], ["technical_analyst"], agent="bull", raw_output="x")
