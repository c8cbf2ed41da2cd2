"""``research-eval`` (``make evaluate ARGS="…"``, ``python -m evaluation``): the walk-forward evaluation.

Starts the four services (or uses a running stack), asks for a research of every symbol on every grid date
as of that date, once with the chosen experts (``policy``) and once with the technical analyst alone
(``technical_only``), scores the verdicts against the bars that followed and writes the report. Options:
``research-eval --help``; outputs and the LLM budget: evaluation/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from evaluation.baselines import EXPOSURE_SOURCES, WEIGHTINGS, ExposureSource, Weighting
from evaluation.grid import GRIDS, default_split, grid_dates
from evaluation.llm_proxy import Budget, LLMProxy, LLMStats, serving
from evaluation.records import Configuration, ResearchRecord
from evaluation.runner import (
    BudgetGate,
    Progress,
    RunOutcome,
    fetch_all_bars,
    fetch_universe,
    plan_jobs,
    record_key,
    run_jobs,
)
from evaluation.stack import free_port, running_stack, service_config
from shared_contracts.experts import ExpertType
from shared_contracts.scoring import ROUND_TRIP_COST, DailyBar

ALL_EXPERTS = tuple(expert.value for expert in ExpertType)
DEFAULT_COORDINATOR_URL = "http://127.0.0.1:8000"
DEFAULT_RESEARCH_URL = "http://127.0.0.1:8001"
DEFAULT_LLM_ENDPOINT = "https://api.openai.com/v1"
RULES_CONCURRENCY = 32
"""Rules mode on the stack started here: enough to keep 2 cores busy (the coordinators' CPU is the limit)."""
LLM_CONCURRENCY = 8
"""LLM mode (up to 5 LLM calls at once per research), or a running stack whose engine is unknown."""
DEFAULT_COORDINATORS = 2
REQUEST_TIMEOUT_S = 600.0
"""One research's answer: the coordinator's own budgets (experts 120 s, debate 180 s, judge 90 s) fit in it."""
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
    p = argparse.ArgumentParser(
        prog="research-eval",
        description="Walk-forward evaluation: a point-in-time research per symbol and grid date through the real "
        "stack, each verdict scored on the bars that followed, against baselines.",
    )
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
    return p


@dataclass(frozen=True)
class Settings:
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


def llm_mode(config: dict[str, str]) -> bool:
    """Whether the services will use an LLM: ``ANALYSIS_ENGINE=llm``, or ``auto`` with an endpoint or key."""
    engine = config.get("ANALYSIS_ENGINE", "auto").strip().lower() or "auto"
    if engine == "auto":
        return bool(config.get("LLM_BASE_URL") or config.get("LLM_API_KEY"))
    return engine == "llm"


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass
class Evaluation:
    """What a run produced, and how long each part took."""

    records: list[ResearchRecord]
    bars: dict[str, list[DailyBar]]
    symbols: tuple[str, ...]
    dates: list[date]
    start: date
    end: date
    split_date: date
    outcome: RunOutcome
    skipped: int
    phases: dict[str, float] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    """CPU time each process used during the researches (the client is this process)."""


class UsageError(Exception):
    """A setting the stack's data cannot satisfy (no symbols, an empty grid)."""


def _cpu_now(services: Callable[[], dict[str, float]] | None) -> dict[str, float]:
    return {**(services() if services is not None else {}), "client": time.process_time()}


async def evaluate(
    settings: Settings,
    coordinator_urls: Sequence[str],
    research_url: str,
    gate: BudgetGate | None,
    service_cpu: Callable[[], dict[str, float]] | None = None,
) -> Evaluation:
    """Universe, bars, grid, the researches (their CPU per process measured when ``service_cpu`` can)."""
    phases: dict[str, float] = {}
    concurrency = settings.concurrency or LLM_CONCURRENCY
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    timeout = httpx.Timeout(REQUEST_TIMEOUT_S, connect=10.0)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:
        began = time.monotonic()
        symbols = settings.symbols
        if symbols is None:
            universe = await fetch_universe(client, research_url)
            if universe.open_ended:
                raise UsageError(
                    f"the research service's data provider ({universe.data_provider}) has no list of "
                    "symbols: pass --symbols"
                )
            symbols = tuple(sorted(item.symbol for item in universe.symbols))
        if not symbols:
            raise UsageError("no symbols to evaluate")
        bars = await fetch_all_bars(client, research_url, symbols, concurrency)
        phases["bars_seconds"] = time.monotonic() - began
        known = [series for series in bars.values() if series]
        if (settings.start is None or settings.end is None) and not known:
            raise UsageError("none of the symbols has bars: pass --start and --end")
        start = settings.start or min(series[0].day for series in known)
        end = settings.end or max(series[-1].day for series in known)
        dates = grid_dates(settings.grid, start, end)
        if not dates:
            raise UsageError(f"no {settings.grid} date between {start} and {end}")
        split = settings.split_date or default_split(dates, start, end)
        first_bar = {symbol: series[0].day for symbol, series in bars.items() if series}
        jobs, skipped = plan_jobs(settings.configurations, symbols, dates, first_bar)
        print(
            f"research-eval: {len(symbols)} symbols × {len(dates)} {settings.grid} dates ({dates[0]} → {dates[-1]}) × "
            f"{len(settings.configurations)} configurations: {len(jobs)} researches ({len(skipped)} grid dates before "
            f"a symbol's first bar skipped), concurrency {concurrency} over {len(coordinator_urls)} coordinator(s)",
            file=sys.stderr,
        )
        progress = Progress(len(jobs))
        cpu_before = _cpu_now(service_cpu)
        try:
            outcome = await run_jobs(
                client, coordinator_urls, jobs, concurrency=concurrency, gate=gate, progress=progress
            )
        finally:
            progress.close()
        phases["researches_seconds"] = outcome.seconds
        cpu_after = _cpu_now(service_cpu)
        cpu = {name: cpu_after[name] - cpu_before[name] for name in cpu_after if name in cpu_before}
    records = sorted([*outcome.records, *skipped], key=record_key)
    return Evaluation(records, bars, tuple(symbols), dates, start, end, split, outcome, len(skipped), phases, cpu)


def _git(*args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", *args], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit() -> str:
    """The checked-out commit, ``+dirty`` when tracked files differ from it (untracked files do not count)."""
    head = _git("rev-parse", "--short=12", "HEAD")
    if head is None or head.returncode != 0:
        return ""
    diff = _git("diff", "--quiet", "HEAD", "--")
    return head.stdout.strip() + ("+dirty" if diff is not None and diff.returncode == 1 else "")


def machine() -> str:
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def engine_of(records: Sequence[ResearchRecord], llm: bool, config: dict[str, str]) -> str:
    """The engines the verdicts came from (``rules``, the LLM model), else the configured one."""
    seen = sorted({r.engine for r in records if r.status == "ok" and r.engine})
    if seen:
        return ", ".join(seen)
    return config.get("LLM_MODEL", "llm") if llm else "rules"


def write_outputs(evaluation: Evaluation, settings: Settings, *, llm: bool, engine: str) -> list[Path]:
    """report.json, report.md and the charts, by ``evaluation.report`` (imported when needed)."""
    from evaluation.report import ReportOptions, build_report, write_report  # the report's modules, when needed

    options = ReportOptions(
        start=evaluation.start,
        end=evaluation.end,
        split_date=evaluation.split_date,
        grid=settings.grid,
        experts=settings.experts,
        engine=engine,
        allow_short=settings.allow_short,
        command=settings.command,
        commit=git_commit(),
        machine=machine(),
        llm=llm,
        cost=settings.cost,
        weighting=settings.weighting,
        exposure=settings.exposure,
        budget=settings.exposure_budget,
    )
    return write_report(build_report(evaluation.records, evaluation.bars, options), settings.out)


def write_records(records: Sequence[ResearchRecord], path: Path) -> Path:
    """Every record, one JSON object a line (the report's input: a report can be rebuilt from it)."""
    lines = []
    for record in records:
        fields = dataclasses.asdict(record)
        fields["analysis_date"] = record.analysis_date.isoformat()
        fields["as_of"] = record.as_of.isoformat() if record.as_of else None
        fields["failed_experts"] = list(record.failed_experts)
        lines.append(json.dumps(fields, ensure_ascii=False, sort_keys=True))
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def _llm_summary(proxy: LLMProxy | None, settings: Settings, upstream: str, model: str | None) -> dict[str, Any]:
    if proxy is None:
        return {"mode": False}
    stats: LLMStats = proxy.stats
    return {
        "mode": True,
        "endpoint": _without_credentials(upstream),
        "model": model,
        "cache_dir": str(proxy.cache_dir),
        "upstream_calls": stats.upstream_calls,
        "upstream_tokens": stats.upstream_tokens,
        "upstream_errors": stats.upstream_errors,
        "cache_hits": stats.cache_hits,
        "cache_hit_tokens": stats.cache_hit_tokens,
        "refused_over_budget": stats.refused_over_budget,
        "max_calls": settings.budget.max_calls,
        "max_tokens": settings.budget.max_tokens,
    }


def run_summary(
    evaluation: Evaluation,
    settings: Settings,
    *,
    started_at: datetime,
    wall: float,
    phases: dict[str, float],
    stack: dict[str, Any],
    llm: dict[str, Any],
    files: Sequence[Path],
) -> dict[str, Any]:
    outcome = evaluation.outcome
    by_status = Counter(r.status for r in outcome.records)
    by_configuration = {
        configuration: dict(
            sorted(Counter(r.status for r in outcome.records if r.configuration == configuration).items())
        )
        for configuration in settings.configurations
    }
    failures = Counter(r.reason.split(":")[0] for r in outcome.records if r.status == "failed")
    seconds = phases.get("researches_seconds", 0.0)
    return {
        "command": settings.full_command,
        "out": str(settings.out),
        "started_at": started_at.isoformat(timespec="seconds"),
        "wall_seconds": round(wall, 3),
        "phases_seconds": {name: round(value, 3) for name, value in phases.items()},
        "throughput_per_second": round(outcome.sent / seconds, 2) if seconds > 0 else None,
        "concurrency": settings.concurrency,
        "coordinators": settings.coordinators if settings.coordinator_urls is None else len(settings.coordinator_urls),
        "cpu_ms_per_research": {
            name: round(1000 * seconds / outcome.sent, 2) for name, seconds in evaluation.cpu_seconds.items()
        }
        if outcome.sent
        else {},
        "symbols": len(evaluation.symbols),
        "grid": settings.grid,
        "grid_dates": len(evaluation.dates),
        "start": evaluation.start.isoformat(),
        "end": evaluation.end.isoformat(),
        "split_date": evaluation.split_date.isoformat(),
        "configurations": {name: list(experts) for name, experts in settings.configurations.items()},
        "researches": {
            "sent": outcome.sent,
            "by_status": dict(sorted(by_status.items())),
            "by_configuration": by_configuration,
            "skipped_before_first_bar": evaluation.skipped,
            "not_run_llm_budget": outcome.not_run,
            "failure_reasons": dict(failures.most_common(10)),
        },
        "budget_stop": outcome.budget_stop,
        "llm": llm,
        "stack": stack,
        "machine": machine(),
        "load_average_at_end": [round(value, 2) for value in os.getloadavg()],
        "commit": git_commit(),
        "files": [str(path) for path in files],
    }


def _summary_line(summary: dict[str, Any]) -> str:
    researches = summary["researches"]
    statuses = ", ".join(f"{name} {count}" for name, count in researches["by_status"].items()) or "none"
    seconds = summary["phases_seconds"].get("researches_seconds", 0.0)
    rate = summary["throughput_per_second"]
    line = (
        f"research-eval: {researches['sent']} researches in {seconds:.1f} s ({rate if rate is not None else '–'}/s; "
        f"{statuses}); wall time {summary['wall_seconds']:.1f} s"
    )
    if summary["budget_stop"]:
        line += f"\nresearch-eval: stopped early, {researches['not_run_llm_budget']} not run: {summary['budget_stop']}"
    llm = summary["llm"]
    if llm.get("mode"):
        line += (
            f"\nresearch-eval: LLM {llm['upstream_calls']} calls / {llm['upstream_tokens']} tokens to the endpoint, "
            f"{llm['cache_hits']} answered from the cache ({llm['cache_dir']})"
        )
    if researches["failure_reasons"]:
        line += "\nresearch-eval: failures by reason: " + ", ".join(
            f"{reason} ×{count}" for reason, count in researches["failure_reasons"].items()
        )
    return line


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run(settings: Settings) -> int:
    started_at = datetime.now(UTC)
    began = time.monotonic()
    settings.out.mkdir(parents=True, exist_ok=True)
    phases: dict[str, float] = {}
    config = service_config()
    proxy: LLMProxy | None = None
    upstream = ""
    with contextlib.ExitStack() as resources:
        if settings.coordinator_urls is not None and settings.research_url is not None:
            coordinator_urls, research_url = list(settings.coordinator_urls), settings.research_url
            stack_info: dict[str, Any] = {
                "started": False,
                "coordinators": coordinator_urls,
                "research": research_url,
            }
            llm = False
            service_cpu = None
        else:
            llm = llm_mode(config)
            if llm:
                upstream = config.get("LLM_BASE_URL") or DEFAULT_LLM_ENDPOINT
                cache_dir = settings.out.resolve().parent / "llm-cache"
                proxy = LLMProxy(upstream=upstream, cache_dir=cache_dir, budget=settings.budget)
                config["LLM_BASE_URL"] = resources.enter_context(serving(proxy, free_port()))
            elif settings.budget.limited:
                print(
                    "research-eval: the services use the rules engines: --max-llm-* has nothing to limit",
                    file=sys.stderr,
                )
            print("research-eval: starting the services …", file=sys.stderr)
            stack = resources.enter_context(running_stack(settings.out / "logs", config, settings.coordinators))
            service_cpu = stack.cpu_seconds
            coordinator_urls, research_url = stack.coordinator_urls, stack.research_url
            phases["stack_start_seconds"] = time.monotonic() - began
            stack_info = {
                "started": True,
                "logs": str(settings.out / "logs"),
                "analysis_engine": config.get("ANALYSIS_ENGINE", "auto"),
            }
        if settings.concurrency is None:
            started_in_rules_mode = settings.coordinator_urls is None and not llm
            settings = dataclasses.replace(
                settings, concurrency=RULES_CONCURRENCY if started_in_rules_mode else LLM_CONCURRENCY
            )
        gate = None
        if proxy is not None and settings.budget.limited:
            counted = proxy
            gate = BudgetGate(settings.budget, lambda: counted.stats)
        evaluation = asyncio.run(evaluate(settings, coordinator_urls, research_url, gate, service_cpu))
        phases.update(evaluation.phases)
        llm_info = _llm_summary(proxy, settings, upstream, config.get("LLM_MODEL"))
    llm = llm or any(r.status == "ok" and r.engine not in (None, "rules") for r in evaluation.records)
    records_path = write_records(evaluation.records, settings.out / "records.jsonl")
    began_report = time.monotonic()
    files: list[Path] = [records_path]
    report_error: BaseException | None = None
    try:
        files += write_outputs(evaluation, settings, llm=llm, engine=engine_of(evaluation.records, llm, config))
    except Exception as exc:  # the researches are not lost: run.json still says what ran, and why no report
        report_error = exc
    phases["report_seconds"] = time.monotonic() - began_report
    summary = run_summary(
        evaluation,
        settings,
        started_at=started_at,
        wall=time.monotonic() - began,
        phases=phases,
        stack=stack_info,
        llm=llm_info,
        files=files,
    )
    if report_error is not None:
        summary["report_error"] = f"{type(report_error).__name__}: {report_error}"
    run_json = settings.out / "run.json"
    run_json.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(_summary_line(summary), file=sys.stderr)
    if report_error is not None:
        raise report_error
    print(f"research-eval: {', '.join(str(p) for p in [*files, run_json])}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    settings = settings_from(sys.argv[1:] if argv is None else argv)
    previous = signal.signal(signal.SIGTERM, _terminate)  # SIGTERM stops the services as Ctrl-C does
    try:
        return run(settings)
    except KeyboardInterrupt:
        print("\nresearch-eval: interrupted; the services are stopped", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"research-eval: {exc}", file=sys.stderr)
        return 2
    except (RuntimeError, httpx.HTTPError) as exc:
        print(f"research-eval: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
