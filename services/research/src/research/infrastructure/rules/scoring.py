"""The rules engines' common arithmetic (documented in the service README, "Rules engine").

Each rule scores one indicator in {-1, 0, +1} (None when its data is missing) with a weight.
  s        = Σ score·weight / Σ weight            over rules that had data   (in [-1, 1])
  coverage = Σ weight of rules with data / Σ weight of all rules
  direction: s ≥ +0.25 → positive, s ≤ -0.25 → negative, else neutral;
             neutral whatever s when coverage < 0.5 (too little data for a call)
  confidence = 0.35 + 0.55 · |s| · coverage       (0.35 … 0.90, two decimals)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from research.domain.model.verdicts import AgentAnswer
from shared_contracts.engine import EngineInfo
from shared_contracts.text import NO_SPECIFIC_RISK

Language = Literal["zh", "en"]
THRESHOLD = 0.25
MIN_COVERAGE = 0.5
T = TypeVar("T")
V = TypeVar("V", bound=BaseModel)


def tr(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh" else en


def joined(language: Language, parts: list[str]) -> str:
    return ("；" if language == "zh" else "; ").join(parts)


def num(value: float | None, digits: int = 2) -> str:
    """A figure as the narratives write it. The notes test for a missing figure and say so in their own words;
    should one slip through it reads "unknown", never a placeholder."""
    return "unknown" if value is None else f"{value:,.{digits}f}"


def no_risk_seen(language: Language) -> str:
    """What a risk field says when the rules saw no specific risk (``shared_contracts.text.NO_SPECIFIC_RISK``)."""
    return NO_SPECIFIC_RISK[language]


def rules_answer(verdict: V, facts: object, trace: dict[str, Any]) -> AgentAnswer[V]:
    """A rules engine's answer: its inputs are the facts, its output the trace."""
    return AgentAnswer(verdict, EngineInfo(kind="rules"), to_jsonable_python(facts, inf_nan_mode="null"), trace)


class RulesAgent:
    """A rules engine writing its narrative in ``language``."""

    def __init__(self, language: Language = "zh") -> None:
        self._lang = language


@dataclass(frozen=True)
class RuleResult:
    rule: str
    score: int | None
    weight: float
    note: str
    inputs: dict[str, Any]


@dataclass
class Scorecard:
    language: Language = "zh"
    rules: list[RuleResult] = field(default_factory=list)

    def add(self, rule: str, score: int | None, inputs: dict[str, Any], zh: str, en: str, weight: float = 1.0) -> None:
        """A scored rule; its note is ``zh`` or ``en`` by the card's language."""
        self.rules.append(RuleResult(rule, score, weight, tr(self.language, zh, en), inputs))

    @property
    def normalized(self) -> float:
        scored = [r for r in self.rules if r.score is not None]
        total = sum(r.weight for r in scored)
        return sum((r.score or 0) * r.weight for r in scored) / total if total else 0.0

    @property
    def coverage(self) -> float:
        total = sum(r.weight for r in self.rules)
        return sum(r.weight for r in self.rules if r.score is not None) / total if total else 0.0

    @property
    def direction(self) -> int:
        s = self.normalized
        if self.coverage < MIN_COVERAGE:
            return 0
        return 1 if s >= THRESHOLD else -1 if s <= -THRESHOLD else 0

    @property
    def confidence(self) -> float:
        return round(0.35 + 0.55 * abs(self.normalized) * self.coverage, 2)

    def pick(self, positive: T, negative: T, neutral: T) -> T:
        """What the direction reads as."""
        return {1: positive, -1: negative, 0: neutral}[self.direction]

    def summary(self, zh: str, en: str) -> str:
        """The head (``zh`` or ``en``), the rule score, then every rule's note."""
        s = self.normalized
        head = tr(self.language, f"{zh}（规则得分 {s:+.2f}）：", f"{en} (rule score {s:+.2f}): ")
        return head + joined(self.language, [r.note for r in self.rules if r.note])

    def answer(self, verdict: V, facts: object, caveats: list[str]) -> AgentAnswer[V]:
        """The verdict, with the trace (every rule, the arithmetic, ``caveats``: notes on the data)."""
        trace = {
            "rules": [
                {"rule": r.rule, "score": r.score, "weight": r.weight, "inputs": r.inputs, "note": r.note}
                for r in self.rules
            ],
            "normalized_score": round(self.normalized, 4),
            "coverage": round(self.coverage, 4),
            "direction": self.direction,
            "confidence": self.confidence,
            "formula": "s=Σscore·w/Σw (rules with data); ±0.25 thresholds, neutral below 0.5 coverage; "
            "confidence=0.35+0.55·|s|·coverage",
            "caveats": caveats,
        }
        return rules_answer(verdict, facts, trace)
