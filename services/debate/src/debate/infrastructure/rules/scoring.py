"""The rules engine's numbers, in one place (documented in services/debate/README.md).

- Strength / level of a confidence c:   HIGH if c ≥ 0.70, MEDIUM if c ≥ 0.40, else LOW.
- Weight of an argument point:           its confidence; without one, HIGH 0.80 / MEDIUM 0.55 / LOW 0.30.
- Net score s = (Σ bull weights − Σ bear weights) / n, n = every expert considered (neutral ones dilute).
- Direction: BULLISH if s ≥ +0.20, BEARISH if s ≤ −0.20, else NEUTRAL.
- Confidence: |s| (capped at 1) for BULLISH/BEARISH; 0.5 × (1 − |s| / 0.20) for NEUTRAL.
- A risk's probability: the level of the strongest belief in it among the experts who warned of it —
  a bearish expert believes it with its confidence c, a bullish one with 1 − c, a neutral one with 0.5.
- A risk's impact: the level of the highest confidence among those experts (0.5 when unknown).
"""

from __future__ import annotations

import re

from debate.domain.model.enums import ArgumentStrength, DebateDirection, RiskLevel

HIGH_AT = 0.70
MEDIUM_AT = 0.40
DIRECTION_THRESHOLD = 0.20
NEUTRAL_CONFIDENCE_CAP = 0.5
UNKNOWN_CONFIDENCE = 0.5
STRENGTH_WEIGHT: dict[ArgumentStrength, float] = {
    ArgumentStrength.HIGH: 0.80,
    ArgumentStrength.MEDIUM: 0.55,
    ArgumentStrength.LOW: 0.30,
}
EVIDENCE_CHARS = 400
SNIPPET_CHARS = 80
MAX_RISKS_PER_EXPERT = 5
MAX_DISAGREEMENTS = 6


def strength_of(confidence: float) -> ArgumentStrength:
    if confidence >= HIGH_AT:
        return ArgumentStrength.HIGH
    if confidence >= MEDIUM_AT:
        return ArgumentStrength.MEDIUM
    return ArgumentStrength.LOW


def risk_level_of(value: float) -> RiskLevel:
    return RiskLevel(strength_of(value).value)


def direction_of(score: float) -> DebateDirection:
    if score >= DIRECTION_THRESHOLD:
        return DebateDirection.BULLISH
    if score <= -DIRECTION_THRESHOLD:
        return DebateDirection.BEARISH
    return DebateDirection.NEUTRAL


def confidence_of(direction: DebateDirection, score: float) -> float:
    if direction is DebateDirection.NEUTRAL:
        value = NEUTRAL_CONFIDENCE_CAP * (1 - abs(score) / DIRECTION_THRESHOLD)
    else:
        value = abs(score)
    return round(min(1.0, max(0.0, value)), 2)


def fmt(value: float) -> str:
    """Numbers as they appear in texts: two decimals."""
    return f"{value:.2f}"


def snippet(text: str, max_chars: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= max_chars else flat[: max_chars - 1] + "…"


# The projection joins listed risks with "; "; the experts' Chinese texts join theirs with "；".
_RISK_SEPARATOR = re.compile(r";\s+|；")


def split_risks(risk_warning: str) -> list[str]:
    """An expert's warning as separate risks, whatever the language it was written in."""
    parts = [part.strip() for part in _RISK_SEPARATOR.split(risk_warning)]
    return [part for part in parts if part][:MAX_RISKS_PER_EXPERT]
