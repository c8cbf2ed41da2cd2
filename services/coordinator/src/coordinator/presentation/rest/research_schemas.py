"""Wire ↔ use case: the lenient request body becomes a command (the service validates it); the
result becomes the spec's response body (``expert_results`` keyed by expert name)."""

from __future__ import annotations

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.domain.dtos.research_dtos import ResearchResult
from shared_contracts.coordinator import ExpertResultEnvelope, ResearchRequestBody, ResearchResponseBody
from shared_contracts.numbers_check import roll_up


def to_command(body: ResearchRequestBody, request_id: str | None, client_id: str) -> ResearchCommand:
    return ResearchCommand(**dict(body), request_id=request_id, client_id=client_id)


def to_response_body(result: ResearchResult) -> ResearchResponseBody:
    envelopes = {
        i.expert_type.value: ExpertResultEnvelope.model_validate(i, from_attributes=True) for i in result.expert_results
    }
    stages = {i.expert_type.value: i.data for i in result.expert_results}
    numbers = roll_up({**stages, "debate": result.debate_outcome, "judge": result.verdict})
    return ResearchResponseBody.model_validate({**dict(result), "expert_results": envelopes, "numbers_check": numbers})
