"""The verdict's confidence as the probability that its call is right, from the stock's standing.

What "right" means (docs/evaluation.md, "The verdict's confidence"):

- BUY / SELL: the trade the verdict describes — entered at the next open after the reference close, closed at its
  stop, its target or the end of its horizon, after the round-trip cost — ends with a positive return
  (``shared_contracts.scoring.score_trade(...).profitable``; a SELL is scored as the short it calls for, even
  where it is realised as exit/avoid);
- HOLD: the long trade it declined — entered at the next open, held 20 trading days — would not have made money
  after the round-trip cost (``shared_contracts.scoring.hold_right``).

The map is a monotone, piecewise-linear function of the standing's strength ``|2 × universe_rank − 1|``
(``|score|`` when the universe could not be ranked), one per action, fitted on the in-sample evaluation months
only and shipped as ``verdict_confidence.json`` next to this module (``python -m evaluation.calibration_fit``;
the figures in docs/decisions.md, "Verdict confidence (issue 52)"): linear between its knots, flat beyond the
ends. The file is read once, on first use.

Example::

    calibrated_confidence("BUY", universe_rank=0.93, score=0.41)  # 0.5016 with the shipped map
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

DATA_PACKAGE = "judge.infrastructure.calibration"
DATA_FILE = "verdict_confidence.json"
ACTIONS = ("BUY", "SELL", "HOLD")
DIGITS = 4
"""Decimal places of the confidence (the verdict's other figures use as many)."""


@dataclass(frozen=True)
class ConfidenceMap:
    """One action's fitted curve: ``xs`` strengths strictly ascending, ``ys`` probabilities in [0, 1], monotone."""

    action: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    base_rate: float
    """The in-sample share of this action's calls that were right (what the map says without a strength)."""
    n: int
    """In-sample calls it was fitted on."""

    def __post_init__(self) -> None:
        if not self.xs or len(self.xs) != len(self.ys):
            raise ValueError(f"{self.action}: knots must be non-empty (x, y) pairs")
        if any(b <= a for a, b in itertools.pairwise(self.xs)):
            raise ValueError(f"{self.action}: knot strengths must be strictly ascending")
        if not all(0.0 <= y <= 1.0 for y in (*self.ys, self.base_rate)):
            raise ValueError(f"{self.action}: probabilities must lie in [0, 1]")
        steps = [b - a for a, b in itertools.pairwise(self.ys)]
        if any(s < 0 for s in steps) and any(s > 0 for s in steps):
            raise ValueError(f"{self.action}: the map must be monotone")

    def __call__(self, strength: float) -> float:
        """The probability at ``strength``: linear between the knots, the end values beyond them."""
        xs, ys = self.xs, self.ys
        if strength <= xs[0]:
            return ys[0]
        if strength >= xs[-1]:
            return ys[-1]
        i = bisect.bisect_right(xs, strength)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return round(y0 + (y1 - y0) * (strength - x0) / (x1 - x0), DIGITS)


def parse_maps(document: dict[str, Any]) -> dict[str, ConfidenceMap]:
    """The per-action maps of a ``verdict_confidence.json`` document (``actions.<ACTION>.{knots, base_rate, n}``)."""
    fitted = document["actions"]
    maps = {}
    for action in ACTIONS:
        entry = fitted[action]
        knots = [(float(x), float(y)) for x, y in entry["knots"]]
        maps[action] = ConfidenceMap(
            action,
            tuple(x for x, _ in knots),
            tuple(y for _, y in knots),
            float(entry["base_rate"]),
            int(entry["n"]),
        )
    return maps


@cache
def confidence_maps() -> dict[str, ConfidenceMap]:
    """The shipped maps, read from the installed package once."""
    text = resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text(encoding="utf-8")
    return parse_maps(json.loads(text))


def standing_strength(universe_rank: float | None, score: float | None) -> float | None:
    """``|2 × universe_rank − 1|``, else ``|score|``, rounded as the standing states it; None without either."""
    if universe_rank is not None and math.isfinite(universe_rank):
        return round(abs(2.0 * universe_rank - 1.0), DIGITS)
    if score is not None and math.isfinite(score):
        return round(abs(score), DIGITS)
    return None


def calibrated_confidence(action: str, universe_rank: float | None, score: float | None) -> float:
    """The probability that a verdict of ``action`` on this standing is right (module doc); the action's in-sample
    base rate when neither a rank nor a score is known. Raises ``ValueError`` for an unknown action."""
    maps = confidence_maps()
    if action not in maps:
        raise ValueError(f"no confidence map for action {action!r} (expected one of {', '.join(ACTIONS)})")
    fitted = maps[action]
    strength = standing_strength(universe_rank, score)
    return round(fitted.base_rate, DIGITS) if strength is None else fitted(min(max(strength, 0.0), 1.0))
