"""IDebateGateway over HTTP: POST {DEBATE_SERVICE_URL}/api/v1/debate/run.

The DTO conversion happens here: each successful expert's result is projected to an ``ExpertSummary``
(``shared_contracts.projection`` — the spec's mapping table; debug and bulk fields are dropped, failed
experts skipped). The reply is checked against ``DebateOutcome`` and returned as a dict.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from coordinator.domain.exceptions import GatewayError, PeerContractError
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.infrastructure.adapters.peer_http import PeerClient
from shared_contracts.debate import DebateOutcome
from shared_contracts.projection import ProjectionError, project_expert_results


def debate_request_body(symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
    """``{symbol, expert_results}`` with the summaries of the successful experts only."""
    summaries = project_expert_results(expert_results)
    return {"symbol": symbol, "expert_results": {name: s.model_dump() for name, s in summaries.items()}}


class DebateGatewayAdapter(IDebateGateway):
    def __init__(self, debate: PeerClient) -> None:
        self._debate = debate

    async def run_debate(self, symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
        service = self._debate.service
        try:
            body = debate_request_body(symbol, expert_results)
        except ProjectionError as exc:
            raise PeerContractError(service, f"cannot summarise an expert result for {service}: {exc}") from None
        if not body["expert_results"]:
            raise GatewayError(service, "no successful expert result to debate")
        reply, attempts = await self._debate.post_json("/api/v1/debate/run", body)
        try:
            return DebateOutcome.model_validate(reply).model_dump(mode="json")
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
            raise PeerContractError(
                service, f"{service} reply breaks the DebateOutcome contract ({problems})", attempts=attempts
            ) from None
