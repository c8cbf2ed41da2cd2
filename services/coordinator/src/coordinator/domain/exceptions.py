"""The coordinator's errors, each with a stable ``code`` (its HTTP status: ``PROBLEM_STATUS``). Only the
coordinator raises these; the errors it shares with other services are ``shared_contracts.errors``'s.

InvalidRequestError (shared_contracts.errors)  400 invalid_request (e.g. an analysis_date that is not a YYYY-MM-DD
│                                  day), with the shared SymbolRequiredError, InvalidSymbolError, InvalidOptionsError,
│                                  ConflictingAnalysisDateError, AnalysisDateInFutureError, InvalidDateError and
│                                  InvalidDateRangeError (the scorecard's, the bars' and the usage's start/end)
├── ExpertsEmptyError              experts_empty
├── UnknownExpertError             unknown_expert: an expert in the request body that does not exist (research's
│                                  ExpertNotFoundError is its 404 for an expert in the path)
├── DuplicateExpertError           duplicate_expert
├── SymbolsEmptyError              symbols_empty (a batch's or a watchlist's)
├── UnknownSymbolsError            unknown_symbols: a watchlist's symbols the universe lacks, named
├── InvalidWatchlistError          invalid_watchlist (a blank or too long name)
├── InvalidScheduleError           invalid_schedule (cron, time zone, calendar, unknown channel)
├── InvalidChannelError            invalid_channel (a target that does not fit the kind, a missing bot token)
└── ScorecardEngineError           invalid_engine
CoordinatorError
├── AllExpertsFailedError          500 all_experts_failed (carries the full result); when every expert failed
│                                  for the caller's mistake, as research said, answered with that mistake's code
│                                  (``reason``): 404 symbol_not_found, 404 data_unavailable, 422
│                                  insufficient_history (with the earliest usable date, when known), 422
│                                  token_budget_exhausted (the research's token budget ran out)
├── GatewayError                   gateway_error: a peer call failed, with ``service`` and ``attempts`` (recorded as
│   │                              that stage's error, never answered as such)
│   ├── PeerResponseError          peer_error: a non-2xx reply (its problem detail and extension members)
│   ├── PeerTimeoutError           peer_timeout
│   ├── PeerUnavailableError       peer_unavailable (connection refused/reset, DNS, ...)
│   └── PeerContractError          peer_contract: a body that breaks the wire contract
└── SessionError
    ├── SessionNotFoundError       404 session_not_found
    ├── SessionConflictError       409 session_conflict: SessionRunningError session_running,
    │                              SessionNotRetryableError not_retryable, RetryAlreadyStartedError
    │                              retry_in_progress | already_retried, SessionFinishedError session_finished,
    │                              IdempotencyKeyReusedError idempotency_key_reused
    ├── QueueFullError             503 queue_full (with ``retry_after_seconds``)
    ├── TokenQuotaExceededError    429 token_quota_exceeded: the client's CLIENT_DAILY_TOKENS are used up
    │                              (with ``retry_after_seconds``)
    ├── TooManyStreamsError        429 too_many_streams: the client (or the server) follows as many event streams
    │                              as allowed (EVENT_STREAMS_PER_CLIENT, EVENT_STREAMS_TOTAL; ``retry_after_seconds``)
    ├── ResumeUnavailableError     500 session_error: a run cannot continue from its checkpoint (the session ends
    │                              interrupted)
    └── SessionStoreUnavailableError  503 session_store_unavailable
BatchError                         404 batch_not_found, 409 batch_finished, 413 batch_too_large
WatchlistError                     404 watchlist_not_found, schedule_not_found, channel_not_found,
                                   delivery_not_found; 409 watchlist_name_taken, delivery_not_failed
IdempotencyKeyTakenError           not an answer: storing found the Idempotency-Key taken, the use case answers
                                   with the session that holds it
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from shared_contracts.errors import (
    DataUnavailableError,
    InsufficientHistoryError,
    InvalidRequestError,
    ServiceError,
    SymbolNotFoundError,
    TokenBudgetExhaustedError,
)

if TYPE_CHECKING:
    from coordinator.domain.dtos.research_dtos import ResearchResult
    from coordinator.domain.model.session import ResearchSession


class CoordinatorError(ServiceError):
    """The root of the coordinator's own errors (never raised itself)."""


class ExpertsEmptyError(InvalidRequestError):
    code = "experts_empty"


class UnknownExpertError(InvalidRequestError):
    code = "unknown_expert"


class DuplicateExpertError(InvalidRequestError):
    code = "duplicate_expert"


class ScorecardEngineError(InvalidRequestError):
    code = "invalid_engine"


CLIENT_SIDE_CODES = frozenset({SymbolNotFoundError.code, InsufficientHistoryError.code, DataUnavailableError.code})
"""Research failures that are the caller's choice of symbol, experts or date, not a fault."""


class AllExpertsFailedError(CoordinatorError):
    """Every selected expert failed; ``result`` holds each expert's error (and the session id).

    ``reason``: when every expert failed for the same mistake of the caller, as the research service said, the
    error class of that mistake (``SymbolNotFoundError``, ``DataUnavailableError``, ``InsufficientHistoryError``,
    ``TokenBudgetExhaustedError``), whose code the answer carries (``answer_code``); None for any other failure,
    the spec's 500 ``all_experts_failed``. ``earliest_usable_date``: with ``InsufficientHistoryError``, the
    earliest day one of the experts could work from, when the research service said."""

    code = "all_experts_failed"

    def __init__(
        self,
        result: ResearchResult,
        reason: type[ServiceError] | None = None,
        earliest_usable_date: date | None = None,
    ) -> None:
        by_error: dict[str, list[str]] = {}  # experts that failed alike are named together, the error said once
        for item in result.expert_results:
            by_error.setdefault(str(item.error), []).append(item.expert_type.value)
        errors = "; ".join(f"{', '.join(names)}: {error}" for error, names in by_error.items())
        super().__init__(f"every selected expert failed ({errors})")
        self.result = result
        self.reason = reason
        self.earliest_usable_date = earliest_usable_date

    @property
    def answer_code(self) -> str:
        """The code the research is answered with: the caller's mistake's, else ``all_experts_failed``."""
        return self.reason.code if self.reason is not None else self.code

    @staticmethod
    def for_result(result: ResearchResult) -> AllExpertsFailedError:
        """The error for ``result`` (every expert failed). The research's token budget spent for every expert:
        ``TokenBudgetExhaustedError``. When every failure is a client-side one the research service named:
        ``InsufficientHistoryError`` if any expert needs a later date (the earliest date one of them gave), else
        ``SymbolNotFoundError`` if none has the symbol, else ``DataUnavailableError`` (no data of the kinds asked
        for). Any other failure: no reason, the spec's 500."""
        if all(TokenBudgetExhaustedError.code in str(item.error) for item in result.expert_results):
            return AllExpertsFailedError(result, TokenBudgetExhaustedError)
        failures = [item.failure for item in result.expert_results]
        codes = {failure.code if failure is not None else None for failure in failures}
        if not codes <= CLIENT_SIDE_CODES:
            return AllExpertsFailedError(result)
        if InsufficientHistoryError.code in codes:
            dates = [f.earliest_usable_date for f in failures if f is not None and f.earliest_usable_date is not None]
            return AllExpertsFailedError(result, InsufficientHistoryError, min(dates) if dates else None)
        if codes == {SymbolNotFoundError.code}:
            return AllExpertsFailedError(result, SymbolNotFoundError)
        return AllExpertsFailedError(result, DataUnavailableError)


class GatewayError(CoordinatorError):
    code = "gateway_error"

    def __init__(self, service: str, message: str, *, attempts: int = 1) -> None:
        super().__init__(message)
        self.service = service
        self.attempts = attempts


class PeerResponseError(GatewayError):
    """The peer answered with a non-2xx status; its problem detail, when it sent one, is kept:
    ``peer_code``, ``detail`` and ``extensions`` (the problem's other members, e.g. research's
    ``earliest_usable_date``)."""

    code = "peer_error"

    def __init__(
        self,
        service: str,
        status: int,
        peer_code: str,
        detail: str,
        *,
        attempts: int = 1,
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(service, f"{service} {status} {peer_code}: {detail}", attempts=attempts)
        self.status = status
        self.peer_code = peer_code
        self.detail = detail
        self.extensions: dict[str, Any] = dict(extensions or {})


class PeerTimeoutError(GatewayError):
    code = "peer_timeout"


class PeerUnavailableError(GatewayError):
    code = "peer_unavailable"


class PeerContractError(GatewayError):
    code = "peer_contract"


class SessionError(CoordinatorError):
    """The root of the errors of a research session (never raised itself)."""


class SessionNotFoundError(SessionError):
    code = "session_not_found"

    def __init__(self, session_id: str) -> None:
        shown = session_id if len(session_id) <= 64 else f"{session_id[:64]}… ({len(session_id)} characters)"
        super().__init__(f"No research session {shown!r}.")
        self.session_id = session_id


class SessionConflictError(SessionError):
    code = "session_conflict"


class SessionRunningError(SessionConflictError):
    code = "session_running"

    def __init__(self, session_id: str) -> None:
        super().__init__(f"Session {session_id} is still running; retry it once it has ended.")
        self.session_id = session_id


class SessionNotRetryableError(SessionConflictError):
    code = "not_retryable"

    def __init__(self, session_id: str, reason: str, *, permanent_failures: Mapping[str, str] | None = None) -> None:
        """``permanent_failures``: the experts refused for good, with the research service's code (the problem's
        member of that name)."""
        super().__init__(f"Session {session_id} has nothing to retry: {reason}.")
        self.session_id = session_id
        if permanent_failures:
            self.problem_extra = {"permanent_failures": dict(permanent_failures)}


class RetryAlreadyStartedError(SessionConflictError):
    """The source session already has a retry (a unique constraint in the store, so it holds across
    coordinator replicas). ``code`` is ``retry_in_progress`` while that retry runs, ``already_retried``
    once it has ended; the problem detail names it (``retry_session_id``) so the client can retry
    the newest session of the chain."""

    code = "already_retried"

    def __init__(self, source_id: str, retry_session_id: str | None = None, *, in_progress: bool = False) -> None:
        where = f" by {retry_session_id}" if retry_session_id else ""
        state = "is already being retried" if in_progress else "has already been retried"
        super().__init__(f"Session {source_id} {state}{where}; retry the newest session of the chain instead.")
        self.source_id = source_id
        self.retry_session_id = retry_session_id
        self.code = "retry_in_progress" if in_progress else "already_retried"
        self.problem_extra = {"retry_session_id": retry_session_id} if retry_session_id else None


class SessionStoreUnavailableError(SessionError):
    """The session store (database) cannot be reached; the client may try again later."""

    code = "session_store_unavailable"


class SessionFinishedError(SessionConflictError):
    code = "session_finished"

    def __init__(self, session_id: str, status: str) -> None:
        super().__init__(f"Session {session_id} has already ended ({status}).")
        self.session_id = session_id
        self.problem_extra = {"session_id": session_id, "status": status}


class IdempotencyKeyReusedError(SessionConflictError):
    """The client sent this ``Idempotency-Key`` before with another request body."""

    code = "idempotency_key_reused"

    def __init__(self, key: str, session_id: str) -> None:
        super().__init__(f"Idempotency-Key {key[:64]!r} was used for another request (session {session_id}).")
        self.problem_extra = {"session_id": session_id}


class IdempotencyKeyTakenError(Exception):
    """Storing a session with an ``Idempotency-Key`` found the key taken by ``session`` (a submission with the
    same key won the race). Not an answer, so not a ``ServiceError``: the use case answers with that session, as
    for a key seen before (or ``IdempotencyKeyReusedError`` when the bodies differ)."""

    def __init__(self, key: str, session: ResearchSession) -> None:
        super().__init__(f"Idempotency-Key {key[:64]!r} is taken by session {session.session_id}")
        self.key, self.session = key, session


class QueueFullError(SessionError):
    code = "queue_full"

    def __init__(self, limit: int, retry_after_seconds: int) -> None:
        super().__init__(f"{limit} researches are waiting already; try again in {retry_after_seconds} s.")
        self.retry_after_seconds = retry_after_seconds


class TooManyStreamsError(SessionError):
    """A new event stream beyond the client's share of streams, or beyond the server's."""

    code = "too_many_streams"

    def __init__(self, detail: str, retry_after_seconds: int) -> None:
        super().__init__(f"{detail}; close one, or retry in {retry_after_seconds} s.")
        self.retry_after_seconds = retry_after_seconds


class TokenQuotaExceededError(SessionError):
    """The client's daily token quota (``CLIENT_DAILY_TOKENS``) is used up: no research starts until it resets."""

    code = "token_quota_exceeded"

    def __init__(self, detail: str, retry_after_seconds: int) -> None:
        super().__init__(detail)
        self.retry_after_seconds = retry_after_seconds


class ResumeUnavailableError(SessionError):
    """A research cannot continue from its checkpoint (there is none, or it cannot be read)."""

    code = "session_error"


class BatchError(CoordinatorError):
    """The root of the errors of a batch (never raised itself)."""


class BatchNotFoundError(BatchError):
    code = "batch_not_found"

    def __init__(self, batch_id: str) -> None:
        shown = batch_id if len(batch_id) <= 64 else f"{batch_id[:64]}… ({len(batch_id)} characters)"
        super().__init__(f"No batch {shown!r}.")


class BatchFinishedError(BatchError):
    code = "batch_finished"

    def __init__(self, batch_id: str, status: str) -> None:
        super().__init__(f"Batch {batch_id} has ended ({status}); only a queued or running batch can be cancelled.")


class BatchTooLargeError(BatchError):
    code = "batch_too_large"

    def __init__(self, count: int, limit: int) -> None:
        super().__init__(f"A batch may name at most {limit} symbols; this one names {count}. Split it into batches.")


class SymbolsEmptyError(InvalidRequestError):
    code = "symbols_empty"


class WatchlistError(CoordinatorError):
    """The root of the errors of watchlists, schedules, channels and deliveries (never raised itself)."""


def _shown(identifier: str) -> str:
    return identifier if len(identifier) <= 64 else f"{identifier[:64]}… ({len(identifier)} characters)"


class WatchlistNotFoundError(WatchlistError):
    code = "watchlist_not_found"

    def __init__(self, watchlist: str) -> None:
        super().__init__(f"No watchlist {_shown(watchlist)!r}.")


class WatchlistNameTakenError(WatchlistError):
    code = "watchlist_name_taken"

    def __init__(self, name: str) -> None:
        super().__init__(f"You have a watchlist named {_shown(name)!r} already; choose another name.")


class ScheduleNotFoundError(WatchlistError):
    code = "schedule_not_found"

    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"No schedule {_shown(schedule_id)!r} on this watchlist.")


class ChannelNotFoundError(WatchlistError):
    code = "channel_not_found"

    def __init__(self, channel_id: str) -> None:
        super().__init__(f"No channel {_shown(channel_id)!r}.")


class DeliveryNotFoundError(WatchlistError):
    code = "delivery_not_found"

    def __init__(self, delivery_id: str) -> None:
        super().__init__(f"No delivery {_shown(delivery_id)!r}.")


class DeliveryNotFailedError(WatchlistError):
    code = "delivery_not_failed"

    def __init__(self, delivery_id: str, status: str) -> None:
        super().__init__(f"Delivery {delivery_id} is {status}; only a failed delivery can be retried.")


class UnknownSymbolsError(InvalidRequestError):
    code = "unknown_symbols"

    def __init__(self, symbols: list[str]) -> None:
        named = ", ".join(symbols[:20]) + (f" and {len(symbols) - 20} more" if len(symbols) > 20 else "")
        super().__init__(f"The research universe has no {named}; remove {'it' if len(symbols) == 1 else 'them'}.")
        self.symbols = symbols
        self.problem_extra = {"unknown_symbols": symbols}


class InvalidWatchlistError(InvalidRequestError):
    code = "invalid_watchlist"


class InvalidScheduleError(InvalidRequestError):
    code = "invalid_schedule"


class InvalidChannelError(InvalidRequestError):
    code = "invalid_channel"
