"""Sessions with verdicts and synthetic daily bars, for the outcome and scorecard tests."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from coordinator_fakes import debate_outcome, sample_result, verdict
from coordinator_persistence_fakes import make_session

from coordinator.domain.model.session import ExpertOutcome, ResearchSession, StageOutcome
from shared_contracts.scoring import DailyBar

TA, MI = "technical_analyst", "macro_intelligence"
LLM_ENGINE = {"kind": "llm", "model": "qwen-plus", "fallback_reason": None}


def weekdays(first: date, count: int) -> list[date]:
    days: list[date] = []
    day = first
    while len(days) < count:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def flat_bars(first: date, count: int, price: float = 100.0) -> list[DailyBar]:
    """``count`` weekday bars from ``first`` (inclusive when a weekday), every price ``price``."""
    return [DailyBar(day, price, price, price, price) for day in weekdays(first, count)]


def touched(bars: list[DailyBar], index: int, *, high: float | None = None, low: float | None = None) -> list[DailyBar]:
    """``bars`` with the day at ``index`` reaching ``high`` / ``low`` (open and close unchanged)."""
    bar = bars[index]
    changed = replace(bar, high=high if high is not None else bar.high, low=low if low is not None else bar.low)
    return [*bars[:index], changed, *bars[index + 1 :]]


def bars_json(symbol: str, bars: list[DailyBar]) -> dict[str, Any]:
    """``bars`` as the research service's ``PriceBars`` reply (a bar without a volume is sent with 1 share)."""
    return {
        "symbol": symbol,
        "data_source": "offline-snapshot",
        "source": "test bars",
        "adjustment": "qfq",
        "start": None,
        "end": None,
        "count": len(bars),
        "bars": [
            {
                "date": b.day.isoformat(),
                "open": b.open,
                "high": b.high,
                "low": b.low,
                "close": b.close,
                "volume": 1.0 if b.volume is None else b.volume,
            }
            for b in bars
        ],
    }


def a_verdict(
    symbol: str = "600519.SH",
    *,
    action: str = "BUY",
    horizon: str = "SHORT_TERM",
    stop: float = -8.0,
    target: float = 15.0,
    confidence: float = 0.66,
    engine: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body = verdict(symbol)
    body.update(action=action, time_horizon=horizon, confidence=confidence)
    body["stop_loss"] = {**body["stop_loss"], "percent_from_entry": stop}
    body["take_profit"] = {**body["take_profit"], "percent_from_entry": target}
    if engine is not None:
        body["engine"] = engine
    return body


def judged_session(
    symbol: str = "600519.SH",
    *,
    as_of: date | None = None,
    analysis_date: date | None = None,
    options: dict[str, dict[str, Any]] | None = None,
    minutes: int = 0,
    retried_from: str | None = None,
    **verdict_terms: Any,
) -> ResearchSession:
    """A completed session with a verdict. ``as_of``: its technical analyst succeeded with that ``as_of`` (and,
    unless ``analysis_date`` says otherwise, the research was made as of that day); without it, the technical
    analyst failed."""
    experts = [TA, MI]
    technical = (
        ExpertOutcome("success", data=sample_result(TA, symbol) | {"as_of": as_of.isoformat()})
        if as_of is not None
        else ExpertOutcome("failed", error="research 503 upstream_down: boom")
    )
    session = make_session(
        symbol=symbol,
        experts=experts,
        status="completed" if as_of is not None else "partial",
        minutes=minutes,
        options=options if options is not None else {TA: {}, MI: {}},
        analysis_date=analysis_date if analysis_date is not None or options is not None else as_of,
        retried_from=retried_from,
        outcomes={TA: technical, MI: ExpertOutcome("success", data=sample_result(MI, symbol))},
    )
    session.debate = StageOutcome("success", data=debate_outcome(symbol))
    session.judge = StageOutcome("success", data=a_verdict(symbol, **verdict_terms))
    return session


async def store(repository: Any, session: ResearchSession) -> ResearchSession:
    """Write ``session`` as the coordinator does: created running, each stage recorded, then finished."""
    outcomes, session_status = session.expert_outcomes, session.status
    created = replace(
        session,
        status="running",
        expert_outcomes={},
        debate=StageOutcome(),
        judge=StageOutcome(),
    )
    await repository.create(created)
    for expert, outcome in outcomes.items():
        await repository.record_expert(session.session_id, expert, outcome)
    await repository.record_debate(session.session_id, session.debate)
    await repository.record_verdict(session.session_id, session.judge)
    await repository.finish(session.session_id, session_status)
    return session
