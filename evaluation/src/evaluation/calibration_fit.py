"""Fit the verdict's confidence — the probability that its call is right — on the in-sample months of an
evaluation run, and write it as the judge's data file (``judge.infrastructure.calibration``).

Per action (BUY, SELL, HOLD) the in-sample policy verdicts with a known outcome (right: a BUY or SELL whose trade
was profitable after costs, a HOLD whose declined long lost; ``evaluation.outcomes``) are sorted by the standing's
strength ``|2 × universe_rank − 1|`` (``|score|`` without a rank) and cut into ``bins`` equal-count groups; each
group's share of right calls is shrunk toward the action's in-sample base rate with the weight of ``prior``
pseudo-calls (so a small group cannot claim much), and an isotonic regression (pool-adjacent violators,
``scipy.optimize``) makes the sequence monotone: non-decreasing for BUY and SELL (a stronger standing is the
stronger claim), for HOLD in the direction that fits the groups better (its strength folds both sides of the
universe together, so no direction is given). The knots are (mean strength, fitted probability); the judge
interpolates linearly between them and holds the end values beyond. ``--check DIR`` also scores the mapped
confidence on the whole run, in and out of sample, as the report does (``calibration.json``, ``reliability.png``).

Example::

    python -m evaluation.calibration_fit docs/evaluation-results/records-calibration-fit.jsonl.gz \\
        --split 2023-10-31 --records-commit f54ac992d47883fc0716be1e666b9907cd424104 --check /tmp/check
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import shlex
import statistics
import sys
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

import numpy as np
from scipy.optimize import isotonic_regression

from evaluation.bar_series import BarSeries, index_bars, read_bars_csv
from evaluation.charts import write_reliability
from evaluation.outcomes import ScoredVerdict, score_verdicts
from evaluation.records import ResearchRecord, read_records
from evaluation.report import calibration_samples
from evaluation.rescore import default_bars_dir
from evaluation.samples import by_sample
from shared_contracts.scoring import ROUND_TRIP_COST
from verdict_statistics.scorecard import ACTIONS, Json

BINS = 4
PRIOR = 200.0
"""Pseudo-calls at the base rate added to each bin: set before the fit, heavy because the calls of one month move
together (45 in-sample months carry far less information than their thousands of calls)."""
POOLED = ("BUY", "SELL")
"""Actions fitted as one group (``--pool-trades``): the trades' share right, BUY and SELL together, whose sum does
not move with the market's drift the way each side's does (a rising market lifts BUYs and sinks SELLs)."""
INCREASING: dict[str, bool | None] = {"BUY": True, "SELL": True, "HOLD": None}
"""The map's direction per action; None: whichever fits the in-sample bins better."""
DEFAULT_OUT = Path("services/judge/src/judge/infrastructure/calibration/verdict_confidence.json")
DIGITS = 4
OUTCOMES = {
    "BUY": "the trade, entered at the next open after the reference close and closed at its stop, its target or "
    "the end of its horizon, ends with a positive return after the round-trip cost "
    "(shared_contracts.scoring.score_trade(...).profitable)",
    "SELL": "the short the SELL calls for (levels mirrored), entered at the next open and closed at its stop, its "
    "target or the end of its horizon, ends with a positive return after the round-trip cost "
    "(score_trade(...).profitable; on A-shares the SELL is realised as exit/avoid)",
    "HOLD": "the long trade it declined, entered at the next open and held 20 trading days to the close, would not "
    "have made money after the round-trip cost (shared_contracts.scoring.hold_right)",
}
STRENGTH = "|2 * universe_rank - 1|, |score| without a rank, rounded to 4 places"

Call = tuple[float, bool]


def fit_calibration(
    calls: Sequence[Call], *, bins: int = BINS, prior: float = PRIOR, increasing: bool | None = True
) -> list[tuple[float, float]]:
    """(strength, probability) knots, strength strictly ascending; empty without calls. ``increasing`` None picks
    the direction with the smaller weighted squared distance to the shrunk bin rates (ties: increasing)."""
    if not calls:
        return []
    ordered = sorted(calls)
    base = sum(hit for _, hit in ordered) / len(ordered)
    groups = [ordered[i * len(ordered) // bins : (i + 1) * len(ordered) // bins] for i in range(bins)]
    groups = [g for g in groups if g]
    raw = [statistics.fmean(c for c, _ in g) for g in groups]
    shrunk = [(sum(hit for _, hit in g) + prior * base) / (len(g) + prior) for g in groups]
    weights = [len(g) + prior for g in groups]
    directions = [increasing] if increasing is not None else [True, False]
    fits = [isotonic_regression(shrunk, weights=weights, increasing=d).x for d in directions]
    fitted = min(fits, key=lambda f: sum(w * (y - s) ** 2 for w, y, s in zip(weights, f, shrunk, strict=True)))
    return _distinct([(round(r, DIGITS), round(float(p), DIGITS)) for r, p in zip(raw, fitted, strict=True)])


def _distinct(knots: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Knots with one strength each (bins of tied strengths share their mean: the first kept)."""
    out: list[tuple[float, float]] = []
    for x, y in knots:
        if not out or x > out[-1][0]:
            out.append((x, y))
    return out


def strength(record: ResearchRecord) -> float | None:
    """The standing's strength of a verdict, as the judge computes it."""
    if record.universe_rank is not None:
        return round(abs(2.0 * record.universe_rank - 1.0), DIGITS)
    if record.score is not None:
        return round(abs(record.score), DIGITS)
    return None


def scored_policy(records: Sequence[ResearchRecord], bars_dir: Path, cost: float) -> list[ScoredVerdict]:
    """The policy's ok verdicts scored as the report scores them."""
    mine = [r for r in records if r.configuration == "policy" and r.status == "ok"]
    symbols = sorted({r.symbol for r in mine})
    bars = {s: read_bars_csv(bars_dir, s) for s in symbols if (bars_dir / f"{s}.csv").is_file()}
    series: dict[str, BarSeries] = index_bars(bars, symbols)
    return score_verdicts(mine, series, allow_short=False, cost=cost)


def in_sample_calls(scored: Sequence[ScoredVerdict], split: date) -> dict[str, list[tuple[float, bool, date]]]:
    """Per action, (strength, right, analysis date) of the verdicts analysed before ``split`` with both known."""
    calls: dict[str, list[tuple[float, bool, date]]] = {action: [] for action in ACTIONS}
    for s in scored:
        x, right = strength(s.record), s.right
        if s.record.analysis_date < split and s.record.action in calls and x is not None and right is not None:
            calls[s.record.action].append((x, right, s.record.analysis_date))
    return calls


def fit_document(
    calls: Mapping[str, Sequence[tuple[float, bool, date]]],
    *,
    split: date,
    bins: int,
    prior: float,
    cost: float,
    command: str,
    records: Json,
    pool_trades: bool = False,
) -> Json:
    """The data file: per action its knots, n, base rate, direction and fit window, with the provenance. With
    ``pool_trades`` BUY and SELL share one map fitted on both (``POOLED``)."""
    actions: Json = {}
    for action in ACTIONS:
        mine = [c for a in POOLED for c in calls[a]] if pool_trades and action in POOLED else calls[action]
        if not mine:
            raise ValueError(f"no in-sample {action} calls to fit")
        pairs = [(x, right) for x, right, _ in mine]
        knots = fit_calibration(pairs, bins=bins, prior=prior, increasing=INCREASING[action])
        ys = [y for _, y in knots]
        actions[action] = {
            "knots": [[x, y] for x, y in knots],
            "n": len(mine),
            "base_rate": round(sum(right for _, right in pairs) / len(pairs), DIGITS),
            "direction": "increasing" if ys == sorted(ys) else "decreasing",
            "fit_window": {
                "first": min(day for _, _, day in mine).isoformat(),
                "last": max(day for _, _, day in mine).isoformat(),
            },
            "strength_range": [min(x for x, _ in pairs), max(x for x, _ in pairs)],
        }
    return {
        "what": "the verdict's confidence: the probability that its call is right, by action, from the standing",
        "outcomes": OUTCOMES,
        "strength": STRENGTH,
        "map": "linear between the knots [strength, probability], flat beyond the ends",
        "split": split.isoformat(),
        "sample": f"policy verdicts analysed before {split.isoformat()} (in sample) with a known outcome",
        "bins": bins,
        "prior": prior,
        "pooled": list(POOLED) if pool_trades else [],
        "cost": cost,
        "command": command,
        "records": records,
        "actions": actions,
    }


def document_text(document: Json) -> str:
    """The data file's text: indented JSON with each pair of numbers (a knot, a range) on one line."""
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return re.sub(r"\[\s+(-?[\d.e+-]+),\s+(-?[\d.e+-]+)\s+\]", r"[\1, \2]", text)


def mapped_confidence(document: Json, action: str | None, universe_rank: float | None, score: float | None) -> float:
    """What the judge's ``calibrated_confidence`` gives for this document (numpy's interpolation, flat beyond the
    ends); the action's base rate without a strength."""
    entry = document["actions"][action]
    x = strength(ResearchRecord("policy", "", date.min, "ok", universe_rank=universe_rank, score=score))
    if x is None:
        return round(float(entry["base_rate"]), DIGITS)
    xs, ys = zip(*entry["knots"], strict=True)
    return round(float(np.interp(x, xs, ys)), DIGITS)


def with_mapped_confidence(scored: Sequence[ScoredVerdict], document: Json) -> list[ScoredVerdict]:
    """The scored verdicts as if each had carried the mapped confidence (verdicts without an action unchanged)."""
    out = []
    for s in scored:
        r = s.record
        if r.action in document["actions"]:
            confidence = mapped_confidence(document, r.action, r.universe_rank, r.score)
            s = dataclasses.replace(s, record=dataclasses.replace(r, confidence=confidence))
        out.append(s)
    return out


def check(scored: Sequence[ScoredVerdict], document: Json, out_dir: Path) -> Json:
    """The report's calibration section of the mapped confidence (``calibration.json``) and its reliability chart
    (``reliability.png``) in ``out_dir``; the section."""
    split = date.fromisoformat(document["split"])
    mapped = by_sample(with_mapped_confidence(scored, document), lambda s: s.record.analysis_date, split)
    section = calibration_samples(mapped)
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(section, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    (out_dir / "calibration.json").write_text(text, encoding="utf-8")
    write_reliability(section, out_dir / "reliability.png")
    return section


def summary(section: Json) -> str:
    """One line per sample and kind: Brier, the realised constant's, excess and skill with their intervals."""

    def show(estimate: Json) -> str:
        value, low, high = (estimate[k] for k in ("value", "low", "high"))
        if value is None:
            return "-"
        return f"{value:+.4f}" + ("" if low is None else f" [{low:+.4f}, {high:+.4f}]")

    lines = []
    for sample in ("in_sample", "out_of_sample"):
        for kind in ("trades", "hold"):
            k = section[sample][kind]
            lines.append(
                f"{sample:13} {kind:6} n={k['n']} months={k['months']} hit={k['hit_rate']['value']} "
                f"brier={k['brier']} constant={k['constant_brier']} excess={show(k['excess'])} "
                f"skill={show(k['skill'])} within {k['tolerance']}: {k['within_tolerance']}"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evaluation.calibration_fit RECORDS --split DATE [--out FILE] [--check DIR]``."""
    parser = argparse.ArgumentParser(prog="evaluation.calibration_fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, help="records.jsonl (or .jsonl.gz) of an evaluation run")
    parser.add_argument("--split", type=date.fromisoformat, required=True, help="fit on verdicts analysed before it")
    parser.add_argument("--bars", type=Path, help="the snapshot's bars folder (default: SNAPSHOT_DIR/bars or shipped)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the data file (default {DEFAULT_OUT})")
    parser.add_argument("--bins", type=int, default=BINS)
    parser.add_argument("--prior", type=float, default=PRIOR)
    parser.add_argument("--cost", type=float, default=ROUND_TRIP_COST)
    parser.add_argument("--records-commit", default="", help="the commit of the code that made the records")
    parser.add_argument("--records-command", default="", help="the command that made the records")
    parser.add_argument("--check", type=Path, help="also score the mapped confidence on the whole run into DIR")
    parser.add_argument("--pool-trades", action="store_true", help="fit BUY and SELL as one group (one map)")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "-m", "evaluation.calibration_fit", *(argv if argv is not None else sys.argv[1:])])
    scored = scored_policy(read_records(args.records), args.bars or default_bars_dir(), args.cost)
    provenance = {"file": str(args.records), "commit": args.records_commit, "command": args.records_command}
    document = fit_document(
        in_sample_calls(scored, args.split),
        split=args.split,
        bins=args.bins,
        prior=args.prior,
        cost=args.cost,
        command=command,
        records=provenance,
        pool_trades=args.pool_trades,
    )
    args.out.write_text(document_text(document), encoding="utf-8")
    print(args.out)
    for action, entry in document["actions"].items():
        print(f"{action:4} n={entry['n']:5} base={entry['base_rate']:.4f} knots={entry['knots']}")
    if args.check is not None:
        print(summary(check(scored, document, args.check)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
