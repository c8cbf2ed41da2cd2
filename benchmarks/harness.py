"""Processes and measurement helpers shared by the benchmark sections.

The services run as real uvicorn processes on loopback, started by the workspace's launcher
(``service_kit.stack.launcher``: ``running_stack``, ``ServiceProcess``); the fake LLM is
``stack_fakes.fake_llm`` in its own process.
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.config import ServiceLogging
from service_kit.stack.launcher import ServiceProcess, Stack, free_port, process_cpu_seconds, running_stack
from stack_fakes.fake_llm import running_fake_llm
from verdict_statistics.quantiles import percentile

__all__ = ["ServiceProcess", "Stack", "free_port", "percentile", "running_stack"]

REPO_ROOT = Path(__file__).resolve().parent.parent

EXPERTS = ("technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence", "catalyst_detective")
SYMBOL = "600519.SH"
SERVICES = ("research", "debate", "judge", "coordinator")
PROFILED_COORDINATOR_APP = "benchmarks.profiled_app:create_app"
FLOOR_APPS = {name: f"benchmarks.floor_apps:create_{name}" for name in SERVICES}


def research_body(symbol: str = SYMBOL, experts: Sequence[str] = EXPERTS) -> dict[str, Any]:
    return {"symbol": symbol, "experts": list(experts)}


# ----------------------------------------------------------------------------------------- statistics


def median(values: Sequence[float]) -> float:
    clean = [v for v in values if not math.isnan(v)]
    return statistics.median(clean) if clean else math.nan


def rounded(value: float, digits: int = 1) -> float | None:
    return None if value is None or math.isnan(value) else round(value, digits)


# ---------------------------------------------------------------------------------------- the machine


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def machine_info() -> dict[str, Any]:
    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def git_revision() -> str:
    """The checked-out commit (read-only) and whether the tree has local changes."""
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + ("+local changes" if dirty else "")


# ---------------------------------------------------------------------------------------- peak memory


def _status_kb(pid: int, key: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def reset_peak_rss(pids: Mapping[str, int]) -> None:
    """Reset each process's VmHWM (``echo 5 > /proc/<pid>/clear_refs``) so the next reading is this window's."""
    for pid in pids.values():
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/clear_refs").write_text("5")


def peak_rss_mb(pids: Mapping[str, int]) -> dict[str, float | None]:
    """Peak resident set size (VmHWM) of each process since start or the last reset, in MiB."""
    out: dict[str, float | None] = {}
    for name, pid in pids.items():
        kb = _status_kb(pid, "VmHWM")
        out[name] = None if kb is None else round(kb / 1024, 1)
    return out


def cpu_seconds(pids: Mapping[str, int]) -> dict[str, float]:
    """User + system CPU time of each process so far (``/proc/<pid>/stat``), plus this process (the load
    generator) as ``client``."""
    out: dict[str, float] = {}
    for name, pid in pids.items():
        seconds = process_cpu_seconds(pid)
        if seconds is not None:
            out[name] = seconds
    times = os.times()
    out["client"] = times.user + times.system
    return out


def cpu_ms_per(before: Mapping[str, float], after: Mapping[str, float], n: int) -> dict[str, float]:
    return {k: round((after[k] - before.get(k, 0.0)) * 1000 / max(n, 1), 1) for k in after}


# ------------------------------------------------------------------------------------------- the stack


@dataclass
class BenchStack:
    """The four services (and, in LLM mode, the fake LLM) as processes on loopback."""

    stack: Stack
    fake_llm: ServiceProcess | None
    workdir: Path
    mode: str
    pids: dict[str, int] = field(default_factory=dict)

    def url(self, service: str) -> str:
        process: ServiceProcess | None = self.fake_llm if service == "fake_llm" else self.stack[service]
        assert process is not None
        url: str = process.url
        return url

    @property
    def coordinator(self) -> str:
        return self.url("coordinator")

    # fake LLM control
    def set_script(self, script: Mapping[str, Any]) -> None:
        httpx.put(self.url("fake_llm") + "/_control/script", json=dict(script), timeout=10).raise_for_status()

    def reset_calls(self) -> None:
        httpx.post(self.url("fake_llm") + "/_control/reset", timeout=10).raise_for_status()

    def calls(self) -> list[dict[str, Any]]:
        response = httpx.get(self.url("fake_llm") + "/_control/calls", timeout=30)
        response.raise_for_status()
        calls: list[dict[str, Any]] = response.json()
        return calls


def llm_env(fake_llm_url: str) -> dict[str, str]:
    return {
        "ANALYSIS_ENGINE": "llm",
        "LLM_BASE_URL": fake_llm_url + "/v1",
        "LLM_API_KEY": "bench-key",
        "LLM_MODEL": "fake-bench",
        "LLM_FALLBACK_TO_RULES": "false",
    }


@contextlib.contextmanager
def bench_stack(
    workdir: Path,
    *,
    mode: str,
    script: Mapping[str, Any] | None = None,
    apps: Mapping[str, str] | None = None,
    coordinator_env: Mapping[str, str] | None = None,
    service_env: Mapping[str, str] | None = None,
    service_logging: ServiceLogging | None = None,
) -> Iterator[BenchStack]:
    """``mode`` is ``"llm"`` (every role answered by the fake LLM) or ``"rules"`` (no LLM at all);
    ``apps`` replaces services' ``uvicorn --factory`` targets (``FLOOR_APPS``, the profiled coordinator);
    ``service_env`` is added to the environment of the four services (not the fake LLM's);
    ``service_logging`` is how they log (quiet unless given)."""
    workdir.mkdir(parents=True, exist_ok=True)
    service_logging = service_logging or ServiceLogging()
    common = {"LOG_LEVEL": service_logging.level}
    with contextlib.ExitStack() as resources:
        fake: ServiceProcess | None = None
        if mode == "llm":
            fake = resources.enter_context(running_fake_llm(workdir, dict(script or {}), log_level="WARNING")).process
            common.update(llm_env(fake.url))
        else:
            common["ANALYSIS_ENGINE"] = "rules"
        common.update(service_env or {})
        per_service = {"coordinator": dict(coordinator_env or {})}
        stack = resources.enter_context(
            running_stack(
                workdir,
                common_env=common,
                per_service_env=per_service,
                access_log=service_logging.access_log,
                apps=apps,
                cwd=REPO_ROOT,  # the floor's and the profiled coordinator's factories are benchmarks.* modules
            )
        )
        processes = {name: stack[name].process for name in SERVICES} | {"fake_llm": fake.process if fake else None}
        pids = {name: process.pid for name, process in processes.items() if process is not None}
        yield BenchStack(stack=stack, fake_llm=fake, workdir=workdir, mode=mode, pids=pids)


def wait_idle(seconds: float = 0.3) -> None:
    """A short pause between measured batches (lets sockets close and the load settle)."""
    time.sleep(seconds)
