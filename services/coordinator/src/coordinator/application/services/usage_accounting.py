"""What a research spent on model calls: per stage (from the ``usage`` each stage's result carries), in total and
new (a retry's carried stages were paid for by their own session), with its cost at ``LLM_PRICES``; the ledger
written when a session ends (the calls it made, by client, day and model), the client's daily token quota (each
research's budget held when it is submitted, what it did not spend given back when it ends), and the usage report by
day and model.

A failed stage counts the calls its peer's problem detail reported (an expert's ``failure.usage``, the debate's or
the verdict's ``usage``); docs/decisions.md, "LLM usage and token budgets"."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from coordinator.application.dtos.scorecard import optional_day
from coordinator.domain.exceptions import TokenQuotaExceededError
from coordinator.domain.model.session import ResearchSession
from coordinator.domain.model.viewer import Viewer
from coordinator.domain.ports.usage_ledger import ITokenQuota, IUsageLedger, UsageRecord
from shared_contracts.coordinator import UsageReport, UsageRow
from shared_contracts.errors import InvalidDateRangeError
from shared_contracts.usage import (
    TOKEN_BUDGET_EXHAUSTED,
    LLMUsage,
    ModelPrice,
    ResearchUsage,
    cost_of,
    research_usage,
    total_of,
)

log = logging.getLogger(__name__)

DEFAULT_RESERVATION = 50_000
"""``RESEARCH_TOKEN_RESERVATION``'s default: what a research with no token budget holds while a quota is on."""
REPORT_DAYS = 30
"""The days a usage report covers when no ``start`` is given."""


def _usage_in(data: dict[str, Any] | None) -> LLMUsage | None:
    found = (data or {}).get("usage")
    return LLMUsage.model_validate(found) if isinstance(found, dict) else None


def stage_usages(session: ResearchSession) -> dict[str, LLMUsage]:
    """Each stage whose result carries its usage: the experts by name, ``debate``, ``judge``."""
    stages: dict[str, LLMUsage] = {}
    for expert, outcome in session.expert_outcomes.items():
        if outcome.status == "success" and (usage := _usage_in(outcome.data)) is not None:
            stages[expert] = usage
        elif outcome.failure is not None and outcome.failure.usage is not None:
            stages[expert] = outcome.failure.usage
    for stage, stage_outcome in (("debate", session.debate), ("judge", session.judge)):
        if stage_outcome.status == "success" and (usage := _usage_in(stage_outcome.data)) is not None:
            stages[stage] = usage
        elif stage_outcome.status == "failed" and stage_outcome.usage is not None:
            stages[stage] = LLMUsage.model_validate(stage_outcome.usage)
    return stages


def budget_exhausted_stages(session: ResearchSession) -> list[str]:
    """The stages that failed because the research's token budget was spent."""
    errors = {e: o.error for e, o in session.expert_outcomes.items()}
    errors |= {"debate": session.debate.error, "judge": session.judge.error}
    return [stage for stage, error in errors.items() if error and TOKEN_BUDGET_EXHAUSTED in error]


def budget_reason(usage: ResearchUsage) -> str | None:
    """What the session says when its token budget stopped stages."""
    if not usage.budget_exhausted:
        return None
    return f"the token budget ({usage.token_budget} tokens) was spent: {', '.join(usage.budget_exhausted)} not run"


class UsageAccounting:
    def __init__(
        self,
        ledger: IUsageLedger,
        *,
        prices: dict[str, ModelPrice] | None = None,
        quota: ITokenQuota | None = None,
        reservation: int = DEFAULT_RESERVATION,
        today: Callable[[], date] = lambda: datetime.now(UTC).date(),
    ) -> None:
        """``quota``: the clients' daily tokens (None: no quota); ``reservation``: RESEARCH_TOKEN_RESERVATION, what a
        research without a token budget holds of it (and may use)."""
        self._ledger = ledger
        self._prices = prices or {}
        self._quota = quota
        self._reservation = reservation
        self._today = today

    def budget_of(self, *given: int | None) -> int | None:
        """A research's token budget: the lowest of those ``given`` (RESEARCH_TOKEN_BUDGET, the request's; None: not
        set). With a daily quota a research always has one, what it holds of the quota: ``reservation`` when none is
        given, and never more than the whole quota."""
        budgets = [b for b in given if b is not None]
        if self._quota is not None:
            budgets = [min(budgets or [self._reservation]), self._quota.daily_tokens]
        return min(budgets) if budgets else None

    def usage_of(self, session: ResearchSession) -> ResearchUsage:
        return research_usage(
            stage_usages(session),
            carried=session.carried_stages,
            prices=self._prices,
            token_budget=session.token_budget,
            budget_exhausted=budget_exhausted_stages(session),
        )

    async def reserve(self, sessions: Sequence[ResearchSession]) -> None:
        """Holds each session's token budget against its client's daily tokens (all of them or none: one client's
        sessions, a research or a batch's items); raises ``TokenQuotaExceededError`` when they do not fit."""
        if self._quota is None or not sessions:
            return
        holds = {s.session_id: s.token_budget for s in sessions if s.token_budget}
        if holds and (refused := await self._quota.reserve(sessions[0].client_id, holds)) is not None:
            raise TokenQuotaExceededError(*refused)

    async def release(self, sessions: Sequence[ResearchSession]) -> None:
        """Gives back what ``sessions`` hold: they ended without running (cancelled while queued, not stored). A
        failure is logged: the hold ends with the quota's window."""
        if self._quota is None:
            return
        for session in sessions:
            try:
                await self._quota.settle(session.client_id, session.session_id, 0)
            except Exception as exc:
                log.warning("token_hold_not_released %s: %s", session.session_id, type(exc).__name__)

    async def settle(self, session: ResearchSession) -> ResearchUsage:
        """When a session ends (``session`` as stored, with its stages): its new calls go to the ledger and count
        against its client's daily tokens, and the rest of what it held is given back. Returns its usage."""
        session_id = session.session_id
        usage = self.usage_of(session)
        day = self._today()
        records = [
            UsageRecord(session_id, stage, session.client_id, day, stage_usage)
            for stage, stage_usage in usage.stages.items()
            if stage not in usage.carried and stage_usage.llm_calls
        ]
        if records:
            await self._ledger.record_usage(records)
        if self._quota is not None:
            await self._quota.settle(session.client_id, session_id, usage.new.tokens)
        log.info("research_usage %s: %d calls, %d tokens", session_id, usage.new.llm_calls, usage.new.tokens)
        return usage

    async def report(self, viewer: Viewer, start: str | None, end: str | None) -> UsageReport:
        """The viewer's usage by day and model (an admin: every client's, per client), ``start`` to ``end`` (ISO days,
        inclusive; default: the ``REPORT_DAYS`` days up to today, or up to ``start`` when that is later). Raises
        ``InvalidDateError`` / ``InvalidDateRangeError``."""
        given_start = optional_day("start", start)
        last = optional_day("end", end) or max(self._today(), given_start or self._today())
        first = given_start or last - timedelta(days=REPORT_DAYS - 1)
        if first > last:
            raise InvalidDateRangeError(f"start {first.isoformat()} is after end {last.isoformat()}")
        return await self._report(viewer, first, last)

    async def _report(self, viewer: Viewer, start: date, end: date) -> UsageReport:
        totals = await self._ledger.usage_totals(client_id=viewer.only_client, start=start, end=end)
        rows = [
            UsageRow(
                day=t.day.isoformat(),
                model=t.model,
                client_id=t.client_id if viewer.sees_all else None,
                usage=t.usage,
                cost=cost_of(t.usage, self._prices) if self._prices else None,
            )
            for t in totals
        ]
        costs = [row.cost for row in rows]
        cost = round(sum(c for c in costs if c is not None), 6) if self._prices and None not in costs else None
        return UsageReport(
            start=start.isoformat(), end=end.isoformat(), rows=rows, total=total_of([r.usage for r in rows]), cost=cost
        )
