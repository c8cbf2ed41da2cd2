"""How the coordinator asks for a bull/bear debate over the experts' results."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any


class IDebateGateway(ABC):
    @abstractmethod
    async def run_debate(self, symbol: str, expert_results: dict[str, Any]) -> dict[str, Any]:
        """``expert_results``: the successful experts' results keyed by expert name (the graph state's
        ``results``). Returns the debate outcome as a dict. The graph also passes ``token_budget`` and ``language``
        (the research's; each only when it has one) as keywords."""

    async def run_debate_bulk(
        self,
        items: Sequence[tuple[str, dict[str, Any]]],
        *,
        token_budget: int | None = None,
        language: str | None = None,
    ) -> list[dict[str, Any] | Exception]:
        """Debate many symbols (``(symbol, expert_results)`` each): per item, in order, the outcome or the
        ``GatewayError`` its call raised. This form calls ``run_debate`` once per item, concurrently; an adapter
        with a bulk endpoint overrides it. ``token_budget``: each item's; ``language``: every item's."""
        asked = {
            name: value for name, value in (("token_budget", token_budget), ("language", language)) if value is not None
        }
        calls = (self.run_debate(symbol, results, **asked) for symbol, results in items)
        return list(await asyncio.gather(*calls, return_exceptions=True))
