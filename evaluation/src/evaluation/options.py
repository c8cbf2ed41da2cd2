"""``research-eval``'s command line: the options, their checks and defaults, and the ``Settings`` a run uses
(with the command as report.json records it).

Example::

    settings = settings_from(["--symbols", "600519.SH", "--grid", "week-end"])
    settings.configurations  # {"policy": ALL_EXPERTS, "technical_only": ("technical_analyst",)}
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from evaluation.baselines import EXPOSURE_SOURCES, WEIGHTINGS, ExposureSource, Weighting
from evaluation.grid import GRIDS
from evaluation.llm_proxy import Budget
from evaluation.records import Configuration
from shared_contracts.experts import ExpertType
from shared_contracts.scoring import ROUND_TRIP_COST

ALL_EXPERTS = tuple(expert.value for expert in ExpertType)
DEFAULT_COORDINATOR_URL = "http://127.0.0.1:8000"
DEFAULT_RESEARCH_URL = "http://127.0.0.1:8001"
RULES_CONCURRENCY = 32
"""Rules mode on the stack started here: enough to keep 2 cores busy (the coordinators' CPU is the limit)."""
LLM_CONCURRENCY = 8
"""LLM mode (up to 5 LLM calls at once per research), or a running stack whose engine is unknown."""
DEFAULT_COORDINATORS = 2
# Options that do not change what is evaluated: left out of the command recorded in report.json, so that two
# runs of the same evaluation give the same report.
_UNREPORTED_OPTIONS = {"--out", "--coordinator-url", "--research-url", "--concurrency", "--coordinators"}


def _date_arg(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a YYYY-MM-DD date: {value!r}") from exc


def _list_arg(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _cost_arg(value: str) -> float:
    """A round-trip cost: a fraction in [0, 0.2)."""
    try:
        cost = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 <= cost < 0.2:
        raise argparse.ArgumentTypeError(f"a fraction of the trade's value in [0, 0.2), e.g. 0.003 (got {value})")
    return cost


def _budget_arg(value: str) -> float:
    """A gross-exposure budget: a fraction of the capital in (0, 10]."""
    try:
        budget = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 < budget <= 10.0:
        raise argparse.ArgumentTypeError(f"a fraction of the capital in (0, 10], e.g. 1.0 (got {value})")
    return budget


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return number


def parser() -> argparse.ArgumentParser:
    """The ``research-eval`` argument parser."""
    p = argparse.ArgumentParser(
        prog="research-eval",
        description="Walk-forward evaluation: a point-in-time research per symbol and grid date through the real "
        "stack, each verdict scored on the bars that followed, against baselines.",
    )
    _what_to_evaluate(p)
    _portfolio(p)
    _where_to_run(p)
    return p


def _what_to_evaluate(p: argparse.ArgumentParser) -> None:
    """Symbols, grid, experts, split, the LLM budget and the runs."""
    p.add_argument("--symbols", type=_list_arg, help="comma-separated (default: the research service's universe)")
    p.add_argument("--start", type=_date_arg, help="first day of the grid (default: the symbols' first bar)")
    p.add_argument("--end", type=_date_arg, help="last day of the grid (default: the symbols' last bar)")
    p.add_argument("--grid", choices=GRIDS, default="month-end", help="month ends or Fridays (default month-end)")
    p.add_argument("--experts", type=_list_arg, help=f"the policy's experts (default all: {','.join(ALL_EXPERTS)})")
    p.add_argument(
        "--concurrency",
        type=_positive,
        help=f"researches in flight at once (default {RULES_CONCURRENCY} when this command starts the stack in rules "
        f"mode, else {LLM_CONCURRENCY}: an LLM endpoint's rate limits, or a stack of unknown engine)",
    )
    p.add_argument(
        "--split-date",
        type=_date_arg,
        help="in-sample before, out-of-sample from (default: the grid date nearest two thirds of the range)",
    )
    p.add_argument("--max-llm-calls", type=_positive, help="LLM mode: calls forwarded to the endpoint at most")
    p.add_argument("--max-llm-tokens", type=_positive, help="LLM mode: tokens (usage.total_tokens) at most")
    p.add_argument("--allow-short", action="store_true", help="realise SELL verdicts as shorts (default: flat)")
    p.add_argument("--no-baseline-run", action="store_true", help="skip the technical_only configuration (policy only)")


def _portfolio(p: argparse.ArgumentParser) -> None:
    """Costs, weighting and exposure of the simulated portfolio."""
    p.add_argument(
        "--cost",
        type=_cost_arg,
        default=ROUND_TRIP_COST,
        help=f"round-trip cost of a trade, a fraction of its value (default {ROUND_TRIP_COST}: 0.3 %%)",
    )
    p.add_argument(
        "--weighting",
        choices=WEIGHTINGS,
        default="equal",
        help="how the portfolio splits its gross exposure among its stocks (default equal)",
    )
    p.add_argument(
        "--exposure",
        choices=EXPOSURE_SOURCES,
        default="market",
        help="the portfolio's gross exposure: the budget times the market view's share (market, the default: the "
        "mean market_exposure of the date's verdicts, the whole budget when they state none), the sum of the "
        "chosen verdicts' positions capped at the budget (verdict), or the whole budget (constant)",
    )
    p.add_argument(
        "--exposure-budget",
        type=_budget_arg,
        default=1.0,
        help="the portfolio's gross-exposure budget, a fraction of the capital (default 1.0: no leverage)",
    )


def _where_to_run(p: argparse.ArgumentParser) -> None:
    """Output folder, and the stack: started here or a running one."""
    p.add_argument("--out", type=Path, help="output folder (default eval-results/<UTC timestamp>/)")
    p.add_argument(
        "--coordinators",
        type=_positive,
        default=DEFAULT_COORDINATORS,
        help="coordinator processes to start, each with its own SQLite store; researches are spread over them "
        f"(default {DEFAULT_COORDINATORS}: one coordinator is bound to one core)",
    )
    p.add_argument(
        "--coordinator-url",
        type=_list_arg,
        help=f"use this running coordinator (comma-separated: several; default with --research-url: "
        f"{DEFAULT_COORDINATOR_URL}) instead of starting the stack",
    )
    p.add_argument(
        "--research-url",
        help=f"the running research service (default with --coordinator-url: "
        f"{DEFAULT_RESEARCH_URL}) for the universe and the bars",
    )


@dataclass(frozen=True)
class Settings:
    """What one run evaluates, how its portfolio trades, and where the stack runs."""

    symbols: tuple[str, ...] | None
    start: date | None
    end: date | None
    grid: str
    experts: tuple[str, ...]
    concurrency: int | None
    """As given; ``default_concurrency`` otherwise."""
    split_date: date | None
    budget: Budget
    allow_short: bool
    baseline: bool
    out: Path
    coordinator_urls: tuple[str, ...] | None
    """A running stack's coordinators (None: start the stack)."""
    research_url: str | None
    coordinators: int
    command: str
    """The command as report.json records it (options that do not change the evaluation left out)."""
    full_command: str = ""
    cost: float = ROUND_TRIP_COST
    weighting: Weighting = "equal"
    exposure: ExposureSource = "market"
    exposure_budget: float = 1.0

    @property
    def configurations(self) -> dict[Configuration, tuple[str, ...]]:
        configurations: dict[Configuration, tuple[str, ...]] = {"policy": self.experts}
        if self.baseline:
            configurations["technical_only"] = (ExpertType.TECHNICAL_ANALYST.value,)
        return configurations


def reported_command(argv: Sequence[str]) -> str:
    kept: list[str] = []
    skip_next = False
    for arg in argv:
        if skip_next:
            skip_next = False
            continue
        name = arg.split("=", 1)[0]
        if name in _UNREPORTED_OPTIONS:
            skip_next = "=" not in arg
            continue
        kept.append(arg)
    return shlex.join(["research-eval", *kept])


def settings_from(argv: Sequence[str]) -> Settings:
    p = parser()
    args = p.parse_args(argv)
    experts = tuple(dict.fromkeys(args.experts or ALL_EXPERTS))
    unknown = [expert for expert in experts if expert not in ALL_EXPERTS]
    if unknown or not experts:
        p.error(f"--experts: unknown {', '.join(unknown) or '(none given)'}; one or more of {', '.join(ALL_EXPERTS)}")
    if args.start and args.end and args.start > args.end:
        p.error("--start is after --end")
    external = args.coordinator_url is not None or args.research_url is not None
    budget = Budget(args.max_llm_calls, args.max_llm_tokens)
    if external and budget.limited:
        p.error(
            "--max-llm-calls/--max-llm-tokens need the stack this command starts (its LLM calls go through "
            "the evaluator's proxy); a running stack's are not seen"
        )
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Settings(
        symbols=tuple(dict.fromkeys(args.symbols)) if args.symbols else None,
        start=args.start,
        end=args.end,
        grid=args.grid,
        experts=experts,
        concurrency=args.concurrency,
        split_date=args.split_date,
        budget=budget,
        allow_short=args.allow_short,
        baseline=not args.no_baseline_run,
        out=args.out if args.out is not None else Path("eval-results") / stamp,
        coordinator_urls=tuple(url.rstrip("/") for url in args.coordinator_url or [DEFAULT_COORDINATOR_URL])
        if external
        else None,
        coordinators=args.coordinators,
        research_url=(args.research_url or DEFAULT_RESEARCH_URL).rstrip("/") if external else None,
        command=reported_command(argv),
        full_command=shlex.join(["research-eval", *argv]),
        cost=args.cost,
        weighting=args.weighting,
        exposure=args.exposure,
        exposure_budget=args.exposure_budget,
    )
