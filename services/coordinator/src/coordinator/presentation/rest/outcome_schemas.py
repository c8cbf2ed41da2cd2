"""Outcomes and the scorecard as their wire models (``shared_contracts.coordinator``). Returns and prices are
rounded to ``shared_contracts.scorecard.DIGITS`` places, as the report's figures are."""

from __future__ import annotations

from coordinator.application.outcome_service import Scorecard as ScorecardView
from coordinator.domain.model.outcome import SessionOutcome
from shared_contracts.coordinator import Scorecard, ScorecardFilters, SessionOutcomeRecord
from shared_contracts.scorecard import rounded


def to_outcome_record(outcome: SessionOutcome | None) -> SessionOutcomeRecord | None:
    if outcome is None:
        return None
    trade = outcome.trade
    if trade is None:
        return SessionOutcomeRecord(
            status=outcome.status,
            entry_day=outcome.entry_day,
            entry_price=None,
            exit_day=None,
            exit_price=None,
            exit_reason=None,
            holding_days=0,
            call_return=None,
            realised_return=None,
            underlying_return=None,
            profitable=None,
            reason=outcome.reason or None,
        )
    return SessionOutcomeRecord(
        status=outcome.status,
        entry_day=outcome.entry_day,
        entry_price=rounded(trade.entry_price),
        exit_day=trade.exit_day,
        exit_price=rounded(trade.exit_price),
        exit_reason=trade.exit_reason,
        holding_days=trade.holding_days,
        call_return=rounded(trade.call_return),
        realised_return=rounded(trade.realised_return),
        underlying_return=rounded(trade.underlying_return),
        profitable=trade.profitable,
        reason=outcome.reason or None,
    )


def to_scorecard(view: ScorecardView) -> Scorecard:
    query = view.query
    return Scorecard(
        filters=ScorecardFilters(symbol=query.symbol, engine=query.engine, start=query.start, end=query.end),
        sessions=view.sessions,
        scored=view.statuses["scored"],
        pending=view.statuses["pending"],
        not_scorable=view.statuses["not_scorable"],
        unavailable=view.statuses["unavailable"],
        actions=dict(view.actions),
        per_action={action: dict(section) for action, section in view.per_action.items()},
        calibration=dict(view.calibration),
        as_of=view.as_of,
        matching=view.matching,
        limit=view.limit,
        truncated=view.truncated,
        unavailable_symbols=dict(view.unavailable_symbols),
    )
