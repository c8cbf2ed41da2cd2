"""IJudgeGateway over HTTP: POST {JUDGE_SERVICE_URL}/api/v1/judge/verdict with a ``JudgeInput``.

The DTO conversion (the spec's debate_outcome → JudgeInput table) happens here. Only the thesis of
each side, the risk names, the disagreements and the resolution reach the judge: supporting
arguments, acknowledged risks/strengths and each risk's probability/impact/mitigation are dropped.
One day prices the verdict, so the judge can state absolute stop-loss/take-profit prices: when the
technical analyst succeeded, ``reference_price`` is its close, ``reference_date`` its ``as_of`` (the
research's day) and ``key_levels`` its support/resistance of that same day; only without a usable
technical close, the valuation modeler's close and its ``as_of`` (no key levels: there are none of its day).
A close after the analysis date is never used (an analysis of the past is priced in the past), nor one more than
``REFERENCE_STALE_WEEKDAYS`` weekdays before it (``shared_contracts.reference_price``): without a close to act on
the judge holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, TypeGuard

from pydantic import ValidationError

from coordinator.domain.exceptions import PeerContractError
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.ports.judge_gateway import IJudgeGateway
from coordinator.infrastructure.adapters.peer_http import PeerClient, problems_of
from shared_contracts.debate import DebateOutcome
from shared_contracts.experts import is_iso_date
from shared_contracts.judge import JudgeInput, KeyLevels, Verdict
from shared_contracts.reference_price import prices_the_date
from shared_contracts.text import at_tick


def to_judge_input(
    symbol: str, debate_outcome: Mapping[str, Any], context: Mapping[str, Any] | None = None
) -> JudgeInput:
    """Raises ``PeerContractError`` for a debate outcome that breaks its contract."""
    try:
        outcome = DebateOutcome.model_validate(debate_outcome)
    except ValidationError as exc:
        raise PeerContractError("judge", f"the debate outcome breaks its contract ({problems_of(exc)})") from None
    fields: dict[str, Any] = {
        "symbol": symbol,
        "direction": outcome.direction,
        "confidence": outcome.confidence,
        "bull_thesis": outcome.bull_case.core_thesis,
        "bear_thesis": outcome.bear_case.core_thesis,
        "risk_factors": [item.risk for item in outcome.risk_matrix],
        "key_disagreements": outcome.key_disagreements,
        "conflict_resolution": outcome.conflict_resolution,
        "evidence_horizon": evidence_horizon(outcome),
    }
    if failed := list((context or {}).get("failed_experts") or ()):
        fields["failed_experts"] = failed
    if (language := (context or {}).get("language")) is not None:
        fields["language"] = language
    fields.update(_price_context(context))
    if "reference_price" in fields and (quoted := at_tick(symbol, fields["reference_price"])) > 0:
        fields["reference_price"] = quoted  # the verdict's one entry price, as the market quotes it
    fields.update(_volatility_context(context, fields))
    fields.update(_standing_context(outcome, context))
    try:
        return JudgeInput.model_validate(fields)
    except ValidationError as exc:
        raise PeerContractError("judge", f"cannot build the judge input ({problems_of(exc)})") from None


def _price_context(context: Mapping[str, Any] | None) -> dict[str, Any]:
    """reference_price / reference_date / key_levels from the technical analyst's close, its ``as_of`` and
    ``key_technical_levels.{support,resistance}``; without a usable technical close, reference_price /
    reference_date from the valuation modeler's; nothing after ``context["analysis_date"]``."""
    results, analysis_date = _mapping(_mapping(context).get("expert_results")), _mapping(context).get("analysis_date")
    technical = _mapping(results.get(ExpertType.TECHNICAL_ANALYST.value))
    found = _close_of(technical, "technical_indicators", analysis_date)
    if not found:
        return _close_of(
            _mapping(results.get(ExpertType.VALUATION_MODELER.value)), "valuation_indicators", analysis_date
        )
    levels = _mapping(technical.get("key_technical_levels"))
    support, resistance = _numbers(levels.get("support")), _numbers(levels.get("resistance"))
    if support or resistance:
        found["key_levels"] = KeyLevels(support=support, resistance=resistance)
    return found


EVIDENCE_HORIZON = {
    ExpertType.TECHNICAL_ANALYST.value: "SHORT_TERM",
    ExpertType.CATALYST_DETECTIVE.value: "SHORT_TERM",
    ExpertType.MACRO_INTELLIGENCE.value: "MEDIUM_TERM",
    ExpertType.FINANCIAL_AUDITOR.value: "LONG_TERM",
    ExpertType.VALUATION_MODELER.value: "LONG_TERM",
}
"""The time scale of each expert's evidence: price action and events play out in weeks, the macro cycle in
months, fundamentals and valuation over quarters."""
_STRENGTH = {"HIGH": 2, "MEDIUM": 1, "LOW": 0}


def evidence_horizon(outcome: DebateOutcome) -> str | None:
    """The time scale of the expert behind the winning side's strongest argument (the first of equals); None
    for a NEUTRAL debate or when no argument names an expert."""
    cases = {"BULLISH": outcome.bull_case.supporting_arguments, "BEARISH": outcome.bear_case.supporting_arguments}
    ranked = sorted(cases.get(outcome.direction, []), key=lambda a: -_STRENGTH.get(a.strength, 0))
    for argument in ranked:
        for expert in argument.source_experts:
            if expert in EVIDENCE_HORIZON:
                return EVIDENCE_HORIZON[expert]
    return None


def _volatility_context(context: Mapping[str, Any] | None, fields: Mapping[str, Any]) -> dict[str, Any]:
    """``atr`` and ``realised_volatility_pct`` (the technical analyst's ATR(14) and 60-day volatility, when the
    verdict is priced on its close) and the valuation modeler's intrinsic value range, for stops in units of
    volatility and the take-profit."""
    results = _mapping(_mapping(context).get("expert_results"))
    technical, found = _mapping(results.get(ExpertType.TECHNICAL_ANALYST.value)), {}
    if technical and fields.get("reference_date") == technical.get("as_of"):
        indicators = _mapping(technical.get("technical_indicators"))
        for wire, name in (("atr", "atr14"), ("realised_volatility_pct", "volatility_60d_pct")):
            if _positive(value := indicators.get(name)):
                found[wire] = float(value)
    valuation = _mapping(results.get(ExpertType.VALUATION_MODELER.value))
    value_range = _mapping(valuation.get("estimated_intrinsic_value_range"))
    low, high = value_range.get("low"), value_range.get("high")
    if _positive(low) and _positive(high) and low <= high:
        found["intrinsic_value_low"], found["intrinsic_value_high"] = float(low), float(high)
    return found


MARKET_VIEWS = ("FAVORABLE", "NEUTRAL", "UNFAVORABLE")


def _standing_context(outcome: DebateOutcome, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """The debate's composite ``score``, ``universe_rank`` and ``standing_coverage``, and the macro expert's
    ``macro_environment`` as ``market_view`` (it scales the position, never the direction)."""
    found: dict[str, Any] = {}
    if outcome.score is not None:
        found["score"] = outcome.score
        for name in ("universe_rank", "standing_coverage"):
            if (value := getattr(outcome, name)) is not None:
                found[name] = value
        if outcome.contributions:
            found["contributions"] = [c.model_dump(mode="json") for c in outcome.contributions]
    macro = _mapping(_mapping(_mapping(context).get("expert_results")).get(ExpertType.MACRO_INTELLIGENCE.value))
    if (view := macro.get("macro_environment")) in MARKET_VIEWS:
        found["market_view"] = view
    return found


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _positive(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _close_of(result: Mapping[str, Any], indicators: str, analysis_date: Any) -> dict[str, Any]:
    """An expert's close (``result[indicators]["close"]``) as reference_price, its ``as_of`` as
    reference_date when that is an ISO day; nothing when there is no positive close or its day is after
    the analysis date or more than ``REFERENCE_STALE_WEEKDAYS`` weekdays before it (a close undated is taken
    undated)."""
    close = _mapping(result.get(indicators)).get("close")
    if not _positive(close):
        return {}
    day = result["as_of"] if is_iso_date(result.get("as_of")) else None
    if day is None:
        return {"reference_price": float(close)}
    if is_iso_date(analysis_date) and not prices_the_date(date.fromisoformat(day), date.fromisoformat(analysis_date)):
        return {}  # after the analysis date, or too old to act on (``shared_contracts.reference_price``)
    return {"reference_price": float(close), "reference_date": day}


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
        """``context["token_budget"]``, when there: what the judge's model calls may use."""
        judge_input = to_judge_input(symbol, debate_outcome, context)
        budget = (context or {}).get("token_budget")
        reply, attempts = await self._judge.post_json(
            "/api/v1/judge/verdict",
            judge_input.model_dump(mode="json", exclude_none=True, exclude_unset=True),
            token_budget=budget if isinstance(budget, int) else None,
        )
        return self._verdict(reply, attempts)

    async def run_verdict_bulk(
        self, items: Sequence[tuple[str, dict[str, Any], dict[str, Any]]]
    ) -> list[dict[str, Any] | Exception]:
        """POST {JUDGE_SERVICE_URL}/api/v1/judge/verdict/bulk (``shared_contracts.bulk``); each item's budget is its
        context's ``token_budget`` (the items of one call share one: the first item's)."""
        if not items:
            return []
        inputs = [to_judge_input(symbol, outcome, context) for symbol, outcome, context in items]
        body: dict[str, Any] = {
            "items": [i.model_dump(mode="json", exclude_none=True, exclude_unset=True) for i in inputs]
        }
        budget = items[0][2].get("token_budget")
        if isinstance(budget, int):
            body["token_budget"] = budget
        return await self._judge.post_bulk("/api/v1/judge/verdict/bulk", body, len(items), self._verdict)

    def _verdict(self, reply: Any, attempts: int) -> dict[str, Any]:
        return self._judge.parsed(Verdict, reply, attempts, "reply (Verdict)").model_dump(mode="json")
