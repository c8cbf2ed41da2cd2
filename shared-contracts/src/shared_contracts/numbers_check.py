"""``numbers_check``: what the numbers gate found in an LLM answer's free text (every LLM-backed result carries
it; the coordinator rolls the stages' checks up per research).

- ``checked``: numeric claims found in the answer's free-text fields (counts and windows excluded);
- ``traced``: those traced to the figures the call was given (or to the answer's own structured levels);
- ``unverified``: the rest, each with the field it is in, the text as written and its value (after a repair,
  what the repaired answer still holds);
- ``repaired``: a second model call was made to take untraceable figures out (``LLM_NUMBERS_POLICY=repair``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field


class UnverifiedFigure(BaseModel):
    field: str = Field(description="Where the figure is, e.g. summary_reasoning or bull_case.core_thesis.")
    text: str = Field(description="The figure as the model wrote it, e.g. ¥1,820.5 or 35倍.")
    value: float | None = Field(
        description="Its value in base units (a percent as written, 亿 scaled); None for a date."
    )


class NumbersCheck(BaseModel):
    checked: int = Field(ge=0)
    traced: int = Field(ge=0)
    unverified: list[UnverifiedFigure] = Field(default_factory=list)
    repaired: bool = False

    def under(self, prefix: str) -> NumbersCheck:
        """The same check with every field named under ``prefix`` (``bull_case`` → ``bull_case.core_thesis``)."""
        moved = [figure.model_copy(update={"field": f"{prefix}.{figure.field}"}) for figure in self.unverified]
        return self.model_copy(update={"unverified": moved})


def combine_checks(checks: list[NumbersCheck | None]) -> NumbersCheck | None:
    """Several answers' checks as one (counts added, figures listed, repaired if any was); None if none given."""
    present = [check for check in checks if check is not None]
    if not present:
        return None
    return NumbersCheck(
        checked=sum(c.checked for c in present),
        traced=sum(c.traced for c in present),
        unverified=[figure for c in present for figure in c.unverified],
        repaired=any(c.repaired for c in present),
    )


class NumbersCheckRollup(BaseModel):
    """The ``numbers_check`` of every LLM stage of one research (experts by name, ``debate``, ``judge``) and
    their total, whose figures are named ``<stage>.<field>``."""

    total: NumbersCheck
    stages: dict[str, NumbersCheck]


def roll_up(stage_results: Mapping[str, Mapping[str, Any] | None]) -> NumbersCheckRollup | None:
    """The roll-up of the stages' results (as they are on the wire); None when no stage carries a check."""
    stages = {
        stage: NumbersCheck.model_validate(raw)
        for stage, result in stage_results.items()
        if result and (raw := result.get("numbers_check"))
    }
    total = combine_checks([check.under(stage) for stage, check in stages.items()])
    return NumbersCheckRollup(total=total, stages=stages) if total is not None else None
