"""Stored sessions and their outcomes as their wire models (``shared_contracts.coordinator``). Returns and prices
are rounded to ``verdict_statistics.scorecard.DIGITS`` places, as the report's figures are."""

from __future__ import annotations

from coordinator.domain.model.outcome import SessionOutcome
from coordinator.domain.model.session import ResearchSession
from shared_contracts.coordinator import (
    ExpertOutcomeRecord,
    SessionDetail,
    SessionOutcomeRecord,
    SessionSummary,
    StageRecord,
)
from shared_contracts.numbers_check import roll_up
from shared_contracts.scoring import TradeOutcome
from shared_contracts.usage import ResearchUsage
from verdict_statistics.scorecard import rounded


def to_summary(session: ResearchSession) -> SessionSummary:
    return SessionSummary.model_validate(session, from_attributes=True)


def to_detail(
    session: ResearchSession,
    outcome: SessionOutcome | None = None,
    *,
    queue_position: int | None = None,
    usage: ResearchUsage | None = None,
) -> SessionDetail:
    return SessionDetail(
        **to_summary(session).model_dump(exclude={"overall_status"}),  # computed again from status
        request={
            "symbol": session.symbol,
            "analysis_date": session.analysis_date.isoformat() if session.analysis_date is not None else None,
            "experts": list(session.experts),
            "options": session.options,
            "skip_debate": session.skip_debate,
            "language": session.language,
        },
        request_id=session.request_id,
        requested_by=session.requested_by,
        expert_results={
            expert: ExpertOutcomeRecord.model_validate(o, from_attributes=True)
            for expert, o in session.expert_outcomes.items()
        },
        debate=StageRecord.model_validate(session.debate, from_attributes=True),
        debate_outcome=session.debate_outcome,
        judge=StageRecord.model_validate(session.judge, from_attributes=True),
        verdict=session.verdict,
        completed_at=session.completed_at,
        queue_position=queue_position,
        outcome=to_outcome_record(outcome) if outcome is not None else None,
        numbers_check=roll_up(
            {
                **{expert: o.data for expert, o in session.expert_outcomes.items()},
                "debate": session.debate_outcome,
                "judge": session.verdict,
            }
        ),
        usage=usage,
    )


def to_outcome_record(outcome: SessionOutcome) -> SessionOutcomeRecord:
    trade = outcome.trade or TradeOutcome("not_scorable", "")  # unavailable: nothing is known of the trade
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
