"""How a stored verdict did: its entry day, and its outcome on the bars known now.

The method is the evaluation report's (docs/evaluation.md), applied by ``shared_contracts.scoring.score_trade``:
the signal is the close of the last bar on or before the **entry day**, the trade enters at the next open (a BUY
into a limit-up open, a SELL into a limit-down one: ``no_fill``), ``HOLDING_DAYS[time_horizon]`` trading days
held, the verdict's stop and take-profit sizes checked on each day's high and low, the round-trip cost paid;
SELL realised flat (no short selling). The entry day is the technical analyst's ``as_of`` when it succeeded
(the day of the verdict's reference close), else the research's day: its ``analysis_date``; a session stored
before dates were recorded has none: its technical analyst's ``analysis_date`` option, else the (UTC) day it
was created.

Outcome statuses: ``scored`` (a level was hit, or the holding period has ended: final), ``pending`` (the
holding period has not ended by the last bar known and no level was hit), ``not_scorable`` (no bar on or before
the entry day, or a verdict without its action, horizon, stop or take-profit), ``no_fill`` (the entry day opened
at the daily limit against the order: final), ``unavailable`` (the bars could not be fetched now: nothing is
known either way).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.session import ResearchSession
from shared_contracts.experts import is_iso_date
from shared_contracts.scoring import DailyBar, ForwardReturn, TradeOutcome, forward_return, score_trade
from verdict_statistics.scorecard import signed_score

OutcomeStatus = Literal["scored", "pending", "not_scorable", "no_fill", "unavailable"]
ALLOW_SHORT = False
"""SELL is realised as exit/avoid (flat), as for an A-share investor who cannot short freely (the report's
default); its call return is still the short's."""
TECHNICAL = ExpertType.TECHNICAL_ANALYST.value


def iso_day(value: Any) -> date | None:
    """The day a stored ``YYYY-MM-DD`` (optionally followed by a time) names; None for anything else."""
    return date.fromisoformat(value[:10]) if isinstance(value, str) and is_iso_date(value[:10]) else None


def technical_option_date(options: Any) -> date | None:
    """The technical analyst's ``analysis_date`` option among a session's ``options``, when it has one."""
    return iso_day(_mapping(_mapping(options).get(TECHNICAL)).get("analysis_date"))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class StoredVerdict:
    """A stored session's verdict and the days that date it: what its outcome is computed from."""

    session_id: str
    symbol: str
    verdict: Mapping[str, Any]
    analysis_date: date | None
    technical_as_of: date | None
    """The technical analyst's ``as_of`` when it succeeded, else None."""
    technical_option_date: date | None
    """The technical analyst's ``analysis_date`` option (what dated a research before sessions stored a day)."""
    created_at: datetime
    debate: Mapping[str, Any] | None = None
    """The debate's outcome (its direction and confidence rank a verdict that has no ``score``)."""

    @classmethod
    def of(cls, session: ResearchSession) -> StoredVerdict | None:
        """The session's verdict, or None when it has none (no judge verdict)."""
        if not session.verdict_succeeded or session.verdict is None:
            return None
        technical = session.expert_outcomes.get(TECHNICAL)
        as_of = technical.data.get("as_of") if technical and technical.status == "success" and technical.data else None
        days = (session.analysis_date, iso_day(as_of), technical_option_date(session.options))
        debate = session.debate_outcome
        return cls(session.session_id, session.symbol, session.verdict, *days, session.created_at, debate)

    @property
    def research_day(self) -> date:
        """The day the research was made as of (what the scorecard's start/end filter)."""
        return self.analysis_date or self.technical_option_date or self.created_at.date()

    @property
    def entry_day(self) -> date:
        """The day whose close (the last on or before it) is the entry."""
        return self.technical_as_of or self.research_day

    @property
    def engine(self) -> str | None:
        """``rules`` or the LLM model that gave the verdict (the report's ``engine``)."""
        engine = _mapping(self.verdict.get("engine"))
        named = engine.get("model") or engine.get("kind")
        return named if isinstance(named, str) and named else None

    @property
    def action(self) -> str | None:
        action = self.verdict.get("action")
        return action if isinstance(action, str) else None

    @property
    def confidence(self) -> float | None:
        return _number(self.verdict.get("confidence"))

    @property
    def score(self) -> float | None:
        """What the verdict is ranked by: its ``score``, else the debate's confidence signed by its direction."""
        debate = _mapping(self.debate)
        direction = debate.get("direction")
        return signed_score(
            _number(self.verdict.get("score")),
            direction if isinstance(direction, str) else None,
            _number(debate.get("confidence")),
        )


@dataclass(frozen=True)
class SessionOutcome:
    """How a session's verdict did. ``trade`` is the scoring's result (None when ``unavailable``); ``entry_day``
    the day of the entry close when a bar was found, else the rule's entry day."""

    status: OutcomeStatus
    entry_day: date
    trade: TradeOutcome | None
    reason: str = ""

    @property
    def final(self) -> bool:
        """A scored or unfilled outcome never changes (with the same bars)."""
        return self.status in ("scored", "no_fill")


def score_verdict(stored: StoredVerdict, bars: Sequence[DailyBar]) -> SessionOutcome:
    """The outcome of ``stored`` on ``bars`` (oldest first; those of its symbol): its action and horizon, the
    size of its stop (``stop_loss.percent_from_entry``) and of its take-profit scored on them."""
    horizon = stored.verdict.get("time_horizon")
    stop = _number(_mapping(stored.verdict.get("stop_loss")).get("percent_from_entry"))
    target = _number(_mapping(stored.verdict.get("take_profit")).get("percent_from_entry"))
    if stored.action is None or not isinstance(horizon, str) or stop is None or target is None:
        return not_scorable(stored, "the verdict lacks its action, time horizon, stop loss or take profit")
    trade = score_trade(
        bars,
        entry_day=stored.entry_day,
        action=stored.action,
        time_horizon=horizon,
        stop_percent=stop,
        take_profit_percent=target,
        allow_short=ALLOW_SHORT,
        analysis_day=stored.research_day,
        symbol=stored.symbol,
    )
    return SessionOutcome(trade.status, trade.entry_day or stored.entry_day, trade, trade.reason)


def forward_of(stored: StoredVerdict, bars: Sequence[DailyBar]) -> ForwardReturn | None:
    """The stock's return over the 20 trading days after the verdict, entered at the next open (what its score
    is ranked against); None until those days have passed, or when the signal close is stale."""
    return forward_return(bars, signal_day=stored.entry_day, symbol=stored.symbol, analysis_day=stored.research_day)


def not_scorable(stored: StoredVerdict, reason: str) -> SessionOutcome:
    trade = TradeOutcome("not_scorable", stored.action or "", reason=reason)
    return SessionOutcome("not_scorable", stored.entry_day, trade, reason)


def unavailable(stored: StoredVerdict, reason: str) -> SessionOutcome:
    """The bars could not be had now (the research service unreachable, timed out, failing)."""
    return SessionOutcome("unavailable", stored.entry_day, None, reason)
