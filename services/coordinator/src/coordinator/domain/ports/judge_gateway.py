"""How the coordinator asks for a verdict on a debate outcome."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class IJudgeGateway(ABC):
    @abstractmethod
    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """``debate_outcome``: the graph state's debate outcome. ``context`` (optional):
        ``{"expert_results": {...}, "analysis_date": "YYYY-MM-DD" | None, "failed_experts": [...]}``, from
        which a gateway may take price references (none after the analysis date), and ``token_budget`` when the research
        has one (what the judge's model calls may use). Returns the verdict as a dict."""
