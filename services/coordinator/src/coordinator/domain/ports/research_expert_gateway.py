"""How the coordinator asks one research expert for its analysis."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import date
from typing import Any

from coordinator.domain.model.enums import ExpertType


class ExpertOptions(dict[str, Any]):
    """What the graph hands ``run_expert`` as ``options``: the expert's own options (the dict's items) and the
    day the whole research is made as of (``analysis_date``, sent beside the options). A gateway that retries
    sets ``attempts`` to the number of calls a success took (a failure carries it on its ``GatewayError``); the
    session's audit stores it; ``token_budget``: the expert's share of the research's token budget. A plain dict
    is still accepted by every gateway: then no date is given."""

    def __init__(
        self, options: dict[str, Any] | None = None, *, analysis_date: date | None = None, language: str | None = None
    ) -> None:
        super().__init__(options or {})
        self.analysis_date = analysis_date
        self.language = language
        """The language the expert writes in (None: the research service's REPORT_LANGUAGE)."""
        self.attempts = 1
        self.token_budget: int | None = None
        """The tokens the expert's model calls may use (None: no budget)."""

    def __repr__(self) -> str:
        return f"ExpertOptions({dict.__repr__(self)}, analysis_date={self.analysis_date!r})"


def analysis_date_of(options: dict[str, Any] | None) -> date | None:
    """The research's analysis date carried by ``options`` (an ``ExpertOptions``), else None."""
    return options.analysis_date if isinstance(options, ExpertOptions) else None


class IResearchExpertGateway(ABC):
    @abstractmethod
    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run one expert and return its result. ``options`` may be an ``ExpertOptions`` (the research's analysis
        date in, the attempts made out). Raises ``GatewayError`` on failure."""

    async def run_expert_bulk(
        self, expert_type: ExpertType, symbols: Sequence[str], options: ExpertOptions
    ) -> list[dict[str, Any] | Exception]:
        """Run one expert on many symbols with the same options (a batch's chunk): per symbol, in order, its result
        or the ``GatewayError`` its call raised. This form calls ``run_expert`` once per symbol, concurrently; an
        adapter with a bulk endpoint overrides it."""

        async def one(symbol: str) -> dict[str, Any]:
            each = ExpertOptions(dict(options), analysis_date=options.analysis_date, language=options.language)
            each.token_budget = options.token_budget
            return await self.run_expert(expert_type, symbol, each)

        return list(await asyncio.gather(*(one(s) for s in symbols), return_exceptions=True))
