"""The verdict sections of the report: coverage, action distribution with flip rate, outcomes per action, and
calibration of the confidence (as the probability that the call is right: trades and HOLDs). Each function
takes one sample of one configuration and returns plain JSON."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

from evaluation.outcomes import ScoredVerdict
from evaluation.records import ResearchRecord
from verdict_statistics import scorecard
from verdict_statistics.metrics import (
    brier,
    brier_against_constant,
    equal_count_bins,
    flip_rate,
    wilson,
)
from verdict_statistics.scorecard import ACTIONS, Json, ScoredCall, bin_json, estimate_json, rounded

STATUSES = ("ok", "refused", "failed")
CONCENTRATION_LIMIT = 0.6
"""A date on which more than this share of the verdicts take one directional action (BUY or SELL) is a market-wide
sweep, not a choice between stocks (issue 35)."""
TOLERANCE = 0.005
"""How far above the Brier score of the constant equal to the realised hit rate the confidence may score on unseen
calls (issue 52)."""
RELIABILITY_BINS = 5
"""Equal-count bins of the confidence in the reliability table and chart."""
Kind = Literal["trades", "hold"]
KINDS: tuple[Kind, ...] = ("trades", "hold")


def reason_key(reason: str) -> str:
    """A refusal or failure grouped by its code: the text before the first colon, without parenthesised parts
    that hold numbers (a date, a count), at most 120 characters. ``"422 insufficient_history: …"`` →
    ``"422 insufficient_history"``, ``"before the first bar (2021-03-01)"`` → ``"before the first bar"``."""
    head = re.sub(r"\s*\([^)]*\d[^)]*\)", "", reason.split(":", 1)[0]).strip()
    return (head or "(no reason given)")[:120]


def _counted(values: Iterable[str]) -> list[Json]:
    """``[{"reason", "count"}]``, most frequent first, then alphabetical."""
    counts = Counter(values)
    return [{"reason": key, "count": n} for key, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def coverage(records: Sequence[ResearchRecord]) -> Json:
    """Researches by status (counts and Wilson shares), refusal and failure reasons, verdict engines, and how
    many ok researches were partial (an expert failed)."""
    n = len(records)
    statuses: Counter[str] = Counter(record.status for record in records)
    ok = [record for record in records if record.status == "ok"]
    return {
        "n": n,
        "by_status": {
            status: {"count": statuses[status], "share": estimate_json(wilson(statuses[status], n))}
            for status in STATUSES
        },
        "refusal_reasons": _counted(reason_key(r.reason) for r in records if r.status == "refused"),
        "failure_reasons": _counted(reason_key(r.reason) for r in records if r.status == "failed"),
        "engines": dict(sorted(Counter(record.engine or "(unknown)" for record in ok).items())),
        "partial": sum(record.overall_status == "partial" for record in ok),
    }


def action_distribution(records: Sequence[ResearchRecord]) -> Json:
    """BUY/SELL/HOLD counts with Wilson shares over the verdicts, and the flip rate: the share of consecutive
    verdicts of a symbol (in date order, researches without a verdict skipped) whose action differs."""
    verdicts = sorted(
        (r for r in records if r.status == "ok" and r.action is not None), key=lambda r: (r.symbol, r.analysis_date)
    )
    counts = Counter(r.action for r in verdicts)
    by_symbol: dict[str, list[str]] = defaultdict(list)
    for record in verdicts:
        assert record.action is not None
        by_symbol[record.symbol].append(record.action)
    return {
        "n": len(verdicts),
        "counts": {
            action: {"count": counts[action], "share": estimate_json(wilson(counts[action], len(verdicts)))}
            for action in ACTIONS
        },
        "flip_rate": estimate_json(flip_rate(dict(by_symbol))),
    }


def actions_by_date(records: Sequence[ResearchRecord]) -> list[Json]:
    """Per grid date: how many researches ended in each action, and how many had no verdict."""
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        key = record.action if record.status == "ok" and record.action in ACTIONS else "no_verdict"
        rows[record.analysis_date.isoformat()][key] += 1
    return [{"date": day, **{k: rows[day][k] for k in (*ACTIONS, "no_verdict")}} for day in sorted(rows)]


def _calls(scored: Sequence[ScoredVerdict]) -> list[ScoredCall]:
    return [ScoredCall(s.record.action or "", s.record.confidence, s.outcome) for s in scored]


def action_outcomes(scored: Sequence[ScoredVerdict], action: str) -> Json:
    """For one action: ``verdict_statistics.scorecard.action_outcomes`` (the live scorecard's figures too)."""
    return scorecard.action_outcomes(_calls(scored), action)


def calibration_section(scored: Sequence[ScoredVerdict]) -> Json:
    """``verdict_statistics.scorecard.calibration_section`` over the scored verdicts (BUY and SELL), and the
    verdicts' confidence as the probability that the call is right (``probability_section``): ``trades`` (BUY
    and SELL: the trade was profitable) and ``hold`` (the long a HOLD declined lost after costs)."""
    section = scorecard.calibration_section(_calls(scored))
    for kind in KINDS:
        section[kind] = probability_section(probability_calls(scored, kind))
    return section


def probability_calls(scored: Sequence[ScoredVerdict], kind: Kind) -> list[tuple[float, bool, str]]:
    """(confidence, right, month of the analysis date) of the calls of ``kind`` with a confidence and a known
    outcome: ``trades`` the BUYs and SELLs, ``hold`` the HOLDs."""
    actions = ("BUY", "SELL") if kind == "trades" else ("HOLD",)
    return [
        (s.record.confidence, right, s.record.analysis_date.strftime("%Y-%m"))
        for s in scored
        if s.record.action in actions and s.record.confidence is not None and (right := s.right) is not None
    ]


def probability_section(calls: Sequence[tuple[float, bool, str]]) -> Json:
    """How well the confidences of ``calls`` (``probability_calls``) forecast whether each was right: the
    realised hit rate (Wilson), the Brier score against the constant equal to that rate, the excess (Brier −
    constant's) and the skill (1 − Brier / constant's) with 95 % intervals from resampling the months (the calls
    of one month move together; ``n`` of those is the months), whether the excess is within ``TOLERANCE``, and
    ``RELIABILITY_BINS`` equal-count bins of the confidence with their hit rates."""
    probabilities = [p for p, _, _ in calls]
    outcomes = [right for _, right, _ in calls]
    result = brier_against_constant(probabilities, outcomes, [month for _, _, month in calls])
    excess = result.excess.value
    return {
        "n": result.n,
        "months": result.clusters,
        "hit_rate": estimate_json(wilson(sum(outcomes), len(outcomes))),
        "brier": rounded(result.score),
        "constant_brier": rounded(result.constant_score),
        "excess": estimate_json(result.excess),
        "skill": estimate_json(result.skill),
        "tolerance": TOLERANCE,
        "within_tolerance": None if excess is None else excess <= TOLERANCE,
        "bins": [bin_json(b) for b in equal_count_bins(probabilities, outcomes, RELIABILITY_BINS)],
    }


def directional_concentration(records: Sequence[ResearchRecord]) -> Json:
    """Per analysis date, the share of that date's verdicts taking its most frequent directional action (BUY or
    SELL): the largest over dates (with its date and action) and how many dates exceed ``CONCENTRATION_LIMIT``."""
    per_date: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        if record.status == "ok" and record.action in ACTIONS:
            per_date[record.analysis_date.isoformat()][record.action] += 1
    worst: Json = {"share": None, "date": None, "action": None}
    over = 0
    for day in sorted(per_date):
        counts = per_date[day]
        total = sum(counts.values())
        action = "BUY" if counts["BUY"] >= counts["SELL"] else "SELL"
        share = counts[action] / total
        over += share > CONCENTRATION_LIMIT
        if worst["share"] is None or share > worst["share"]:
            worst = {"share": share, "date": day, "action": action}
    return {
        "limit": CONCENTRATION_LIMIT,
        "dates": len(per_date),
        "dates_over_limit": over,
        "max": {**worst, "share": rounded(worst["share"])},
    }


def against_constant(scored: Sequence[ScoredVerdict], rate: float | None, kind: Kind = "trades") -> Json:
    """The Brier score of always predicting ``rate`` (the in-sample hit rate, known at the split) on these scored
    calls of ``kind`` (``probability_calls``), and the confidence's skill against it: 1 − its Brier / the
    constant's (above 0 beats it)."""
    pairs = [(confidence, right) for confidence, right, _ in probability_calls(scored, kind)]
    if rate is None or not pairs:
        return {"rate": rounded(rate), "score": None, "skill": None, "n": len(pairs)}
    outcomes = [hit for _, hit in pairs]
    constant = brier([rate] * len(pairs), outcomes).score
    policy = brier([confidence for confidence, _ in pairs], outcomes).score
    skill = 1.0 - policy / constant if constant and policy is not None else None
    return {"rate": rounded(rate), "score": rounded(constant), "skill": rounded(skill), "n": len(pairs)}
