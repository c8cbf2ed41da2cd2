"""Whether a claim traces to the call's figures, with the tolerances of ``docs/decisions.md`` ("Numbers gate"):

- rounding: a claim matches a figure that rounds to it at its shown precision (``claims.Claim.step``);
- fraction ↔ percent: ``15.3%`` matches 0.153 and 15.3 (a percent, a percentage point or a plain number
  may be written from either form); basis points match a fraction ×10 000 or a percent ×100;
- unit scaling: an amount is compared in base units, its magnitude applied (``1,505.6亿元`` is 150 560 000 000
  元, ``1.8万亿`` 1.8e12, ``¥150.6 billion`` 1.506e11), with a figure of the input in base units too (a figure the
  input writes with a magnitude, ``1234万元``, is scaled the same way): ``12.3亿元`` ↔ 123 000 万元 ↔ 1.23e9 元, and
  a wrong unit (``万元`` for ``亿元``) does not trace;
- sign: a claim that states a direction (``+``, ``−``, ``上涨``, ``fell``…) matches only a figure of that sign
  (or zero); a claim with no direction matches either sign;
- counts up to ``SMALL_COUNT`` are enumerations of what the text discusses; larger counts need a figure;
  windows are not measurements;
- a date matches a date of the input with the components it states (a year alone: any date in that year);
- a claim with a role (a stop, a target, a position) must match that structured level, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from service_kit.llm.numbers.claims import Claim, Role
from service_kit.llm.numbers.sources import Sources

SMALL_COUNT = 10
QUANTITY_KEYS = {"close": re.compile(r"^close$"), "pe": re.compile(r"^pe(?:_ttm)?$")}
"""The input's field a named quantity (``claims.QUANTITY_WORDS``) must trace to, when the input has one."""
_REFUSED_KINDS = {
    "percent": frozenset({"price"}),
    "points": frozenset({"price"}),
    "bps": frozenset({"price"}),
    "amount": frozenset({"percent"}),
}
"""A percentage never traces to a price or an amount of the input, nor an amount to a percentage."""
_LEVEL_KINDS = frozenset({"percent", "amount", "plain"})
_EPSILON = 1e-9
_FACTORS: dict[str, tuple[float, ...]] = {
    "percent": (1.0, 100.0),
    "points": (1.0, 100.0),
    "bps": (100.0, 10_000.0),
    "multiple": (1.0,),
    "amount": (1.0,),
    "plain": (1.0, 100.0),
    "count": (1.0,),
}


def _near(claim: Claim, target: float) -> bool:
    tolerance = claim.step / 2 * claim.scale + _EPSILON * max(1.0, abs(target))
    return abs(claim.number * claim.scale - abs(target)) <= tolerance


def _matches_sources(claim: Claim, sources: Sources) -> bool:
    shown = claim.number * claim.scale
    tolerance = claim.step / 2 * claim.scale
    named = QUANTITY_KEYS.get(claim.quantity or "")
    if named is not None and not any(named.match(key) for key in sources.keys):
        named = None  # the input does not name that quantity: any figure may be it
    refused = _REFUSED_KINDS.get(claim.kind, frozenset())
    for factor in _FACTORS[claim.kind]:
        low = (shown - tolerance) / factor
        high = (shown + tolerance) / factor
        pad = _EPSILON * max(1.0, abs(high))
        for figure in sources.between(low - pad, high + pad):
            if figure.kind in refused or (named is not None and not named.match(figure.key or "")):
                continue
            if claim.sign == 0 or figure.sign in (0, claim.sign):
                return True
    return False


def _date_traces(claim: Claim, sources: Sources) -> bool:
    assert claim.date is not None
    year, month, day = claim.date
    if month is None:
        return year in sources.years or bool(sources.between(year or 0, year or 0))
    return any((year is None or y == year) and m == month and (day is None or d == day) for y, m, d in sources.dates)


def traces(claim: Claim, sources: Sources, levels: Mapping[Role, Sequence[float]] | None = None) -> bool:
    """Whether ``claim`` (not a window) traces to ``sources`` or, when it names a level, to that level."""
    if claim.role is not None and levels is not None and claim.role in levels and claim.kind in _LEVEL_KINDS:
        return any(_near(claim, level) for level in levels[claim.role])
    if claim.kind == "date":
        return _date_traces(claim, sources)
    if claim.kind == "count" and claim.number <= SMALL_COUNT:
        return True
    return _matches_sources(claim, sources)
