"""The rules engine's numbers, in one place (documented in services/debate/README.md, "Rules engine").

- Level (strength, probability, impact) of c:   HIGH if c ≥ 0.70, MEDIUM if c ≥ 0.40, else LOW.
- Evidence weight of an expert:          w = confidence × coverage (coverage: ``debate.domain.dtos.evidence``);
                                         an argument without an expert's confidence: HIGH 0.80 / MEDIUM 0.55 / LOW 0.30.
- B, R, U = Σ w of the bullish, bearish and neutral experts; market-wide experts (macro) do not vote on a
  stock's direction (issue 35): they are argued, not counted.
- Balance S = (B − R) / (B + R + λ·U), λ = NEUTRAL_DILUTION = 0.15 (0 when the denominator is 0): neutral
  evidence tempers the balance, it does not cancel aligned evidence.
- Strength P of the leading side (bullish if B ≥ R, else bearish), its weights in descending order:
  P = w₁, then P ← P + β·wⱼ·(1 − P) for each further one, β = CORROBORATION = 0.5 (agreeing experts
  corroborate each other, at half the weight of independent evidence); 0 without any.
- Net score C = S × P.  Direction: BULLISH if C ≥ +0.20, BEARISH if C ≤ −0.20, else NEUTRAL.
- Missing-evidence factor F = 1 − MISSING_EXPERT_PENALTY × failed / (answered + failed), penalty 0.5.
- Confidence: |C| × F for BULLISH/BEARISH; 0.5 × (1 − |C| / 0.20) × F for NEUTRAL. Failed experts never
  change the direction and F ≤ 1, so they can only lower the confidence.
- A risk's probability: the level of the strongest belief in it among the experts who warned of it —
  a bearish expert believes it with its confidence c, a bullish one with 1 − c, a neutral one with 0.5.
- A risk's impact: the level of the highest confidence among those experts (0.5 for a neutral or unknown one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from debate.domain.dtos.evidence import EvidencePanel
from debate.domain.model.enums import ArgumentStrength, DebateDirection, RiskLevel
from shared_contracts.experts import Signal
from shared_contracts.text import is_no_risk_statement, shorten

HIGH_AT = 0.70
MEDIUM_AT = 0.40
DIRECTION_THRESHOLD = 0.20  # |net score| at which the debate takes a side
NEUTRAL_DILUTION = 0.15  # λ
CORROBORATION = 0.50  # β
MISSING_EXPERT_PENALTY = 0.50
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


@dataclass(frozen=True)
class Weighing:
    """Every number of the resolution's formula, for the verdict and its explanation."""

    bull: float
    bear: float
    neutral: float
    balance: float
    leading: Signal
    strength: float
    score: float
    missing_factor: float
    direction: DebateDirection
    confidence: float


def corroborated(weights: Iterable[float]) -> float:
    strength = 0.0
    for i, weight in enumerate(sorted(weights, reverse=True)):
        strength = weight if i == 0 else strength + CORROBORATION * weight * (1.0 - strength)
    return round(strength, 6)


def missing_factor(answered: int, failed: int) -> float:
    asked = answered + failed
    return round(1.0 - MISSING_EXPERT_PENALTY * failed / asked, 6) if asked else 1.0


MARKET_WIDE_EXPERTS = frozenset({"macro_intelligence"})
"""Experts whose view is the same for every stock (no symbol input): they scale exposure in the judge and never
vote on a stock's direction (issue 35)."""


def weigh(panel: EvidencePanel) -> Weighing:
    voting = [e for name, e in panel.experts.items() if name not in MARKET_WIDE_EXPERTS]
    by_stance = {stance: [e.weight for e in voting if e.stance is stance] for stance in Signal}
    bull, bear, neutral = (round(sum(by_stance[s]), 6) for s in (Signal.BULLISH, Signal.BEARISH, Signal.NEUTRAL))
    denominator = bull + bear + NEUTRAL_DILUTION * neutral
    balance = round((bull - bear) / denominator, 6) if denominator > 0 else 0.0
    leading = Signal.BULLISH if bull >= bear else Signal.BEARISH
    strength = corroborated(by_stance[leading])
    score = round(balance * strength, 6)
    factor = missing_factor(len(panel.experts), len(panel.failed_experts))
    if abs(score) < DIRECTION_THRESHOLD:
        direction, confidence = Signal.NEUTRAL, NEUTRAL_CONFIDENCE_CAP * (1 - abs(score) / DIRECTION_THRESHOLD)
    else:
        direction, confidence = (Signal.BULLISH if score > 0 else Signal.BEARISH), abs(score)
    confidence = round(min(1.0, max(0.0, confidence * factor)), 2)
    return Weighing(bull, bear, neutral, balance, leading, strength, score, factor, direction, confidence)


def level_of(confidence: float) -> RiskLevel:
    """An argument's strength, or a risk's probability or impact."""
    if confidence >= HIGH_AT:
        return RiskLevel.HIGH
    if confidence >= MEDIUM_AT:
        return RiskLevel.MEDIUM
    return RiskLevel.LOW


def fmt(value: float) -> str:
    """Numbers as they appear in texts: two decimals."""
    return f"{value:.2f}"


def snippet(text: str, max_chars: int) -> str:
    """``text`` shortened at a clause boundary (``shared_contracts.text.shorten``)."""
    return shorten(text, max_chars)


# The projection joins listed risks with "; "; the experts' Chinese texts join theirs with "；".
_RISK_SEPARATOR = re.compile(r";\s+|；")


def split_risks(risk_warning: str) -> list[str]:
    """An expert's warning as separate risks, whatever the language it was written in."""
    parts = [part.strip() for part in _RISK_SEPARATOR.split(risk_warning)]
    return [part for part in parts if part and not is_no_risk_statement(part)][:MAX_RISKS_PER_EXPERT]
