"""IJudgeGateway over HTTP: POST {JUDGE_SERVICE_URL}/api/v1/judge/verdict with a ``JudgeInput``.

The DTO conversion (the spec's debate_outcome → JudgeInput table) happens here. Only the thesis of
each side, the risk names, the disagreements and the resolution reach the judge: supporting
arguments, acknowledged risks/strengths and each risk's probability/impact/mitigation are dropped.
When the technical analyst succeeded, its last close and key levels are passed as
``reference_price`` / ``key_levels`` so the judge can state absolute stop-loss/take-profit prices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from coordinator.domain.exceptions import PeerContractError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.infrastructure.adapters.peer_http import PeerClient
from shared_contracts.experts import is_iso_date
from shared_contracts.judge import JudgeInput, KeyLevels, Verdict


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])


def to_judge_input(
    symbol: str, debate_outcome: Mapping[str, Any], context: Mapping[str, Any] | None = None
) -> JudgeInput:
    try:
        fields: dict[str, Any] = {
            "symbol": symbol,
            "direction": debate_outcome["direction"],
            "confidence": debate_outcome["confidence"],
            "bull_thesis": debate_outcome["bull_case"]["core_thesis"],
            "bear_thesis": debate_outcome["bear_case"]["core_thesis"],
            "risk_factors": [str(item["risk"]) for item in debate_outcome.get("risk_matrix") or []],
            "key_disagreements": list(debate_outcome.get("key_disagreements") or []),
            "conflict_resolution": debate_outcome.get("conflict_resolution") or "",
        }
    except (KeyError, TypeError) as exc:
        raise PeerContractError("judge", f"the debate outcome lacks {exc} needed for the judge") from None
    fields.update(_price_context(context))
    try:
        return JudgeInput.model_validate(fields)
    except ValidationError as exc:
        raise PeerContractError("judge", f"cannot build the judge input ({_problems(exc)})") from None


def _price_context(context: Mapping[str, Any] | None) -> dict[str, Any]:
    """reference_price = technical_indicators.close (reference_date = as_of, the day of that close);
    key_levels = key_technical_levels.{support,resistance}."""
    technical = ((context or {}).get("expert_results") or {}).get(ExpertType.TECHNICAL_ANALYST.value)
    if not isinstance(technical, Mapping):
        return {}
    found: dict[str, Any] = {}
    close = (technical.get("technical_indicators") or {}).get("close")
    if isinstance(close, int | float) and not isinstance(close, bool) and math.isfinite(close) and close > 0:
        found["reference_price"] = float(close)
        if is_iso_date(technical.get("as_of")):
            found["reference_date"] = technical["as_of"]
    levels = technical.get("key_technical_levels")
    if isinstance(levels, Mapping):
        support, resistance = _numbers(levels.get("support")), _numbers(levels.get("resistance"))
        if support or resistance:
            found["key_levels"] = KeyLevels(support=support, resistance=resistance)
    return found


def _numbers(values: Any) -> list[float]:
    if not isinstance(values, list | tuple):
        return []
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]


class JudgeGatewayAdapter(IJudgeGateway):
    def __init__(self, judge: PeerClient) -> None:
        self._judge = judge

    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        judge_input = to_judge_input(symbol, debate_outcome, context)
        reply, attempts = await self._judge.post_json(
            "/api/v1/judge/verdict", judge_input.model_dump(mode="json", exclude_none=True)
        )
        try:
            return Verdict.model_validate(reply).model_dump(mode="json")
        except ValidationError as exc:
            service = self._judge.service
            raise PeerContractError(
                service, f"{service} reply breaks the Verdict contract ({_problems(exc)})", attempts=attempts
            ) from None
