"""The research graph is compiled once per shape and reused; each request still reports progress to its own
listener, even when requests interleave."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from coordinator_fakes import FakeDebateGateway, FakeExpertGateway, FakeJudgeGateway, RecordingListener

from coordinator.domain.dtos.research_dtos import ResearchRequest
from coordinator.domain.model.enums import ExpertType
from coordinator.infrastructure.orchestration import langgraph_orchestrator as module
from coordinator.infrastructure.orchestration.langgraph_orchestrator import LangGraphResearchOrchestrator

TA, MI = ExpertType.TECHNICAL_ANALYST, ExpertType.MACRO_INTELLIGENCE


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, bool]]:
    seen: list[tuple[bool, bool]] = []
    real = module.build_research_graph

    def spy(gateway: Any, debate_gateway: Any = None, judge_gateway: Any = None, **kwargs: Any) -> Any:
        seen.append((debate_gateway is not None, judge_gateway is not None))
        return real(gateway, debate_gateway, judge_gateway, **kwargs)

    monkeypatch.setattr(module, "build_research_graph", spy)
    return seen


async def test_the_graph_is_compiled_once_per_shape(builds: list[tuple[bool, bool]]) -> None:
    orchestrator = LangGraphResearchOrchestrator(FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway())
    for _ in range(3):
        result = await orchestrator.run(ResearchRequest(symbol="600519.SH", experts=[TA]))
        assert result.verdict is not None
    for _ in range(2):
        skipped = await orchestrator.run(ResearchRequest(symbol="600519.SH", experts=[TA], skip_debate=True))
        assert skipped.debate_outcome is None
    assert builds == [(True, True), (False, False)]


class BarrierExpertGateway(FakeExpertGateway):
    """Every expert call of both requests waits for the others: the two runs are in flight together."""

    def __init__(self, barrier: asyncio.Barrier) -> None:
        super().__init__()
        self._barrier = barrier

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        await self._barrier.wait()
        return await super().run_expert(expert_type, symbol, options)


async def test_interleaved_requests_report_to_their_own_listener() -> None:
    judge = FakeJudgeGateway()
    orchestrator = LangGraphResearchOrchestrator(BarrierExpertGateway(asyncio.Barrier(3)), FakeDebateGateway(), judge)
    first, second = RecordingListener(), RecordingListener()
    results = await asyncio.gather(
        first.run(orchestrator, ResearchRequest(symbol="600519.SH", experts=[TA, MI])),
        second.run(orchestrator, ResearchRequest(symbol="000001.SZ", experts=[MI], skip_debate=True)),
    )
    assert [r.symbol for r in results] == ["600519.SH", "000001.SZ"]
    assert sorted(e[1] for e in first.events if e[0] == "expert") == ["macro_intelligence", "technical_analyst"]
    assert first.kinds().count("debate") == 1
    assert first.kinds().count("verdict") == 1
    assert [e[1] for e in second.events if e[0] == "expert"] == ["macro_intelligence"]
    assert [c[0] for c in judge.calls] == ["600519.SH"]
