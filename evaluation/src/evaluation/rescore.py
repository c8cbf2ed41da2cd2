"""Score a finished run again without asking the stack: its records.jsonl and report.json (for the range, split,
grid, experts and the commit that made the verdicts) plus the snapshot's bars give a new report.json, report.md
and charts, with this code's scoring and the portfolio options given here. The verdicts are not remade.

Example::

    python -m evaluation.rescore eval-results/run/ --out eval-results/run-inverse-vol --weighting inverse-vol
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from evaluation.bar_series import read_bars_csv
from evaluation.baselines import EXPOSURE_SOURCES, WEIGHTINGS
from evaluation.records import read_records
from evaluation.report import ReportOptions, build_report, write_report
from shared_contracts.scoring import ROUND_TRIP_COST

SNAPSHOT_BARS = Path("services/research/src/research/infrastructure/data/snapshot/bars")
"""The offline snapshot's bars, relative to the repository root (``SNAPSHOT_DIR``/bars when that is set)."""


def default_bars_dir() -> Path:
    snapshot = os.environ.get("SNAPSHOT_DIR")
    return Path(snapshot) / "bars" if snapshot else SNAPSHOT_BARS


def rescore(run: Path, out: Path, bars_dir: Path, options: dict[str, object], command: str) -> list[Path]:
    """Rebuild the report of ``run`` (a folder with records.jsonl and report.json) into ``out``."""
    records = read_records(run / "records.jsonl")
    before = json.loads((run / "report.json").read_text(encoding="utf-8"))["options"]
    symbols = sorted({r.symbol for r in records})
    bars = {s: read_bars_csv(bars_dir, s) for s in symbols if (bars_dir / f"{s}.csv").is_file()}
    report_options = ReportOptions(
        start=date.fromisoformat(before["start"]),
        end=date.fromisoformat(before["end"]),
        split_date=date.fromisoformat(before["split_date"]),
        grid=before["grid"],
        experts=tuple(before["experts"]),
        engine=before["engine"],
        allow_short=bool(before["allow_short"]),
        command=f"{before['command']} (verdicts), rescored: {command}",
        commit=before["commit"],
        machine=before["machine"],
        llm=bool(before["llm"]),
        **options,  # type: ignore[arg-type]
    )
    return write_report(build_report(records, bars, report_options), out)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evaluation.rescore RUN_DIR --out DIR [--cost … --weighting … --exposure … --exposure-budget …]``."""
    parser = argparse.ArgumentParser(prog="evaluation.rescore", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run's output folder (records.jsonl, report.json)")
    parser.add_argument("--out", type=Path, required=True, help="where the new report goes")
    parser.add_argument(
        "--bars", type=Path, help="the snapshot's bars folder (default: SNAPSHOT_DIR/bars or the shipped one)"
    )
    parser.add_argument("--cost", type=float, default=ROUND_TRIP_COST)
    parser.add_argument("--weighting", choices=WEIGHTINGS, default="equal")
    parser.add_argument("--exposure", choices=EXPOSURE_SOURCES, default="market")
    parser.add_argument("--exposure-budget", type=float, default=1.0)
    args = parser.parse_args(argv)
    if not 0 <= args.cost < 0.2 or not 0 < args.exposure_budget <= 10:
        parser.error("--cost must be in [0, 0.2) and --exposure-budget in (0, 10]")
    options = {
        "cost": args.cost,
        "weighting": args.weighting,
        "exposure": args.exposure,
        "budget": args.exposure_budget,
    }
    command = shlex.join(["python", "-m", "evaluation.rescore", *(argv if argv is not None else sys.argv[1:])])
    for path in rescore(args.run, args.out, args.bars or default_bars_dir(), options, command):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
