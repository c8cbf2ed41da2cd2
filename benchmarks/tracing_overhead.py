"""What tracing costs one research (issue 41): three stacks of the four services side by side, researches sent
to them in turn (interleaved, the order shuffled each round), so that the machine's load falls on all alike.

- ``off``: this code, ``OTEL_EXPORTER_OTLP_ENDPOINT`` unset (the default: no tracing set up);
- ``on``: this code exporting every span over OTLP/HTTP to a stand-in collector (a thread of this process
  that reads and discards each batch);
- ``baseline`` (``--baseline DIR``): the code of a worktree without tracing (e.g. commit 3ba258b), run by the
  same interpreter with that worktree's sources first on ``PYTHONPATH``.

Every stack is in LLM mode against one fake OpenAI-compatible server answering at once (L = 0), so the
figure is the services' own time. Reports per stack the median and p90 wall time of a research, and the
median of the paired differences (``on - off``, ``off - baseline``: the researches of one round).

    uv run --no-sync python -m benchmarks.tracing_overhead --rounds 60 [--baseline /tmp/wt-base]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from service_kit.stack.api_paths import RESEARCH
from service_kit.stack.launcher import Stack, running_stack
from stack_fakes import llm_replies
from stack_fakes.fake_llm import running_fake_llm
from verdict_statistics.quantiles import percentile

EXPERTS = ["technical_analyst", "financial_auditor", "valuation_modeler", "macro_intelligence", "catalyst_detective"]
BODY = {"symbol": "600519.SH", "experts": EXPERTS}
SOURCES = ("shared-contracts/src", *(f"services/{s}/src" for s in ("coordinator", "research", "debate", "judge")))


@contextlib.contextmanager
def discarding_collector() -> Iterator[tuple[str, list[int]]]:
    """An OTLP/HTTP endpoint that reads each export and answers 200; yields its URL and the bytes received."""
    received: list[int] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(len(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def _research(client: httpx.Client, stack: Stack) -> float:
    started = time.perf_counter()
    answer = client.post(stack["coordinator"].url + RESEARCH, json=BODY, timeout=120)
    elapsed = time.perf_counter() - started
    if answer.status_code != 200 or answer.json()["overall_status"] != "completed":
        raise RuntimeError(f"a research did not complete: {answer.text[:500]}")
    return elapsed * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a worktree of the code without tracing (3ba258b)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-tracing-"))
    with contextlib.ExitStack() as stacks:
        fake = stacks.enter_context(running_fake_llm(workdir, llm_replies.script(latency_ms=0)))
        endpoint, received = stacks.enter_context(discarding_collector())
        common = {**fake.env(REPORT_LANGUAGE="en"), "LOG_LEVEL": "WARNING"}
        envs = {"off": common, "on": {**common, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}}
        if args.baseline is not None:
            path = os.pathsep.join(str(args.baseline / source) for source in SOURCES)
            envs["baseline"] = {**common, "PYTHONPATH": path}
        running = {}
        for name, env in envs.items():
            (workdir / name).mkdir()
            running[name] = stacks.enter_context(running_stack(workdir / name, common_env=env))
        times: dict[str, list[float]] = {name: [] for name in running}
        with httpx.Client() as client:
            for _ in range(args.warmup):
                for stack in running.values():
                    _research(client, stack)
            for _ in range(args.rounds):
                order = list(running)
                random.shuffle(order)
                for name in order:
                    times[name].append(_research(client, running[name]))
    print(f"load average at the end: {os.getloadavg()}; {args.rounds} rounds; {len(received)} OTLP exports received")
    print("| stack | median ms | p90 ms |")
    print("|---|---:|---:|")
    for name, samples in times.items():
        p90 = percentile(samples, 0.9)
        print(f"| {name} | {statistics.median(samples):.1f} | {p90:.1f} |")
    pairs = [("on", "off"), ("off", "baseline")]
    for a, b in pairs:
        if a in times and b in times:
            diffs = [x - y for x, y in zip(times[a], times[b], strict=True)]
            q1, q3 = percentile(diffs, 0.25), percentile(diffs, 0.75)
            print(f"{a} - {b}: median {statistics.median(diffs):+.1f} ms (IQR {q1:+.1f} .. {q3:+.1f})")


if __name__ == "__main__":
    main()
