"""How the coordinator asks for a bull/bear debate over the experts' results."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class IDebateGateway(ABC):
    @abstractmethod
    async def run_debate(self, symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
        """``expert_results``: the successful experts' results keyed by expert name (the graph state's
        ``results``). Returns the debate outcome as a dict."""
