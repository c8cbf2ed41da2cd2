"""Wire ↔ use case: the lenient request body becomes a command (the service validates it); the
result becomes the spec's response body (``expert_results`` keyed by expert name)."""

from __future__ import annotations

from coordinator.application.dtos.research_command import ResearchCommand
from coordinator.domain.dtos.research_dtos import ResearchResult
from shared_contracts.coordinator import ExpertResultEnvelope, ResearchRequestBody, ResearchResponseBody


def to_command(body: ResearchRequestBody, request_id: str | None, client_id: str) -> ResearchCommand:
    return ResearchCommand(
        symbol=body.symbol,
        experts=body.experts,
        options=body.options,
        skip_debate=body.skip_debate,
        analysis_date=body.analysis_date,
        request_id=request_id,
        client_id=client_id,
    )


def to_response_body(result: ResearchResult) -> ResearchResponseBody:
    return ResearchResponseBody.model_validate(
        {
            "session_id": result.session_id,
            "symbol": result.symbol,
            "analysis_date": result.analysis_date,
            "overall_status": result.overall_status,
            "expert_results": {
                item.expert_type.value: ExpertResultEnvelope(status=item.status, data=item.data, error=item.error)
                for item in result.expert_results
            },
            "debate_outcome": result.debate_outcome,
            "verdict": result.verdict,
            "retry_count": result.retry_count,
        }
    )
