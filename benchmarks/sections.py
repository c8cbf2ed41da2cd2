"""The measurements of issue 8, one function per section. Each returns a JSON-able dict; nothing here
judges a target (the report does, as information)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx

from benchmarks import llm_script
from benchmarks.config import BenchConfig
from benchmarks.harness import (
    EXPERTS,
    SYMBOL,
    BenchStack,
    cpu_ms_per,
    cpu_seconds,
    loadavg,
    median,
    peak_rss_mb,
    percentile,
    reset_peak_rss,
    wait_idle,
)
from benchmarks.load import Burst, Outcome, burst, client, closed_loop, is_full_success, one_research, sequential
from service_kit.stack.api_paths import DEBATE_RUN, EXPERT_PATH, JUDGE_VERDICT, RESEARCH
from shared_contracts.projection import project_expert_results
from stack_fakes.fake_llm import estimate_tokens

Log = Callable[[str], None]

# LLM calls of a full research, in the order the stages start: 5 experts ∥, bull ∥ bear, resolution, judge.
STAGES = (("experts", 5), ("advocates", 2), ("resolution", 1), ("judge", 1))
CRITICAL_HOPS = 4


def _dur_ms(call: dict[str, Any]) -> float:
    return (float(call["ended"]) - float(call["started"])) * 1000


def _stages(calls: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]] | None:
    """Split one research's LLM calls (one research at a time) into its four stages by start order."""
    ordered = sorted(calls, key=lambda c: float(c["started"]))
    if len(ordered) != sum(n for _, n in STAGES):
        return None
    out: dict[str, list[dict[str, Any]]] = {}
    i = 0
    for name, n in STAGES:
        out[name] = ordered[i : i + n]
        i += n
    return out


def _hops(outcome: Outcome, stages: dict[str, list[dict[str, Any]]]) -> dict[str, float]:
    """Time spent outside the LLM between the stages (same host monotonic clock in every process)."""
    experts, advocates = stages["experts"], stages["advocates"]
    resolution, judge = stages["resolution"][0], stages["judge"][0]
    first_expert = min(float(c["started"]) for c in experts)
    return {
        "client_to_first_expert_llm_call": (first_expert - outcome.started) * 1000,
        "expert_llm_calls_start_spread": (max(float(c["started"]) for c in experts) - first_expert) * 1000,
        "last_expert_to_advocates": (
            min(float(c["started"]) for c in advocates) - max(float(c["ended"]) for c in experts)
        )
        * 1000,
        "advocates_to_resolution": (float(resolution["started"]) - max(float(c["ended"]) for c in advocates)) * 1000,
        "resolution_to_judge": (float(judge["started"]) - float(resolution["ended"])) * 1000,
        "judge_to_client": (outcome.ended - float(judge["ended"])) * 1000,
    }


async def _post(http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    response = await http.post(url, json=body)
    ms = (time.perf_counter() - t0) * 1000
    response.raise_for_status()
    return response.json(), ms


async def sequential_pipeline(stack: BenchStack) -> dict[str, Any]:
    """The same nine LLM calls made one after another, as a sequential design would: each of the five
    experts called on the research service in turn, then the debate, then the judge, each call waiting for
    the previous one. The debate service runs bull ∥ bear internally; the sequential figure adds the
    measured duration of the shorter advocate call (from the fake LLM's log) to serialise that pair too."""
    from coordinator.infrastructure.adapters.judge_gateway_adapter import to_judge_input

    research, debate, judge = stack.url("research"), stack.url("debate"), stack.url("judge")
    call_ms: dict[str, float] = {}
    async with client(1) as http:
        results: dict[str, Any] = {}
        for expert in EXPERTS:
            results[expert], call_ms[expert] = await _post(
                http, research + EXPERT_PATH.format(expert=expert), {"symbol": SYMBOL}
            )
        summaries = {name: s.model_dump() for name, s in project_expert_results(results).items()}
        outcome, call_ms["debate"] = await _post(
            http, debate + DEBATE_RUN, {"symbol": SYMBOL, "expert_results": summaries}
        )
        judge_input = to_judge_input(SYMBOL, outcome, {"expert_results": results}).model_dump(mode="json")
        _, call_ms["judge"] = await _post(http, judge + JUDGE_VERDICT, judge_input)
    return {"call_ms": call_ms, "sum_ms": sum(call_ms.values())}


# --------------------------------------------------------------------------- 1. critical-path efficiency


async def _one_at_a_time(stack: BenchStack) -> tuple[Outcome, dict[str, float] | None]:
    """One research on a fresh client, and its hops from the fake LLM's record of the calls."""
    stack.reset_calls()
    async with client(1) as http:
        outcome = await one_research(http, stack.coordinator)
    stages = _stages(stack.calls())
    return outcome, _hops(outcome, stages) if stages is not None else None


def _paired_floor(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The floor's one-at-a-time runs made right after section 1's, and ours = product − floor run by run."""
    pairs = [r for r in runs if "ours_ms" in r]
    if not pairs:
        return None
    hop_names = list(pairs[0]["floor"]["hops_ms"])
    return {
        "runs": len(pairs),
        "floor_overhead_p50_ms": median([r["floor"]["overhead_ms"] for r in pairs]),
        "floor_hops_p50_ms": {h: median([r["floor"]["hops_ms"][h] for r in pairs]) for h in hop_names},
        "ours_p50_ms": median([r["ours_ms"] for r in pairs]),
        "ours_hops_p50_ms": {h: median([r["ours_hops_ms"][h] for r in pairs]) for h in hop_names},
    }


async def critical_path(
    stack: BenchStack, cfg: BenchConfig, log: Log, floor_stack: BenchStack | None = None
) -> dict[str, Any]:
    """Section 1. With ``floor_stack`` (section 6's apps, running beside the product's), every run at the floor's
    latency is followed by one floor research, so each difference product − floor sees the same minute of the
    machine."""
    per_latency: list[dict[str, Any]] = []
    for latency in cfg.latencies_ms:
        stack.set_script(llm_script.script(latency))
        async with client(1) as http:  # warm-up: connections, imports, first-call caches
            await one_research(http, stack.coordinator)
        await sequential_pipeline(stack)
        paired = floor_stack if floor_stack is not None and latency == cfg.concurrency_latency_ms else None
        if paired is not None:
            paired.set_script(llm_script.script(latency))
            await _one_at_a_time(paired)  # warm-up
        runs: list[dict[str, Any]] = []
        load_before = loadavg()
        for i in range(cfg.critical_runs[latency]):
            stack.reset_calls()
            async with client(1) as http:
                outcome = await one_research(http, stack.coordinator)
            calls = stack.calls()
            stages = _stages(calls)
            stack.reset_calls()
            seq = await sequential_pipeline(stack)
            seq_calls = stack.calls()
            seq_stages = _stages(seq_calls)
            critical = CRITICAL_HOPS * latency
            run: dict[str, Any] = {
                "ok": outcome.ok,
                "error": outcome.error,
                "wall_ms": outcome.ms,
                "llm_calls": len(calls),
                "overhead_ms": outcome.ms - critical,
                "overhead_pct": (outcome.ms - critical) / critical * 100,
            }
            if stages is not None:
                run["llm_path_ms"] = sum(max(_dur_ms(c) for c in stages[name]) for name, _ in STAGES)
                run["hops_ms"] = _hops(outcome, stages)
            if seq_stages is not None:
                serialised = min(_dur_ms(c) for c in seq_stages["advocates"])
                run["sequential_ms"] = seq["sum_ms"] + serialised
                run["sequential_calls_ms"] = {**seq["call_ms"], "serialised_advocate": serialised}
                run["sequential_ratio"] = run["sequential_ms"] / outcome.ms
            if paired is not None:
                floor_outcome, floor_hops = await _one_at_a_time(paired)
                if floor_outcome.ok and floor_hops is not None:
                    run["floor"] = {"overhead_ms": floor_outcome.ms - critical, "hops_ms": floor_hops}
                    if outcome.ok and "hops_ms" in run:
                        run["ours_ms"] = run["overhead_ms"] - run["floor"]["overhead_ms"]
                        run["ours_hops_ms"] = {h: v - floor_hops[h] for h, v in run["hops_ms"].items()}
            runs.append(run)
            log(
                f"  L={latency} ms run {i + 1}: wall {outcome.ms:.1f} ms, overhead {run['overhead_ms']:.1f} ms, "
                f"sequential {run.get('sequential_ms', float('nan')):.1f} ms"
                + (f", floor overhead {run['floor']['overhead_ms']:.1f} ms" if "floor" in run else "")
            )
        walls = [r["wall_ms"] for r in runs if r["ok"]]
        hop_names = list(runs[0].get("hops_ms", {})) if runs else []
        per_latency.append(
            {
                "latency_ms": latency,
                "runs": len(runs),
                "errors": sum(not r["ok"] for r in runs),
                "llm_calls_per_research": median([r["llm_calls"] for r in runs]),
                "critical_path_ms": CRITICAL_HOPS * latency,
                "wall_p50_ms": median(walls),
                "wall_p95_ms": percentile(walls, 0.95),
                "overhead_p50_ms": median([r["overhead_ms"] for r in runs if r["ok"]]),
                "overhead_p95_ms": percentile([r["overhead_ms"] for r in runs if r["ok"]], 0.95),
                "overhead_p50_pct": median([r["overhead_pct"] for r in runs if r["ok"]]),
                "llm_path_p50_ms": median([r["llm_path_ms"] for r in runs if "llm_path_ms" in r]),
                "hops_p50_ms": {h: median([r["hops_ms"][h] for r in runs if "hops_ms" in r]) for h in hop_names},
                "sequential_p50_ms": median([r["sequential_ms"] for r in runs if "sequential_ms" in r]),
                "sequential_ratio_p50": median([r["sequential_ratio"] for r in runs if "sequential_ratio" in r]),
                "loadavg": {"before": load_before, "after": loadavg()},
                "paired_floor": _paired_floor(runs),
                "samples": runs,
            }
        )
    return {"per_latency": per_latency}


# ---------------------------------------------------------------------------------------- 2. concurrency


async def concurrency(stack: BenchStack, cfg: BenchConfig, log: Log) -> dict[str, Any]:
    stack.set_script(llm_script.script(cfg.concurrency_latency_ms))
    await burst(stack.coordinator, min(10, max(cfg.concurrency_levels)))  # warm-up
    service_pids = {k: v for k, v in stack.pids.items()}
    levels: list[dict[str, Any]] = []
    for level in cfg.concurrency_levels:
        reset_peak_rss(service_pids)
        rounds: list[dict[str, Any]] = []
        load_before = loadavg()
        cpu_before = cpu_seconds(service_pids)
        for _ in range(cfg.concurrency_rounds):
            wait_idle()
            if level == 1:
                t0 = time.perf_counter()
                outcomes = await sequential(stack.coordinator, cfg.single_samples_per_round)
                b = Burst(1, outcomes, time.perf_counter() - t0)
            else:
                b = await burst(stack.coordinator, level)
            rounds.append(b.summary())
        rss = peak_rss_mb(service_pids)
        n_requests = sum(r["n"] for r in rounds)
        entry = {
            "concurrency": level,
            "rounds": len(rounds),
            "requests": n_requests,
            "errors": sum(r["errors"] for r in rounds),
            "error_kinds": _merge_counts([r["error_kinds"] for r in rounds]),
            "p50_ms": median([r["p50_ms"] for r in rounds]),
            "p95_ms": median([r["p95_ms"] for r in rounds]),
            "p99_ms": median([r["p99_ms"] for r in rounds]),
            "max_ms": max(r["max_ms"] for r in rounds),
            "throughput_rps": median([r["throughput_rps"] for r in rounds]),
            "peak_rss_mb": rss,
            "cpu_ms_per_research": cpu_ms_per(cpu_before, cpu_seconds(service_pids), n_requests),
            "loadavg": {"before": load_before, "after": loadavg()},
            "round_summaries": rounds,
        }
        levels.append(entry)
        log(
            f"  {level:>3} concurrent: p50 {entry['p50_ms']:.0f} ms, p95 {entry['p95_ms']:.0f} ms, "
            f"errors {entry['errors']}, {entry['throughput_rps']:.1f} researches/s"
        )
    single = next((lv for lv in levels if lv["concurrency"] == 1), None)
    for lv in levels:
        lv["p95_over_single_p50"] = lv["p95_ms"] / single["p50_ms"] if single and single["p50_ms"] else None
        if lv["concurrency"] > 1 and lv["p95_over_single_p50"] is not None:
            log(f"  {lv['concurrency']}-concurrent p95/single: {lv['p95_over_single_p50']:.2f}x")
    return {"latency_ms": cfg.concurrency_latency_ms, "levels": levels}


def _merge_counts(items: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        for k, v in item.items():
            out[k] = out.get(k, 0) + v
    return out


# ------------------------------------------------------------------------------------------- 6. the floor


async def floor(stack: BenchStack, cfg: BenchConfig, log: Log, paired: dict[str, Any] | None = None) -> dict[str, Any]:
    """Section 2's bursts on the floor stack (``benchmarks/floor_apps.py``: the same processes, clients, fake LLM
    and replies, none of the work) and section 1's one-at-a-time runs: those ``paired`` with section 1's when
    it ran beside this stack (``critical_path``'s ``paired_floor``), otherwise measured here."""
    latency = cfg.concurrency_latency_ms
    critical = CRITICAL_HOPS * latency
    measured = await concurrency(stack, cfg, log)  # sets the script at L and warms up
    if paired is not None:
        single: dict[str, Any] = {
            "single_runs": paired["runs"],
            "single_overhead_p50_ms": paired["floor_overhead_p50_ms"],
            "hops_p50_ms": paired["floor_hops_p50_ms"],
            "paired_with_section_1": True,
            "ours_p50_ms": paired["ours_p50_ms"],
            "ours_hops_p50_ms": paired["ours_hops_p50_ms"],
        }
    else:
        runs: list[dict[str, Any]] = []
        for _ in range(cfg.critical_runs.get(latency, min(cfg.critical_runs.values()))):
            outcome, hops = await _one_at_a_time(stack)
            if outcome.ok and hops is not None:
                runs.append({"overhead_ms": outcome.ms - critical, "hops_ms": hops})
        hop_names = list(runs[0]["hops_ms"]) if runs else []
        single = {
            "single_runs": len(runs),
            "single_overhead_p50_ms": median([r["overhead_ms"] for r in runs]) if runs else None,
            "hops_p50_ms": {h: median([r["hops_ms"][h] for r in runs]) for h in hop_names},
            "paired_with_section_1": False,
        }
    overhead = single["single_overhead_p50_ms"]
    log(f"  floor, one at a time: overhead {overhead if overhead is not None else float('nan'):.1f} ms above 4·L")
    return {**measured, "critical_path_ms": critical, **single}


# ----------------------------------------------------------------------------------------- 3. rules mode


async def rules_mode(stack: BenchStack, cfg: BenchConfig, log: Log) -> dict[str, Any]:
    await sequential(stack.coordinator, 5)  # warm-up
    batches: list[dict[str, Any]] = []
    load_before = loadavg()
    for _ in range(cfg.rules_rounds):
        wait_idle()
        outcomes = await sequential(stack.coordinator, cfg.rules_batch)
        lat = [o.ms for o in outcomes if o.ok]
        batches.append(
            {
                "n": len(outcomes),
                "errors": sum(not o.ok for o in outcomes),
                "p50_ms": percentile(lat, 0.5),
                "p95_ms": percentile(lat, 0.95),
            }
        )
    single = {
        "batches": batches,
        "requests": sum(b["n"] for b in batches),
        "errors": sum(b["errors"] for b in batches),
        "p50_ms": median([b["p50_ms"] for b in batches]),
        "p95_ms": median([b["p95_ms"] for b in batches]),
        "loadavg": {"before": load_before, "after": loadavg()},
    }
    log(f"  rules single: p50 {single['p50_ms']:.1f} ms, p95 {single['p95_ms']:.1f} ms")
    saturation: list[dict[str, Any]] = []
    for workers in cfg.saturation_workers:
        runs = []
        cpu_before = cpu_seconds(stack.pids)
        for _ in range(cfg.saturation_rounds):
            wait_idle()
            runs.append((await closed_loop(stack.coordinator, workers, cfg.saturation_seconds)).summary())
        entry = {
            "workers": workers,
            "throughput_rps": median([r["throughput_rps"] for r in runs]),
            "p50_ms": median([r["p50_ms"] for r in runs]),
            "p95_ms": median([r["p95_ms"] for r in runs]),
            "errors": sum(r["errors"] for r in runs),
            "requests": sum(r["n"] for r in runs),
            "cpu_ms_per_research": cpu_ms_per(cpu_before, cpu_seconds(stack.pids), sum(r["n"] for r in runs)),
            "loadavg_after": loadavg(),
        }
        saturation.append(entry)
        log(f"  rules {workers:>2} workers: {entry['throughput_rps']:.1f} researches/s, p50 {entry['p50_ms']:.0f} ms")
    best = max(saturation, key=lambda e: e["throughput_rps"]) if saturation else None
    async with client(1) as http:
        sample = await one_research(http, stack.coordinator, keep_body=True)
    return {
        "single": single,
        "saturation": saturation,
        "saturation_rps": best["throughput_rps"] if best else None,
        "saturation_workers": best["workers"] if best else None,
        "projection": projection_size(sample.body or {}),
    }


# --------------------------------------------------------------------------------------- 4. LLM economy


def projection_size(body: dict[str, Any]) -> dict[str, Any]:
    """The debate's input after the shared projection against the raw expert results (successful experts)."""
    raw = {
        name: item["data"]
        for name, item in (body.get("expert_results") or {}).items()
        if item.get("status") == "success" and item.get("data") is not None
    }
    projected = {name: s.model_dump() for name, s in project_expert_results(raw).items()}
    raw_text = json.dumps(raw, ensure_ascii=False)
    projected_text = json.dumps(projected, ensure_ascii=False)
    raw_bytes, projected_bytes = len(raw_text.encode()), len(projected_text.encode())
    raw_tokens, projected_tokens = estimate_tokens(raw_text), estimate_tokens(projected_text)
    return {
        "experts": len(raw),
        "raw_bytes": raw_bytes,
        "projected_bytes": projected_bytes,
        "raw_tokens": raw_tokens,
        "projected_tokens": projected_tokens,
        "bytes_ratio": projected_bytes / raw_bytes if raw_bytes else None,
        "tokens_ratio": projected_tokens / raw_tokens if raw_tokens else None,
    }


def _tokens(calls: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [c for c in calls if c.get("status") == 200]
    return {
        "llm_calls": len(calls),
        "failed_llm_calls": len(calls) - len(ok),
        "prompt_tokens": sum(int(c.get("prompt_tokens", 0)) for c in calls),
        "completion_tokens": sum(int(c.get("completion_tokens", 0)) for c in ok),
        "by_rule": _merge_counts([{str(c.get("rule")): 1} for c in calls]),
    }


async def _retry_scenario(stack: BenchStack, base: dict[str, Any], role: str) -> dict[str, Any]:
    stack.set_script(llm_script.with_fault(base, role))
    stack.reset_calls()
    async with client(1) as http:
        first = await one_research(http, stack.coordinator, keep_body=True)
        first_calls = stack.calls()
        stack.set_script(base)
        stack.reset_calls()
        session_id = (first.body or {}).get("session_id")
        t0 = time.perf_counter()
        response = await http.post(f"{stack.coordinator}{RESEARCH}/{session_id}/retry")
        retry_ms = (time.perf_counter() - t0) * 1000
        retry_body = response.json()
    retry_calls = stack.calls()
    return {
        "failed_role": role,
        "first_run": {
            "status": first.status,
            "overall_status": (first.body or {}).get("overall_status"),
            "has_verdict": bool((first.body or {}).get("verdict")),
            **_tokens(first_calls),
        },
        "retry": {
            "status": response.status_code,
            "complete": is_full_success(response.status_code, retry_body) is None,
            "retry_count": retry_body.get("retry_count") if isinstance(retry_body, dict) else None,
            "wall_ms": retry_ms,
            **_tokens(retry_calls),
        },
    }


async def llm_economy(stack: BenchStack, cfg: BenchConfig, log: Log) -> dict[str, Any]:
    base = llm_script.script(0)
    stack.set_script(base)
    full_runs: list[dict[str, Any]] = []
    sample: Outcome | None = None
    last_calls: list[dict[str, Any]] = []
    async with client(1) as http:
        for _ in range(cfg.economy_runs):
            stack.reset_calls()
            sample = await one_research(http, stack.coordinator, keep_body=True)
            last_calls = stack.calls()
            full_runs.append({"ok": sample.ok, **_tokens(last_calls)})
    full = {
        "runs": len(full_runs),
        "all_ok": all(r["ok"] for r in full_runs),
        "llm_calls": median([r["llm_calls"] for r in full_runs]),
        "prompt_tokens": median([r["prompt_tokens"] for r in full_runs]),
        "completion_tokens": median([r["completion_tokens"] for r in full_runs]),
        "by_rule": full_runs[-1]["by_rule"] if full_runs else {},
    }
    log(
        f"  full research: {full['llm_calls']:.0f} LLM calls, {full['prompt_tokens']:.0f} prompt + "
        f"{full['completion_tokens']:.0f} completion tokens"
    )
    retries = []
    for role in ("macro_intelligence", "judge"):
        scenario = await _retry_scenario(stack, base, role)
        retries.append(scenario)
        log(
            f"  retry after a failed {role}: first run {scenario['first_run']['llm_calls']} calls "
            f"({scenario['first_run']['overall_status']}), retry {scenario['retry']['llm_calls']} calls"
        )
    projection = projection_size(sample.body or {}) if sample is not None else {}
    if full_runs and (stages := _stages(last_calls)) is not None:
        # what the advocates' prompts actually weighed (system + user prompt, as the fake LLM received them)
        projection["advocate_prompt_bytes"] = median([float(c["prompt_bytes"]) for c in stages["advocates"]])
        projection["advocate_prompt_tokens"] = median([float(c["prompt_tokens"]) for c in stages["advocates"]])
    return {"full_research": full, "retries": retries, "projection": projection}


# ---------------------------------------------------------------------------------------------- helpers


def run(coro: Any) -> Any:
    return asyncio.run(coro)
