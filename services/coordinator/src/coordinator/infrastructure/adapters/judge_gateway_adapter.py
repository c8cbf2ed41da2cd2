"""IJudgeGateway over HTTP: POST {JUDGE_SERVICE_URL}/api/v1/judge/verdict with a ``JudgeInput``.

The DTO conversion (the spec's debate_outcome → JudgeInput table) happens here. Only the thesis of
each side, the risk names, the disagreements and the resolution reach the judge: supporting
arguments, acknowledged risks/strengths and each risk's probability/impact/mitigation are dropped.
The latest close the experts report (the technical analyst's, or the valuation modeler's when its data
are newer; never one after the analysis date) is passed as ``reference_price`` with its day, and the
technical analyst's key levels as ``key_levels``, so the judge can state absolute stop-loss/take-profit prices.
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
    if failed := list((context or {}).get("failed_experts") or ()):
        fields["failed_experts"] = failed
    try:
        return JudgeInput.model_validate(fields)
    except ValidationError as exc:
        raise PeerContractError("judge", f"cannot build the judge input ({_problems(exc)})") from None


# expert -> the indicators holding its last close (its ``as_of`` is the day of that close)
_CLOSES = {
    ExpertType.TECHNICAL_ANALYST.value: "technical_indicators",
    ExpertType.VALUATION_MODELER.value: "valuation_indicators",
}


def _price_context(context: Mapping[str, Any] | None) -> dict[str, Any]:
    """reference_price / reference_date = the latest close among the experts' (``_CLOSES``) on or before
    ``context["analysis_date"]`` when there is one; key_levels = key_technical_levels.{support,resistance}
    when that close is the technical analyst's (levels of another day would anchor stops on stale prices)."""
    results = (context or {}).get("expert_results") or {}
    found: dict[str, Any] = _latest_close(results, (context or {}).get("analysis_date"))
    technical = results.get(ExpertType.TECHNICAL_ANALYST.value)
    technical_close = _latest_close({ExpertType.TECHNICAL_ANALYST.value: technical}, None)
    if not found or found != technical_close:
        return found
    assert isinstance(technical, Mapping)  # it reported the close
    levels = technical.get("key_technical_levels")
    if isinstance(levels, Mapping):
        support, resistance = _numbers(levels.get("support")), _numbers(levels.get("resistance"))
        if support or resistance:
            found["key_levels"] = KeyLevels(support=support, resistance=resistance)
    return found


def _latest_close(results: Mapping[str, Any], analysis_date: Any) -> dict[str, Any]:
    """A dated close beats an undated one, a later day an earlier one; a day after the analysis date is
    not known on that date (an analysis of the past is priced in the past)."""
    latest: tuple[str, float] | None = None
    for expert, indicators in _CLOSES.items():
        result = results.get(expert)
        if not isinstance(result, Mapping) or not isinstance(result.get(indicators), Mapping):
            continue
        close = result[indicators].get("close")
        if not (isinstance(close, int | float) and not isinstance(close, bool) and math.isfinite(close) and close > 0):
            continue
        day = result["as_of"] if is_iso_date(result.get("as_of")) else ""  # ISO dates compare as text
        if is_iso_date(analysis_date) and day > analysis_date:
            continue
        if latest is None or day > latest[0]:
            latest = (day, float(close))
    if latest is None:
        return {}
    day, close = latest
    return {"reference_price": close, "reference_date": day} if day else {"reference_price": close}


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
            "/api/v1/judge/verdict", judge_input.model_dump(mode="json", exclude_none=True, exclude_unset=True)
        )
        try:
            return Verdict.model_validate(reply).model_dump(mode="json")
        except ValidationError as exc:
            service = self._judge.service
            raise PeerContractError(
                service, f"{service} reply breaks the Verdict contract ({_problems(exc)})", attempts=attempts
            ) from None
