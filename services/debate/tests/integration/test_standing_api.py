"""Issue 35: the debate endpoint reads the stock's composite standing from the raw research results (or takes
the one given) and its direction follows it."""

from __future__ import annotations

from typing import Any

from debate_fakes import raw_research_results
from debate_http import debate_client

from shared_contracts.debate import DebateOutcome
from shared_contracts.standing import CompositeStanding


def standing(score: float, rank: float | None, coverage: float = 0.8) -> CompositeStanding:
    return CompositeStanding(
        score=score, universe_rank=rank, coverage=coverage, factors_used=["return_1m"], universe_scored=100
    )


def _with_standing(results: dict[str, Any], composite: CompositeStanding) -> dict[str, Any]:
    technical = dict(results["technical_analyst"])
    technical["relative_standing"] = {
        "universe": "fake",
        "universe_size": 100,
        "as_of": "2024-06-28",
        "factors": {},
        "coverage": 1.0,
        "composite": composite.model_dump(),
    }
    return {**results, "technical_analyst": technical}


async def test_the_endpoint_reads_the_standing_from_the_raw_results() -> None:
    results = _with_standing(raw_research_results(), standing(-0.6, 0.05))
    async with debate_client() as (client, _):
        response = await client.post("/api/v1/debate/run", json={"symbol": "600519.SH", "expert_results": results})
    assert response.status_code == 200, response.text
    outcome = DebateOutcome.model_validate(response.json())
    assert outcome.direction == "BEARISH"
    assert outcome.universe_rank == 0.05
    assert outcome.standing_coverage == 0.8


async def test_a_given_composite_wins_over_the_results() -> None:
    results = _with_standing(raw_research_results(), standing(-0.6, 0.05))
    body = {"symbol": "600519.SH", "expert_results": results, "composite": standing(0.6, 0.95).model_dump()}
    async with debate_client() as (client, _):
        response = await client.post("/api/v1/debate/run", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["direction"] == "BULLISH"
