"""Read a JSON object out of model text (bare, fenced in ```json, or wrapped in prose) and validate it."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from shared_contracts.errors import LLMOutputParseError

M = TypeVar("M", bound=BaseModel)
MAX_OUTPUT_CHARS = 100_000
"""Every answer contract caps its texts and lists (the largest valid answer is a few kB): an output above this
is junk, refused before it is parsed, stored and echoed (what the model wrote is kept as an excerpt)."""
MAX_FIELD_CHARS = 4_000
"""Any one text of an answer (a reasoning, a thesis, a list item): the contracts' own caps are lower (2,000 for
an expert's summary); a longer one is refused whatever the contract says."""
MAX_LIST_ITEMS = 50
"""Any one list or object of an answer."""
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a valid JSON number")


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


def extract_json_object(text: str) -> dict[str, Any]:
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    last_error = "no JSON object found"
    for candidate in candidates:
        if not candidate:
            continue
        try:
            value = _loads(candidate)
        except ValueError as exc:
            last_error = str(exc)
            continue
        if isinstance(value, dict):
            return value
        last_error = f"expected a JSON object, got {type(value).__name__}"
    raise LLMOutputParseError(f"the model output is not a JSON object ({last_error})", raw_output=text)


def parse_model_output(text: str, model: type[M]) -> M:
    """Extract the JSON object and validate it against ``model``; LLMOutputParseError says what was wrong.

    JSON types are taken as they are (``true`` is not a confidence of 1.0), with one leniency models
    need: a number written as a string (``"0.7"``) is read as the number."""
    if len(text) > MAX_OUTPUT_CHARS:
        raise LLMOutputParseError(
            f"the model output is {len(text)} characters, more than the {MAX_OUTPUT_CHARS} any answer can take",
            raw_output=text,
        )
    data = extract_json_object(text)
    oversize = _first_oversize(data)
    if oversize is not None:
        raise LLMOutputParseError(f"the model output's {oversize}", raw_output=text)
    try:
        return model.model_validate_json(json.dumps(data), strict=True)
    except ValidationError as exc:
        wrong = [e for e in exc.errors() if not _is_quoted_number(e)]
        if not wrong:
            try:
                return model.model_validate(data)
            except ValidationError as lax:
                wrong = lax.errors()
    problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in wrong)
    raise LLMOutputParseError(f"the model output does not match {model.__name__} ({problems})", raw_output=text)


def _first_oversize(value: Any, where: str = "<root>") -> str | None:
    """Where the first text longer than ``MAX_FIELD_CHARS``, or list or object longer than ``MAX_LIST_ITEMS``,
    is in ``value``, said as the end of a sentence; None when every part is within them."""
    if isinstance(value, str):
        return (
            f"{where} is {len(value)} characters, more than {MAX_FIELD_CHARS}" if len(value) > MAX_FIELD_CHARS else None
        )
    if isinstance(value, dict | list) and len(value) > MAX_LIST_ITEMS:
        return f"{where} has {len(value)} entries, more than {MAX_LIST_ITEMS}"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _first_oversize(item, f"{where}.{key}" if where != "<root>" else str(key))
        if found is not None:
            return found
    return None


def _is_quoted_number(error: ErrorDetails) -> bool:
    if error["type"] not in ("float_type", "int_type") or not isinstance(error["input"], str):
        return False
    try:
        float(error["input"])
    except ValueError:
        return False
    return True
