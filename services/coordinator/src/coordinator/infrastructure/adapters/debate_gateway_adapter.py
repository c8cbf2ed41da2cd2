"""IDebateGateway over HTTP: POST {DEBATE_SERVICE_URL}/api/v1/debate/run.

The DTO conversion happens here: each successful expert's result is projected to an ``ExpertSummary``
(``shared_contracts.projection`` — the spec's mapping table; debug and bulk fields are dropped); its
counts of ``data_gaps`` and ``staleness`` go beside it in ``data_quality``, so the debate can weigh it by its
coverage; an expert whose entry is ``None`` failed and is named in ``failed_experts`` (missing evidence); the
stock's composite standing in its reference universe (``relative_standing.composite``) goes as ``composite``.
The reply is parsed into ``DebateOutcome`` and returned as its dict (the spec's serialised form).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coordinator.domain.exceptions import GatewayError, PeerContractError
from coordinator.domain.ports.debate_gateway import IDebateGateway
from coordinator.infrastructure.adapters.peer_http import PeerClient
from shared_contracts.debate import DebateOutcome
from shared_contracts.projection import (
    ProjectionError,
    composite_of,
    failed_experts_of,
    project_data_quality,
    project_expert_results,
)


def debate_request_body(symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
    """``{symbol, expert_results, data_quality, failed_experts?}``: the successful experts' summaries (the
    spec's four fields), how many data gaps and stale inputs each had, and the experts that failed (entries
    that are ``None``)."""
    summaries = project_expert_results(expert_results)
    body: dict[str, Any] = {
        "symbol": symbol,
        "expert_results": {name: s.model_dump() for name, s in summaries.items()},
        "data_quality": {name: q.model_dump() for name, q in project_data_quality(expert_results).items()},
    }
    if failed := sorted(failed_experts_of(expert_results)):
        body["failed_experts"] = failed
    if (composite := composite_of(expert_results)) is not None:
        body["composite"] = composite.model_dump()
    return body


class DebateGatewayAdapter(IDebateGateway):
    def __init__(self, debate: PeerClient) -> None:
        self._debate = debate

    async def run_debate(
        self, symbol: str, expert_results: dict[str, Any], token_budget: int | None = None, language: str | None = None
    ) -> dict[str, Any]:
        """``token_budget``: what the debate's model calls may use (None: no budget); ``language``: what it is
        written in (None: the debate service's REPORT_LANGUAGE)."""
        body = self._request(symbol, expert_results)
        if language is not None:
            body["language"] = language
        reply, attempts = await self._debate.post_json("/api/v1/debate/run", body, token_budget=token_budget)
        return self._outcome(reply, attempts)

    async def run_debate_bulk(
        self,
        items: Sequence[tuple[str, dict[str, Any]]],
        *,
        token_budget: int | None = None,
        language: str | None = None,
    ) -> list[dict[str, Any] | Exception]:
        """POST {DEBATE_SERVICE_URL}/api/v1/debate/run/bulk (``shared_contracts.bulk``): the items that cannot be
        sent (nothing to debate) fail here, the others are sent together."""
        requests: list[dict[str, Any] | Exception] = []
        for symbol, results in items:
            try:
                requests.append(self._request(symbol, results))
            except GatewayError as exc:
                requests.append(exc)
        sent = [r if language is None else r | {"language": language} for r in requests if isinstance(r, dict)]
        answers: list[dict[str, Any] | Exception] = []
        if sent:
            body: dict[str, Any] = {"items": sent}
            if token_budget is not None:
                body["token_budget"] = token_budget
            answers = await self._debate.post_bulk("/api/v1/debate/run/bulk", body, len(sent), self._outcome)
        replies = iter(answers)
        return [next(replies) if isinstance(r, dict) else r for r in requests]

    def _request(self, symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
        service = self._debate.service
        try:
            body = debate_request_body(symbol, expert_results)
        except ProjectionError as exc:
            raise PeerContractError(service, f"cannot summarise an expert result for {service}: {exc}") from None
        if not body["expert_results"]:
            raise GatewayError(service, "no successful expert result to debate")
        return body

    def _outcome(self, reply: Any, attempts: int) -> dict[str, Any]:
        return self._debate.parsed(DebateOutcome, reply, attempts, "reply (DebateOutcome)").model_dump(mode="json")
