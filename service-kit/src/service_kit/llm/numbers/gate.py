"""The numbers gate shared by every LLM-backed agent: the free-text fields of a parsed answer are cleared of
markup, their figures traced to the call's input (``tracing.py``), and the untraceable ones handled by
``LLM_NUMBERS_POLICY``:

- ``repair`` (default): one more model call names the untraceable figures and asks for the texts without them;
  only the texts of that second answer are taken (its structured values are ignored); what is still
  untraceable is then marked;
- ``mark``: each untraceable figure is followed by ``⟨unverified⟩`` in its text and listed;
- ``reject``: ``LLMOutputParseError`` (500 ``llm_output_invalid``) naming the figures.

Example::

    gate = NumbersGate("repair")
    answer, check = await gate.review(answer, sources_from([system, user]), ask_again)
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from types import UnionType
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from service_kit.llm.numbers.claims import Claim, Role, extract_claims
from service_kit.llm.numbers.sources import Sources
from service_kit.llm.numbers.tracing import traces
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.numbers_check import NumbersCheck, UnverifiedFigure

NumbersPolicy = Literal["repair", "mark", "reject"]
MARK = "⟨unverified⟩"
REPAIR_HEADER = "NUMBERS CHECK"
M = TypeVar("M", bound=BaseModel)
Levels = Mapping[Role, Sequence[float]]

_TAG = re.compile(r"</?[A-Za-z][^<>]{0,500}>|<!--.*?-->", re.DOTALL)
_MD_LINK = re.compile(r"!?\[([^\]\n]{0,300})\]\([^)\n]{0,500}\)")
_SCHEME = re.compile(r"\b(?:javascript|data|vbscript):", re.IGNORECASE)
_TAG_OPENER = re.compile(r"<(?=[A-Za-z/!?])")
_MAX_PASSES = 16


def plain_text(text: str) -> str:
    """The text without markup a client could render: HTML tags and comments, markdown links and images
    (their words kept), script URL schemes — removed until nothing is left to remove (``<scr<script>ipt>`` does
    not become ``<script>``). A ``<`` that would still open a tag (one left unclosed, over-long or nested deeper
    than the passes) is followed by a space, which no HTML parser reads as a tag."""
    for _ in range(_MAX_PASSES):
        stripped = _SCHEME.sub("", _TAG.sub("", _MD_LINK.sub(lambda m: m.group(1), text)))
        if stripped == text:
            break
        text = stripped
    return _TAG_OPENER.sub("< ", text)


def _is_choice(annotation: Any) -> bool:
    """A field that holds one of a fixed set of values (a Literal, an Enum), not free text."""
    if get_origin(annotation) is Literal or (isinstance(annotation, type) and issubclass(annotation, Enum)):
        return True
    if get_origin(annotation) in (Union, UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        return bool(options) and all(_is_choice(a) for a in options)
    return False


def answer_texts(answer: BaseModel) -> dict[str, str]:
    """Every free-text string of the answer by its path (``risk_factors[1]``, ``dimension_analyses[0].comment``):
    not the fields that hold a choice (Literal, Enum), nor excluded fields."""
    found: dict[str, str] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, BaseModel):
            for name, info in type(value).model_fields.items():
                if not info.exclude and not _is_choice(info.annotation):
                    walk(getattr(value, name), f"{path}.{name}" if path else name)
        elif isinstance(value, Enum):
            return
        elif isinstance(value, str):
            found[path] = value
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")

    walk(answer, "")
    return found


def with_texts(answer: M, texts: Mapping[str, str]) -> M:
    """The same answer with the strings at ``texts``' paths replaced (validated again). A text its field no longer
    accepts (a marked date, a summary at its length cap) stays as the answer had it; its figures stay listed."""
    data = answer.model_dump(mode="json")
    for path, text in texts.items():
        _set(data, path, text)
    try:
        return type(answer).model_validate(data)
    except ValidationError as exc:
        refused = {_path(error["loc"]) for error in exc.errors()}
        original = answer_texts(answer)
        kept = {path: original.get(path, text) if path in refused else text for path, text in texts.items()}
        data = answer.model_dump(mode="json")
        for path, text in kept.items():
            _set(data, path, text)
        return type(answer).model_validate(data)


def _path(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def _set(data: Any, path: str, text: str) -> None:
    parts = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    target = data
    for part in parts[:-1]:
        target = target[int(part[1:-1])] if part.startswith("[") else target[part]
    last = parts[-1]
    if last.startswith("["):
        target[int(last[1:-1])] = text
    else:
        target[last] = text


@dataclass(frozen=True)
class Findings:
    checked: int
    unverified: list[Claim]

    def figures(self) -> list[UnverifiedFigure]:
        return [UnverifiedFigure(field=c.field, text=c.text, value=c.value) for c in self.unverified]


def check_texts(texts: Mapping[str, str], sources: Sources, levels: Levels | None = None) -> Findings:
    """The claims of every text (windows aside) and those that do not trace."""
    checked, unverified = 0, []
    for field, text in texts.items():
        for claim in extract_claims(field, text):
            if claim.kind == "window":
                continue
            checked += 1
            if not traces(claim, sources, levels):
                unverified.append(claim)
    return Findings(checked, unverified)


def mark_texts(texts: Mapping[str, str], unverified: Sequence[Claim]) -> dict[str, str]:
    """The texts with ``MARK`` after each untraceable figure."""
    marked = dict(texts)
    for claim in sorted(unverified, key=lambda c: c.end, reverse=True):
        text = marked[claim.field]
        marked[claim.field] = f"{text[: claim.end]}{MARK}{text[claim.end :]}"
    return marked


def describe(figures: Sequence[UnverifiedFigure]) -> str:
    return "; ".join(f"{f.field}: {f.text!r}" for f in figures)


def repair_instruction(answer: BaseModel, figures: Sequence[UnverifiedFigure]) -> str:
    """What the second model call is asked: the same JSON answer, its texts without the listed figures."""
    listed = "\n".join(f"- {f.field}: {f.text}" for f in figures)
    previous = json.dumps(answer.model_dump(mode="json"), ensure_ascii=False)
    return (
        f"\n\n## {REPAIR_HEADER}\nYour previous answer wrote figures that are not in the data you were given:\n"
        f"{listed}\nAnswer again with the same JSON object and the same decisions. In its text fields, leave "
        "these figures out, or copy the figure exactly as the data gives it. Do not add new figures.\n"
        f"Previous answer:\n{previous}"
    )


class NumbersGate:
    def __init__(self, policy: NumbersPolicy = "repair") -> None:
        self.policy = policy

    async def review(
        self,
        answer: M,
        sources: Sources,
        ask_again: Callable[[str], Awaitable[M]],
        levels: Levels | None = None,
    ) -> tuple[M, NumbersCheck]:
        """The answer as the policy leaves it and its ``NumbersCheck``. ``ask_again(instruction)`` makes the
        repair call: the same prompt with ``instruction`` appended, parsed into the same model."""
        texts = {path: plain_text(text) for path, text in answer_texts(answer).items()}
        findings = check_texts(texts, sources, levels)
        repaired = False
        if findings.unverified and self.policy == "reject":
            figures = findings.figures()
            raise LLMOutputParseError(
                f"the model's answer holds {len(figures)} figure(s) not in its input: {describe(figures)}",
                raw_output=json.dumps(answer.model_dump(mode="json"), ensure_ascii=False),
            )
        if findings.unverified and self.policy == "repair":
            second = await ask_again(repair_instruction(answer, findings.figures()))
            again = {path: plain_text(text) for path, text in answer_texts(second).items()}
            texts = {path: again.get(path, text) for path, text in texts.items()}
            findings = check_texts(texts, sources, levels)
            repaired = True
        if findings.unverified:
            texts = mark_texts(texts, findings.unverified)
        check = NumbersCheck(
            checked=findings.checked,
            traced=findings.checked - len(findings.unverified),
            unverified=findings.figures(),
            repaired=repaired,
        )
        return with_texts(answer, texts), check
