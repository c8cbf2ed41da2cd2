"""``research-eval`` (``make evaluate ARGS="…"``, ``python -m evaluation``): the walk-forward evaluation.

Starts the four services (or uses a running stack), asks for a research of every symbol on every grid date
as of that date, once with the chosen experts (``policy``) and once with the technical analyst alone
(``technical_only``), scores the verdicts against the bars that followed and writes the report. Options:
``research-eval --help`` (``evaluation.options``); the researches: ``evaluation.walk_forward``; the files
written: ``evaluation.outputs``; outputs and the LLM budget: evaluation/README.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

from evaluation.llm_proxy import LLMProxy, serving
from evaluation.options import LLM_CONCURRENCY, RULES_CONCURRENCY, Settings, settings_from
from evaluation.outputs import engine_of, llm_summary, run_summary, summary_line, write_outputs, write_records
from evaluation.runner import BudgetGate
from evaluation.stack import running_stack, service_config
from evaluation.walk_forward import Evaluation, UsageError, evaluate
from service_kit.stack.launcher import free_port

DEFAULT_LLM_ENDPOINT = "https://api.openai.com/v1"


def llm_mode(config: dict[str, str]) -> bool:
    """Whether the services will use an LLM: ``ANALYSIS_ENGINE=llm``, or ``auto`` with an endpoint or key."""
    engine = config.get("ANALYSIS_ENGINE", "auto").strip().lower() or "auto"
    if engine == "auto":
        return bool(config.get("LLM_BASE_URL") or config.get("LLM_API_KEY"))
    return engine == "llm"


@dataclass
class _Stack:
    """The services a run talks to, and what run.json says of them."""

    coordinator_urls: list[str]
    research_url: str
    info: dict[str, Any]
    llm: bool
    service_cpu: Callable[[], dict[str, float]] | None = None
    proxy: LLMProxy | None = None
    upstream: str = ""


def _running_stack(settings: Settings) -> _Stack | None:
    """The running stack the options name, else None."""
    if settings.coordinator_urls is None or settings.research_url is None:
        return None
    urls = list(settings.coordinator_urls)
    info = {"started": False, "coordinators": urls, "research": settings.research_url}
    return _Stack(urls, settings.research_url, info, llm=False)


def _start_stack(settings: Settings, config: dict[str, str], resources: contextlib.ExitStack) -> _Stack:
    """The four services started here (their LLM calls through the evaluator's caching, budgeted proxy)."""
    llm = llm_mode(config)
    proxy: LLMProxy | None = None
    upstream = ""
    if llm:
        upstream = config.get("LLM_BASE_URL") or DEFAULT_LLM_ENDPOINT
        cache_dir = settings.out.resolve().parent / "llm-cache"
        proxy = LLMProxy(upstream=upstream, cache_dir=cache_dir, budget=settings.budget)
        config["LLM_BASE_URL"] = resources.enter_context(serving(proxy, free_port()))
    elif settings.budget.limited:
        print("research-eval: the services use the rules engines: --max-llm-* has nothing to limit", file=sys.stderr)
    print("research-eval: starting the services …", file=sys.stderr)
    stack = resources.enter_context(running_stack(settings.out / "logs", config, settings.coordinators))
    info = {
        "started": True,
        "logs": str(settings.out / "logs"),
        "analysis_engine": config.get("ANALYSIS_ENGINE", "auto"),
    }
    return _Stack(stack.coordinator_urls, stack.research_url, info, llm, stack.cpu_seconds, proxy, upstream)


def _with_concurrency(settings: Settings, stack: _Stack) -> Settings:
    """The settings with the default concurrency filled in: more for the rules stack started here."""
    if settings.concurrency is not None:
        return settings
    started_in_rules_mode = settings.coordinator_urls is None and not stack.llm
    return dataclasses.replace(settings, concurrency=RULES_CONCURRENCY if started_in_rules_mode else LLM_CONCURRENCY)


def _budget_gate(settings: Settings, proxy: LLMProxy | None) -> BudgetGate | None:
    """Stops sending researches once the proxy's counts reach the LLM budget (None: no budget to keep)."""
    if proxy is None or not settings.budget.limited:
        return None
    return BudgetGate(settings.budget, lambda: proxy.stats)


def _write_files(
    evaluation: Evaluation, settings: Settings, *, llm: bool, engine: str, phases: dict[str, float]
) -> tuple[list[Path], BaseException | None]:
    """records.jsonl, then the report's files; an error in the report is returned, not raised, so that run.json
    is still written (the researches are not lost)."""
    files: list[Path] = [write_records(evaluation.records, settings.out / "records.jsonl")]
    began = time.monotonic()
    report_error: BaseException | None = None
    try:
        files += write_outputs(evaluation, settings, llm=llm, engine=engine)
    except Exception as exc:
        report_error = exc
    phases["report_seconds"] = time.monotonic() - began
    return files, report_error


def run(settings: Settings) -> int:
    """Start (or reach) the stack, run the evaluation, write records, report and run.json."""
    started_at = datetime.now(UTC)
    began = time.monotonic()
    settings.out.mkdir(parents=True, exist_ok=True)
    phases: dict[str, float] = {}
    config = service_config()
    with contextlib.ExitStack() as resources:
        stack = _running_stack(settings)
        if stack is None:
            stack = _start_stack(settings, config, resources)
            phases["stack_start_seconds"] = time.monotonic() - began
        settings = _with_concurrency(settings, stack)
        gate = _budget_gate(settings, stack.proxy)
        evaluation = asyncio.run(
            evaluate(settings, stack.coordinator_urls, stack.research_url, gate, stack.service_cpu)
        )
        phases.update(evaluation.phases)
        llm_info = llm_summary(stack.proxy, settings, stack.upstream, config.get("LLM_MODEL"))
    llm = stack.llm or any(r.status == "ok" and r.engine not in (None, "rules") for r in evaluation.records)
    engine = engine_of(evaluation.records, llm, config)
    files, report_error = _write_files(evaluation, settings, llm=llm, engine=engine, phases=phases)
    summary = run_summary(
        evaluation,
        settings,
        started_at=started_at,
        wall=time.monotonic() - began,
        phases=phases,
        stack=stack.info,
        llm=llm_info,
        files=files,
    )
    if report_error is not None:
        summary["report_error"] = f"{type(report_error).__name__}: {report_error}"
    run_json = settings.out / "run.json"
    run_json.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(summary_line(summary), file=sys.stderr)
    if report_error is not None:
        raise report_error
    print(f"research-eval: {', '.join(str(p) for p in [*files, run_json])}", file=sys.stderr)
    return 0


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """``research-eval``: exit 0 done, 1 a failure of the stack or a request, 2 a usage error, 130 interrupted."""
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
