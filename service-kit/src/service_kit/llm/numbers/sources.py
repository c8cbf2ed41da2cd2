"""The figures a model call was given: every number and date in its prompt (system and user), plus any the
caller adds (a method's constants, for instance).

A figure keeps what the prompt says it is, when it says so: a JSON field's name (``"pe_ttm": 21.97``), and a
kind — ``price`` for a field that holds a price or an amount (``close``, ``ma20``, ``support``, ``revenue``…),
``percent`` for a number written with ``%`` or a field named as a percentage or ratio, else ``any``."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from service_kit.llm.numbers.claims import date_claims, normalise

SourceKind = str  # "price" | "percent" | "any"

_NUMBER = r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?"
_JSON_FIELD = re.compile(rf'"(?P<key>[A-Za-z_][A-Za-z0-9_]*)"\s*:\s*(?P<value>\[[^\[\]{{}}"]*\]|{_NUMBER})')
_SOURCE_NUMBER = re.compile(
    r"(?<![\dA-Za-z_.])(?P<sign>[-−])?(?P<num>\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<mag> ?(?:万亿|亿|万|千|million|billion|bn|trillion|thousand)(?![A-Za-z]))?(?P<pct> ?%)?"
)
_MAGNITUDE = {"万亿": 1e12, "亿": 1e8, "万": 1e4, "千": 1e3, "thousand": 1e3, "million": 1e6}
_MAGNITUDE |= {"billion": 1e9, "bn": 1e9, "trillion": 1e12}
PRICE_KEYS = re.compile(
    r"^(?:close|open|high|low|prev_close|price|reference_price|ma\d+|boll_(?:upper|middle|lower)|(?:high|low)_\w+"
    r"|support|resistance|atr_stop|atr14|eps\w*|dps|revenue|net_profit|total_mv|market_cap|\w*_price|\w*_value)$"
)
PERCENT_KEYS = re.compile(r"pct|percent|yield|ratio|margin|roe|roa|growth|yoy|rate|share|coverage|confidence|cagr")


@dataclass(frozen=True)
class Figure:
    magnitude: float
    sign: int
    kind: SourceKind
    key: str | None


@dataclass(frozen=True)
class Sources:
    """Figures by absolute value (sorted) and dates by their components."""

    figures: tuple[Figure, ...]
    magnitudes: tuple[float, ...]
    dates: frozenset[tuple[int, int, int]]
    years: frozenset[int]
    keys: frozenset[str]

    def between(self, low: float, high: float) -> list[Figure]:
        """The figures whose absolute value is in [low, high]."""
        i, j = bisect.bisect_left(self.magnitudes, low), bisect.bisect_right(self.magnitudes, high)
        return list(self.figures[i:j])


def _kind(key: str | None) -> SourceKind:
    if key is None:
        return "any"
    if PRICE_KEYS.match(key):
        return "price"
    return "percent" if PERCENT_KEYS.search(key) else "any"


def sources_from(texts: Iterable[str], extra: Iterable[float] = ()) -> Sources:
    found: set[Figure] = set()
    dates: set[tuple[int, int, int]] = set()

    def add(value: float, kind: SourceKind, key: str | None = None) -> None:
        found.add(Figure(abs(value), 0 if value == 0 else (1 if value > 0 else -1), kind, key))

    for raw in texts:
        text = normalise(raw)

        def named(m: re.Match[str]) -> str:
            key = m.group("key")
            for number in re.findall(_NUMBER, m.group("value")):
                add(float(number.replace(",", "")), _kind(key), key)
            return " " * len(m.group(0))  # read once, by name

        for m in _SOURCE_NUMBER.finditer(_JSON_FIELD.sub(named, text)):
            try:
                value = float(m.group("num").replace(",", ""))
            except ValueError:
                continue
            value = -value if m.group("sign") else value
            kind: SourceKind = "percent" if m.group("pct") else "any"
            add(value, kind)
            if m.group("mag"):
                add(value * _MAGNITUDE[m.group("mag").strip()], "any")
        for claim in date_claims(text):
            if claim.date is not None and None not in claim.date:
                year, month, day = claim.date
                dates.add((year, month, day))  # type: ignore[arg-type]
            elif claim.date is not None and claim.date[0] is not None:
                dates.add((claim.date[0], 0, 0))
    for value in extra:
        add(value, "any")
    ordered = sorted(found, key=lambda f: (f.magnitude, f.sign, f.kind, f.key or ""))
    return Sources(
        figures=tuple(ordered),
        magnitudes=tuple(f.magnitude for f in ordered),
        dates=frozenset(d for d in dates if d[1]),
        years=frozenset(d[0] for d in dates),
        keys=frozenset(f.key for f in ordered if f.key),
    )
