from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from service_kit.llm.json_output import (
    MAX_FIELD_CHARS,
    MAX_LIST_ITEMS,
    MAX_OUTPUT_CHARS,
    extract_json_object,
    parse_model_output,
)
from shared_contracts.errors import LLMOutputParseError


class Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    signal: Literal["BULLISH", "BEARISH", "NEUTRAL"]
    confidence: float = Field(ge=0, le=1, allow_inf_nan=False)


def test_bare_json() -> None:
    assert extract_json_object('{"a": 1}') == {"a": 1}


def test_fenced_json_with_prose() -> None:
    text = 'Here is my answer:\n```json\n{"signal": "BULLISH", "confidence": 0.7}\n```\nThanks.'
    assert parse_model_output(text, Answer) == Answer(signal="BULLISH", confidence=0.7)


def test_object_wrapped_in_prose_without_fence() -> None:
    assert extract_json_object('Sure! {"a": {"b": 2}} hope it helps') == {"a": {"b": 2}}


@pytest.mark.parametrize(
    "text",
    ['{"signal": "BULLISH", "confidence": 0.7', "I think it is bullish", "", "[1, 2]", '"just a string"'],
)
def test_not_an_object_raises_with_raw_output(text: str) -> None:
    with pytest.raises(LLMOutputParseError) as info:
        extract_json_object(text)
    assert info.value.raw_output == text
    assert info.value.code == "llm_output_invalid"


def test_nan_is_rejected() -> None:
    with pytest.raises(LLMOutputParseError):
        parse_model_output('{"signal": "BULLISH", "confidence": NaN}', Answer)


@pytest.mark.parametrize(
    ("payload", "field"),
    [('{"signal": "UP", "confidence": 0.5}', "signal"), ('{"signal": "BULLISH", "confidence": 1.5}', "confidence")],
)
def test_validation_errors_name_the_field(payload: str, field: str) -> None:
    with pytest.raises(LLMOutputParseError, match=field):
        parse_model_output(payload, Answer)


def test_extra_keys_follow_the_model_config() -> None:
    assert parse_model_output('{"signal": "NEUTRAL", "confidence": 0.1, "mood": "calm"}', Answer).signal == "NEUTRAL"


@pytest.mark.parametrize("confidence", ["true", "false", "[0.7]", '"high"', '"0.7abc"'])
def test_a_value_of_another_json_type_is_not_coerced(confidence: str) -> None:
    with pytest.raises(LLMOutputParseError, match="confidence: Input should be a valid number"):
        parse_model_output(f'{{"signal": "BULLISH", "confidence": {confidence}}}', Answer)


def test_a_number_written_as_a_string_is_read_as_the_number_and_still_checked() -> None:
    assert parse_model_output('{"signal": "BULLISH", "confidence": "0.7"}', Answer).confidence == 0.7
    with pytest.raises(LLMOutputParseError, match="confidence: Input should be less than or equal to 1"):
        parse_model_output('{"signal": "BULLISH", "confidence": "5"}', Answer)


def test_an_output_too_large_for_any_answer_is_refused_before_it_is_parsed() -> None:
    """A valid answer with a 2 MB extra key would be stored and echoed whole (extra keys are ignored)."""
    text = '{"signal": "BULLISH", "confidence": 0.7, "junk": "' + "x" * MAX_OUTPUT_CHARS + '"}'
    with pytest.raises(
        LLMOutputParseError, match=rf"is {len(text)} characters, more than the {MAX_OUTPUT_CHARS}"
    ) as info:
        parse_model_output(text, Answer)
    assert info.value.raw_output == text  # the services keep its first 1000 characters
    fitting = '{"signal": "BULLISH", "confidence": 0.7, "note": "' + "x" * 3_000 + '"}'
    assert parse_model_output(fitting, Answer) == Answer(signal="BULLISH", confidence=0.7)


def test_every_text_and_list_of_an_answer_has_a_size_limit_whatever_the_contract() -> None:
    class Loose(BaseModel):
        reasoning: str
        notes: list[str] = []

    assert parse_model_output(json.dumps({"reasoning": "x" * MAX_FIELD_CHARS}), Loose).reasoning
    with pytest.raises(LLMOutputParseError, match=r"reasoning is 4001 characters, more than 4000"):
        parse_model_output(json.dumps({"reasoning": "x" * (MAX_FIELD_CHARS + 1)}), Loose)
    with pytest.raises(LLMOutputParseError, match=r"notes\.3 is"):
        parse_model_output(json.dumps({"reasoning": "r", "notes": ["a", "b", "c", "x" * 5000]}), Loose)
    with pytest.raises(LLMOutputParseError, match=r"notes has 51 entries"):
        parse_model_output(json.dumps({"reasoning": "r", "notes": ["a"] * (MAX_LIST_ITEMS + 1)}), Loose)
