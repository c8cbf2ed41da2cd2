"""Financial auditor: growth, margins, ROE, cash-flow quality, leverage and payout over the last ``limit``
annual reports public on the analysis date."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic_core import to_jsonable_python

from research.application.services.expert_service import ExpertService
from research.domain.analysis.financial import FinancialFacts, compute_financial_facts
from research.domain.model.verdicts import FinancialVerdict
from research.domain.staleness import report_staleness
from shared_contracts.errors import InvalidOptionsError
from shared_contracts.experts import FINANCIAL_LIMIT_MAX
from shared_contracts.research import FinancialAuditorResult

_TRACKED = {
    "revenue": "revenue",
    "roe_pct": "ROE",
    "gross_margin_pct": "gross margin",
    "ocf_to_net_profit": "operating cash flow",
    "debt_ratio_pct": "total assets/liabilities",
    "payout_ratio_pct": "payout ratio",
}


def financial_gaps(facts: FinancialFacts, limit: int) -> list[str]:
    gaps = [f"only {len(facts.periods)} annual periods (asked for {limit})"] if len(facts.periods) < limit else []
    for name, label in _TRACKED.items():
        missing = [p.period_end.year for p in facts.periods if getattr(p, name) is None]
        if len(missing) == len(facts.periods):
            gaps.append(f"no {label} in any period")
        elif missing:
            gaps.append(f"no {label} for {', '.join(str(y) for y in missing)}")
    if facts.net_profit_basis == "total":
        gaps.append("net profit attributable to the parent is not reported; total net profit is used")
    return gaps


VOTE_FIELDS = ("signal", "confidence", "summary_reasoning")


class FinancialAuditorService(ExpertService[FinancialFacts, FinancialVerdict]):
    async def run(self, symbol: str, limit: int = 5, *, analysis_date: date | None = None) -> dict[str, Any]:
        parsed, on = self._start(symbol, analysis_date)
        if not 1 <= limit <= FINANCIAL_LIMIT_MAX:
            raise InvalidOptionsError(f"limit must be between 1 and {FINANCIAL_LIMIT_MAX}, got {limit}")
        dated = await self._data.financials(parsed, limit, on)
        facts = compute_financial_facts(dated.statements)
        answer = await self._agent.analyse(facts)
        figures = facts.dimensions()
        verdict = answer.verdict.model_dump()
        dimensions = [{**d, "figures": figures[d["dimension"]]} for d in verdict.pop("dimension_analyses")]
        stale = report_staleness(facts.as_of, on)
        return FinancialAuditorResult(
            **self._audit(parsed, facts.as_of, on, answer, {"financials": dated.provenance()}, stale),
            data_gaps=self._gaps(financial_gaps(facts, limit)),
            **await self._voted(parsed, on, "financial", verdict, VOTE_FIELDS),
            dimension_analyses=dimensions,
            financial_indicators=to_jsonable_python(facts, exclude={"symbol"}, inf_nan_mode="null"),
        ).model_dump(mode="json")
