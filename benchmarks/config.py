"""The three sizes of a benchmark run: ``full`` (make bench, < 10 min on 2 cores), ``quick``, ``smoke`` (CI)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServiceLogging:
    """How the benchmarked services log. The default is quiet (warnings and errors, no access lines), so the
    figures are the orchestration's; ``deployed`` is what the Docker image runs (LOG_LEVEL=INFO, uvicorn's
    access line per request), and what that costs is measured in benchmarks/README.md (ninth round)."""

    level: str = "WARNING"
    access_log: bool = False

    def describe(self) -> str:
        return f"LOG_LEVEL={self.level}, access log {'on' if self.access_log else 'off'}"


DEPLOYED_LOGGING = ServiceLogging("INFO", access_log=True)


@dataclass(frozen=True)
class BenchConfig:
    name: str
    # 1. critical path (LLM mode): fake LLM latencies L and runs per L (one research + one sequential pipeline each)
    latencies_ms: tuple[int, ...]
    critical_runs: dict[int, int]
    # 2. concurrency (LLM mode, L = concurrency_latency_ms): levels, bursts per level, samples per round at level 1
    concurrency_latency_ms: int
    concurrency_levels: tuple[int, ...]
    concurrency_rounds: int
    single_samples_per_round: int
    # 3. rules mode: batches of sequential researches; closed-loop saturation (workers, seconds per run, runs)
    rules_rounds: int
    rules_batch: int
    saturation_workers: tuple[int, ...]
    saturation_seconds: float
    saturation_rounds: int
    # 4. LLM economy: runs of each scenario
    economy_runs: int
    # 5. profile and fix: in which modes; LLM bursts under the profiler, rules closed loop; before/after pairs
    profile_modes: tuple[str, ...]
    profile_llm_concurrency: int
    profile_llm_bursts: int
    profile_rules_workers: int
    profile_rules_seconds: float
    compare_llm_pairs: int
    compare_rules_pairs: int
    compare_throughput_seconds: float
    compare_throughput_workers: int
    compare_throughput_rounds: int
    # every section: how the services log (``--service-logging``)
    service_logging: ServiceLogging = field(default_factory=ServiceLogging)
    # 7. the job path on PostgreSQL: paired rounds (direct / job), concurrent submissions of the burst
    job_path_rounds: int = 60
    job_path_burst: int = 100
    # 8. batches (rules mode): single batches of every symbol timed, month-ends of the evaluation-like grid
    batch_rounds: int = 3
    batch_dates: int = 24
    # 9. replicas 1/2/3 on PostgreSQL in LLM mode: batches of every symbol (0: the section is skipped)
    replica_batches: int = 2


FULL = BenchConfig(
    name="full",
    latencies_ms=(200, 1000),
    critical_runs={200: 11, 1000: 5},
    concurrency_latency_ms=200,
    concurrency_levels=(1, 10, 50, 100, 200),
    concurrency_rounds=3,
    single_samples_per_round=5,
    rules_rounds=3,
    rules_batch=40,
    saturation_workers=(1, 4, 8, 16, 32),
    saturation_seconds=5.0,
    saturation_rounds=2,
    economy_runs=3,
    profile_modes=("llm", "rules"),
    profile_llm_concurrency=50,
    profile_llm_bursts=3,
    profile_rules_workers=8,
    profile_rules_seconds=6.0,
    compare_llm_pairs=11,
    compare_rules_pairs=40,
    compare_throughput_seconds=5.0,
    compare_throughput_workers=8,
    compare_throughput_rounds=2,
)

QUICK = BenchConfig(
    name="quick",
    batch_rounds=2,
    batch_dates=6,
    replica_batches=1,
    job_path_rounds=30,
    latencies_ms=(200,),
    critical_runs={200: 5},
    concurrency_latency_ms=200,
    concurrency_levels=(1, 10, 50, 100),
    concurrency_rounds=2,
    single_samples_per_round=3,
    rules_rounds=2,
    rules_batch=20,
    saturation_workers=(4, 16),
    saturation_seconds=3.0,
    saturation_rounds=1,
    economy_runs=1,
    profile_modes=("llm", "rules"),
    profile_llm_concurrency=20,
    profile_llm_bursts=2,
    profile_rules_workers=8,
    profile_rules_seconds=3.0,
    compare_llm_pairs=5,
    compare_rules_pairs=20,
    compare_throughput_seconds=3.0,
    compare_throughput_workers=8,
    compare_throughput_rounds=1,
)

SMOKE = BenchConfig(
    name="smoke",
    batch_rounds=1,
    batch_dates=2,
    replica_batches=0,
    job_path_rounds=5,
    job_path_burst=10,
    latencies_ms=(20,),
    critical_runs={20: 2},
    concurrency_latency_ms=20,
    concurrency_levels=(1, 4),
    concurrency_rounds=1,
    single_samples_per_round=2,
    rules_rounds=1,
    rules_batch=3,
    saturation_workers=(2,),
    saturation_seconds=0.5,
    saturation_rounds=1,
    economy_runs=1,
    profile_modes=("rules",),  # the LLM-mode profile shares its code; one stack fewer keeps the smoke short
    profile_llm_concurrency=2,
    profile_llm_bursts=1,
    profile_rules_workers=2,
    profile_rules_seconds=0.5,
    compare_llm_pairs=2,
    compare_rules_pairs=2,
    compare_throughput_seconds=0.5,
    compare_throughput_workers=2,
    compare_throughput_rounds=1,
)

CONFIGS = {c.name: c for c in (FULL, QUICK, SMOKE)}
