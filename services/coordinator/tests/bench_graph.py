"""CPU of the coordinator's LangGraph orchestration alone: one research (five experts, aggregator, debate,
judge) with gateways that answer at once, so what is measured is the graph machinery and our nodes.

Run: ``uv run python services/coordinator/tests/bench_graph.py [--rounds 500]``

The gateways are the coordinator tests' fakes (``coordinator_fakes.py``, beside this script: Python finds a
script's neighbours, so it lives with the tests it borrows from); no HTTP, no database. Prints wall and CPU
(``time.process_time``) per research in milliseconds. The fake debate gateway deep-copies the expert results it
is given (~0.25 ms of the figure).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway

from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.model.enums import ExpertType
from coordinator.infrastructure.orchestration.langgraph_orchestrator import (
    LangGraphResearchOrchestrator,
)
from service_kit.logging import configure_logging


async def main(rounds: int) -> None:
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    request = ResearchRequest(symbol="600519.SH", experts=list(ExpertType))
    for _ in range(50):  # warm-up: the graph is compiled on first use
        await orchestrator.run(request)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        await orchestrator.run(request)
    cpu_ms = (time.process_time() - cpu) * 1000 / rounds
    wall_ms = (time.perf_counter() - wall) * 1000 / rounds
    print(f"{rounds} researches through the graph, instant gateways: {wall_ms:.2f} ms wall, {cpu_ms:.2f} ms CPU each")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=500)
    configure_logging("WARNING")
    asyncio.run(main(parser.parse_args().rounds))
