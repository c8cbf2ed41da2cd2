"""Valuation modeler: PE/PB/dividend yield, percentile, earnings yield vs the 10-year yield, and an
intrinsic value range with stated assumptions, from the valuation data public on the analysis date.

Multiples computed from the research's close and the annual reports public on its day (``computed_snapshot``)
are used whenever the data supports them, so every price the valuation quotes is the verdict's reference close;
otherwise the latest valuation snapshot taken by that day."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from pydantic_core import to_jsonable_python

from research.application.data_notes import in_language
from research.application.point_in_time_data import ALL_PERIODS, report_available_from
from research.application.services.expert_service import ExpertService, Missing, optional
from research.domain.analysis.valuation import (
    COMPUTED_SOURCE,
    ValuationFacts,
    compute_valuation_facts,
    computed_snapshot,
)
from research.domain.model.market_data import ValuationData, ValuationSnapshot
from research.domain.model.symbol import Symbol
from research.domain.model.verdicts import ValuationVerdictModel
from research.domain.staleness import valuation_staleness
from shared_contracts.errors import DataUnavailableError, InsufficientHistoryError
from shared_contracts.experts import FINANCIAL_LIMIT_MAX
from shared_contracts.research import ValuationModelerResult

COMPUTED_CAVEAT = (
    "multiples computed here from the close and the latest public annual report: PE on the last annual "
    "profit (not TTM), shares = dividend total / DPS; forward-adjusted closes understate older prices"
)


VOTE_FIELDS = ("valuation_verdict", "confidence_score", "reasoning_summary")


class ValuationModelerService(ExpertService[ValuationFacts, ValuationVerdictModel]):
    async def _computed(self, symbol: Symbol, on: date) -> ValuationSnapshot | None:
        try:
            history = await self._data.price_history(symbol, on)
            dated = await self._data.financials(symbol, FINANCIAL_LIMIT_MAX, on)
        except (DataUnavailableError, InsufficientHistoryError):
            return None
        last = history.bars[-1]
        return computed_snapshot(last.date, last.close, dated.statements.periods)

    async def _first_computable(self, symbol: Symbol) -> date | None:
        """The first day a report with a DPS is public and a bar exists: multiples can be computed from then."""
        try:
            history = await self._data.full_price_history(symbol)
            statements = await self._data.provider.get_financials(symbol, ALL_PERIODS)
        except DataUnavailableError:
            return None
        days = [report_available_from(symbol, p.period_end, p.published_on) for p in statements.periods if p.dps]
        return max(min(days), history.bars[0].date) if days and history.bars else None

    async def _valuation(self, symbol: Symbol, on: date) -> ValuationData:
        """A computed snapshot priced on the last close by ``on`` when possible, else the snapshots public then."""
        computed = await self._computed(symbol, on)
        no_data = DataUnavailableError(f"{symbol}: no valuation data")
        try:
            valuation: ValuationData | None = await self._data.valuation(symbol, on)
        except DataUnavailableError as exc:
            valuation, no_data = None, exc
        if computed is not None:  # priced on the research's own close, whatever snapshot day there is
            return ValuationData(symbol=symbol, snapshots=(computed,), source=COMPUTED_SOURCE)
        if valuation is not None and (valuation.snapshots or valuation.history):
            return valuation
        first_snapshot = await self._data.earliest_valuation(symbol) if valuation is not None else None
        earliest = min((d for d in (first_snapshot, await self._first_computable(symbol)) if d), default=None)
        if earliest is None:
            raise no_data
        raise InsufficientHistoryError(
            f"{symbol}: no valuation snapshot was taken by {on.isoformat()} and no annual report public then "
            f"has the dividend figures to compute multiples from; the earliest usable date is {earliest.isoformat()}",
            earliest_usable_date=earliest,
        )

    async def run(self, symbol: str, *, analysis_date: date | None = None) -> dict[str, Any]:
        parsed, on = self._start(symbol, analysis_date)
        valuation = await self._valuation(parsed, on)
        macro = await optional(self._data.macro(parsed, on))
        facts = compute_valuation_facts(valuation, None if isinstance(macro, Missing) else macro)
        computed = any(s.source == COMPUTED_SOURCE for s in valuation.snapshots)
        if computed:
            facts = replace(facts, gaps=(COMPUTED_CAVEAT, *facts.gaps))
        answer = await self._agent.analyse(facts)
        intrinsic = (
            to_jsonable_python(facts.intrinsic_value, inf_nan_mode="null")
            if facts.intrinsic_value
            else {"available": False}
        )
        if isinstance(assumptions := intrinsic.get("assumptions"), dict):
            intrinsic["assumptions"] = {
                name: in_language(value, self._language) if isinstance(value, str) else value
                for name, value in assumptions.items()
            }
        inputs: dict[str, Any] = {"valuation": {"as_of": facts.as_of.isoformat(), "computed": computed}}
        if facts.bond_yield_date is not None:
            inputs["macro"] = {"cgb_10y_yield": facts.bond_yield_date.isoformat()}
        return ValuationModelerResult(
            **self._audit(parsed, facts.as_of, on, answer, inputs, valuation_staleness(facts.as_of, on)),
            data_gaps=self._gaps(facts.gaps),
            **await self._voted(parsed, on, "valuation", answer.verdict.model_dump(), VOTE_FIELDS),
            estimated_intrinsic_value_range=intrinsic,
            valuation_indicators=to_jsonable_python(
                facts, exclude={"symbol", "as_of", "intrinsic_value", "gaps"}, inf_nan_mode="null"
            ),
        ).model_dump(mode="json")
