"""The figures a model call was given: every number and date in its prompt (system and user), plus any the
caller adds (the lengths of the input's lists, for instance)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from shared_contracts.llm.numbers.claims import extract_claims, normalise

_SOURCE_NUMBER = re.compile(
    r"(?<![\dA-Za-z_.])(?P<sign>[-−])?(?P<num>\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<mag> ?(?:万亿|亿|万|千|million|billion|bn|trillion|thousand)(?![A-Za-z]))?"
)
_SOURCE_IDENT_NUMBER = re.compile(r"(?<=[A-Za-z_])\d+(?:\.\d+)?")
_MAGNITUDE = {"万亿": 1e12, "亿": 1e8, "万": 1e4, "千": 1e3, "thousand": 1e3, "million": 1e6}
_MAGNITUDE |= {"billion": 1e9, "bn": 1e9, "trillion": 1e12}


@dataclass(frozen=True)
class Sources:
    """Numbers by absolute value (sorted, with their signs) and dates by their components."""

    magnitudes: tuple[float, ...]
    signs: tuple[int, ...]
    dates: frozenset[tuple[int, int, int]]
    years: frozenset[int]

    def signs_between(self, low: float, high: float) -> list[int]:
        """The signs of the given numbers whose absolute value is in [low, high]."""
        i, j = bisect.bisect_left(self.magnitudes, low), bisect.bisect_right(self.magnitudes, high)
        return list(self.signs[i:j])


def sources_from(texts: Iterable[str], extra: Iterable[float] = ()) -> Sources:
    pairs: set[tuple[float, int]] = set()
    dates: set[tuple[int, int, int]] = set()
    years: set[int] = set()

    def add(value: float) -> None:
        pairs.add((abs(value), 0 if value == 0 else (1 if value > 0 else -1)))

    for raw in texts:
        text = normalise(raw)
        for m in _SOURCE_NUMBER.finditer(text):
            try:
                value = float(m.group("num").replace(",", ""))
            except ValueError:
                continue
            value = -value if m.group("sign") else value
            add(value)
            if m.group("mag"):
                add(value * _MAGNITUDE[m.group("mag").strip()])
        for m in _SOURCE_IDENT_NUMBER.finditer(text):  # MA20, RSI14: a window the prompt names
            add(float(m.group(0)))
        for claim in extract_claims("", text):
            if claim.date is not None:
                year, month, day = claim.date
                if year is not None:
                    years.add(year)
                if year is not None and month is not None and day is not None:
                    dates.add((year, month, day))
    for value in extra:
        add(value)
    ordered = sorted(pairs)
    return Sources(
        magnitudes=tuple(m for m, _ in ordered),
        signs=tuple(s for _, s in ordered),
        dates=frozenset(dates),
        years=frozenset(years) | {y for y, _, _ in dates},
    )
