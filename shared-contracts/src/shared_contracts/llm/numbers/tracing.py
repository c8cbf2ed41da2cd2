"""Whether a claim traces to the call's figures, with the tolerances of ``docs/decisions.md`` ("Numbers gate"):

- rounding: a claim matches a figure that rounds to it at its shown precision (``claims.Claim.step``);
- fraction ↔ percent: ``15.3%`` matches 0.153 and 15.3 (a percent, a percentage point or a plain number
  may be written from either form); basis points match a fraction ×10 000 or a percent ×100;
- unit scaling: an amount in ``元``, ``万`` or ``亿`` (or thousand/million/billion) matches a figure given in
  any of 元, 万元 and 亿元;
- sign: a claim that states a direction (``+``, ``−``, ``上涨``, ``fell``…) matches only a figure of that sign
  (or zero); a claim with no direction matches either sign;
- counts up to ``SMALL_COUNT`` are enumerations of what the text discusses; larger counts need a figure;
  windows are not measurements;
- a date matches a date of the input with the components it states (a year alone: any date in that year);
- a claim with a role (a stop, a target, a position) must match that structured level, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shared_contracts.llm.numbers.claims import Claim, Role
from shared_contracts.llm.numbers.sources import Sources

SMALL_COUNT = 10
_LEVEL_KINDS = frozenset({"percent", "amount", "plain"})
_EPSILON = 1e-9
_FACTORS: dict[str, tuple[float, ...]] = {
    "percent": (1.0, 100.0),
    "points": (1.0, 100.0),
    "bps": (100.0, 10_000.0),
    "multiple": (1.0,),
    "amount": (1.0, 1e4, 1e8, 1e-4, 1e-8),
    "plain": (1.0, 100.0),
    "count": (1.0,),
}


def _near(claim: Claim, target: float) -> bool:
    tolerance = claim.step / 2 * claim.scale + _EPSILON * max(1.0, abs(target))
    return abs(claim.number * claim.scale - abs(target)) <= tolerance


def _matches_sources(claim: Claim, sources: Sources) -> bool:
    shown = claim.number * claim.scale
    tolerance = claim.step / 2 * claim.scale
    for factor in _FACTORS[claim.kind]:
        low = (shown - tolerance) / factor
        high = (shown + tolerance) / factor
        pad = _EPSILON * max(1.0, abs(high))
        signs = sources.signs_between(low - pad, high + pad)
        if any(claim.sign == 0 or sign in (0, claim.sign) for sign in signs):
            return True
    return False


def _date_traces(claim: Claim, sources: Sources) -> bool:
    assert claim.date is not None
    year, month, day = claim.date
    if month is None:
        return year in sources.years or bool(sources.signs_between(year or 0, year or 0))
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
