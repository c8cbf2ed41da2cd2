"""A research in which every expert failed is answered as the OpenAPI document says: a problem detail with the
full research response (``ResearchFailureProblem``), sent as ``application/problem+json``."""

from __future__ import annotations

from typing import Any

import jsonschema
from coordinator_fakes import FakeExpertGateway, fake_container, serve

from coordinator.presentation.rest.errors import ResearchFailureProblem

RESEARCH = "/api/v1/coordinator/research"
RETRY = "/api/v1/coordinator/research/{session_id}/retry"
FAILURE_REF = {"$ref": "#/components/schemas/ResearchFailureProblem"}
PROBLEM_REF = {"$ref": "#/components/schemas/ProblemDetail"}


def problem_schema(document: dict[str, Any], path: str, status: str) -> Any:
    content = document["paths"][path]["post"]["responses"][status]["content"]
    assert list(content) == ["application/problem+json"]
    return content["application/problem+json"]["schema"]


async def test_every_expert_failing_is_answered_with_the_documented_body() -> None:
    experts = ["technical_analyst", "financial_auditor"]
    gateway = FakeExpertGateway(failures={e: RuntimeError(f"research 503 data_provider_error: {e}") for e in experts})
    async with serve(fake_container(gateway=gateway)) as client:
        response = await client.post(RESEARCH, json={"symbol": "XYZ", "experts": experts})
        document = (await client.get("/openapi.json")).json()
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/problem+json"
    documented = problem_schema(document, RESEARCH, "500")
    assert documented == {"anyOf": [FAILURE_REF, PROBLEM_REF]}  # all_experts_failed, or internal_error
    body = response.json()
    jsonschema.validate(body, {**FAILURE_REF, "components": document["components"]})
    assert ResearchFailureProblem.model_validate(body).code == "all_experts_failed"


async def test_the_caller_s_own_failures_and_the_retry_s_are_documented_with_the_full_body() -> None:
    async with serve(fake_container()) as client:
        document = (await client.get("/openapi.json")).json()
    assert problem_schema(document, RESEARCH, "404") == FAILURE_REF
    assert problem_schema(document, RESEARCH, "422") == FAILURE_REF
    assert problem_schema(document, RETRY, "422") == FAILURE_REF
    assert problem_schema(document, RETRY, "500") == {"anyOf": [FAILURE_REF, PROBLEM_REF]}
    failure = document["components"]["schemas"]["ResearchFailureProblem"]
    assert {"code", "detail", "status", "title", "session_id", "expert_results", "overall_status"} <= set(
        failure["required"]
    )
    assert "earliest_usable_date" in failure["properties"]
