"""The request body (``shared_contracts.judge.JudgeInput``) as the domain's ``JudgeInput``: the same fields, the
symbol in its canonical form and the direction as the domain's enum. The response needs no mapping: the service's
``VerdictDTO`` is the published ``Verdict``."""

from __future__ import annotations

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.model.enums import Direction
from shared_contracts import judge as wire
from shared_contracts.symbols import canonical_symbol


def to_judge_input(body: wire.JudgeInput) -> JudgeInput:
    return JudgeInput(
        **{
            **dict(body),
            "symbol": canonical_symbol(body.symbol),
            "direction": Direction(body.direction),
            "key_levels": body.key_levels or wire.KeyLevels(),
        }
    )
