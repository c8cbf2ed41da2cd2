"""What the five expert use cases share: the point-in-time data, an engine, a clock, and the audit fields
every result carries (ARCHITECTURE.md, "Expert result shapes")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from research.application.data_notes import notes_in
from research.application.point_in_time_data import PointInTimeData
from research.application.standing_vote import standing_vote
from research.application.universe_standing import UniverseStanding
from research.domain.analysis.relative import Family
from research.domain.model.symbol import Symbol
from research.domain.model.verdicts import AgentAnswer
from research.domain.ports.agents import ExpertAgent
from shared_contracts.errors import DataUnavailableError, InsufficientHistoryError
from shared_contracts.experts import Signal, ValuationVerdict

F = TypeVar("F")
V = TypeVar("V", bound=BaseModel)
T = TypeVar("T")
VALUATION_OF = {
    Signal.BULLISH: ValuationVerdict.UNDERVALUED,
    Signal.NEUTRAL: ValuationVerdict.FAIRLY_VALUED,
    Signal.BEARISH: ValuationVerdict.OVERVALUED,
}
"""A valuation vote in the valuation modeler's vocabulary: cheap against the universe reads as undervalued."""
Missing = DataUnavailableError | InsufficientHistoryError
"""An input the data does not have (at all, or yet on the analysis day)."""


async def optional(call: Awaitable[T]) -> T | Missing:
    """The input, or why it is missing: for an expert that can do without it."""
    try:
        return await call
    except (DataUnavailableError, InsufficientHistoryError) as exc:
        return exc


class ExpertService(Generic[F, V]):
    def __init__(
        self,
        data: PointInTimeData,
        agent: ExpertAgent[F, V],
        today: Callable[[], date] = date.today,
        *,
        standing: UniverseStanding | None = None,
        language: str = "zh",
    ) -> None:
        self._language = language
        self._data = data
        self._agent = agent
        self._today = today
        self._standing = standing

    async def _relative(self, symbol: Symbol, on: date, family: Family) -> dict[str, Any]:
        """``relative_standing`` of a result: ``family``'s factors against the universe on ``on`` (none without
        a reference universe)."""
        if self._standing is None:
            return {}
        standing = await self._standing.standing(symbol, on, family)
        return {} if standing is None else {"relative_standing": standing}

    async def _voted(
        self, symbol: Symbol, on: date, family: Family, verdict: dict[str, Any], fields: tuple[str, str, str]
    ) -> dict[str, Any]:
        """``relative_standing`` and the engine's ``verdict`` with its signal, confidence and reasoning (the
        ``fields`` names, in that order) set by the family's standing (``application.standing_vote``); the
        engine's own signal stays in ``engine_signal`` and its reasoning follows the vote as context."""
        relative = await self._relative(symbol, on, family)
        vote = standing_vote(relative.get("relative_standing"), family, self._language)
        if vote is None:
            return relative | verdict
        signal, confidence, reasoning = fields
        own = verdict[signal]
        value = vote.signal.value if signal == "signal" else VALUATION_OF[vote.signal].value
        separator = "" if self._language == "zh" else " "
        return (
            relative
            | verdict
            | {
                signal: value,
                confidence: vote.confidence,
                reasoning: separator.join((vote.sentence, vote.context_label + str(verdict[reasoning]))),
                "engine_signal": own if isinstance(own, str) else own.value,
            }
        )

    def _gaps(self, gaps: list[str] | tuple[str, ...]) -> list[str]:
        """The result's ``data_gaps`` in the research's language (``application.data_notes``)."""
        return notes_in(gaps, self._language)

    def _start(self, symbol: str, analysis_date: date | None) -> tuple[Symbol, date]:
        """The parsed symbol and the analysis date (today when None)."""
        return Symbol.parse(symbol), analysis_date or self._today()

    def _audit(
        self, symbol: Symbol, as_of: date, on: date, answer: AgentAnswer[V], inputs: dict[str, Any], stale: list[str]
    ) -> dict[str, Any]:
        """Keyword arguments for a ``shared_contracts.research`` result: what was analysed as of which day
        (``as_of`` never after the analysis date ``on``), from which inputs, by which engine."""
        assert as_of <= on, f"as_of {as_of} after the analysis date {on}"
        return {
            "symbol": str(symbol),
            "as_of": as_of.isoformat(),
            "analysis_date": on.isoformat(),
            "inputs_as_of": inputs,
            "staleness": notes_in(stale, self._language),
            "data_source": self._data.name,
            "engine": answer.engine,
            "input": answer.input,
            "output": answer.output,
            "numbers_check": answer.numbers_check,
        }
