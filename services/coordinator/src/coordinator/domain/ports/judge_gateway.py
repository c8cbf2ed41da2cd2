"""How the coordinator asks for a verdict on a debate outcome."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any


class IJudgeGateway(ABC):
    @abstractmethod
    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """``debate_outcome``: the graph state's debate outcome. ``context`` (optional):
        ``{"expert_results": {...}, "analysis_date": "YYYY-MM-DD" | None, "failed_experts": [...]}``, from
        which a gateway may take price references (none after the analysis date), and ``token_budget`` when the research
        has one (what the judge's model calls may use), and ``language`` when the research names one
        (what the verdict is written in). Returns the verdict as a dict."""

    async def run_verdict_bulk(
        self, items: Sequence[tuple[str, dict[str, Any], dict[str, Any]]]
    ) -> list[dict[str, Any] | Exception]:
        """Verdicts on many debates (``(symbol, debate_outcome, context)`` each, ``context`` as ``run_verdict``
        takes it): per item, in order, the verdict or the ``GatewayError`` its call raised. This form calls
        ``run_verdict`` once per item, concurrently; an adapter with a bulk endpoint overrides it."""
        calls = (self.run_verdict(symbol, outcome, context=context) for symbol, outcome, context in items)
        return list(await asyncio.gather(*calls, return_exceptions=True))
