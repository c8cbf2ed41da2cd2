"""Calls to a peer service over HTTP, as distributed calls should be made (``post_json`` for the stages,
``get_json`` for research's bars; both alike):

- a time budget per call (connect timeout, and the whole call incl. retries bounded by ``budget_seconds``);
- retries (tenacity) only for transient failures: connection errors and 429/502/503/504, exponential
  backoff with jitter, at most ``max_attempts``; any other 4xx/5xx is final, and so is a reply whose
  problem says the peer's LLM call failed in a way the peer has already retried or that would fail again:
  ``llm_upstream_error`` (a bad key, an unknown model, a prompt too long), ``llm_unavailable`` and
  ``llm_timeout`` (the peer's LLM client retried them, ``LLM_MAX_RETRIES``; retrying here too multiplied
  the LLM calls, 9 for one expert). An ``llm_output_invalid`` is retried although every peer answers it
  with 500 (the status the debate spec fixes for it): nothing else retries it, and another sample of the
  model may parse;
- the caller's X-Request-ID forwarded;
- every failure raised as a typed ``GatewayError`` carrying ``attempts`` (a non-2xx reply becomes a
  ``PeerResponseError`` holding the peer's problem detail, e.g. ``research 404 symbol_not_found: ...``,
  and its extension members, e.g. ``earliest_usable_date``).

An error's text is what the coordinator stores in the session and answers the client with, so it names the
peer (``research``, ``debate``, ``judge``), never its URL or host, and what the peer said is passed through
``redact_secrets`` here, where it enters the coordinator (a peer's detail can quote its LLM endpoint's answer),
with any URL in it replaced by ``[URL]``. A peer's URL is logged at DEBUG only.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import orjson
import structlog
from httpx_aiohttp import AiohttpTransport
from pydantic import BaseModel, ValidationError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from coordinator.domain.exceptions import (
    GatewayError,
    PeerContractError,
    PeerResponseError,
    PeerTimeoutError,
    PeerUnavailableError,
)
from service_kit.authentication import caller_headers
from service_kit.llm.errors import LLMTimeoutError, LLMUnavailableError, LLMUpstreamError
from service_kit.request_id import outgoing_headers
from service_kit.token_budget import TOKEN_BUDGET_HEADER
from service_kit.tracing import instrument_http_client
from shared_contracts.bulk import BulkAnswer
from shared_contracts.errors import LLMOutputParseError
from shared_contracts.problems import RAW_OUTPUT_EXCERPT, ProblemDetail
from shared_contracts.redaction import describe_connection_failure, redact_secrets
from shared_contracts.usage import LLMUsage

log = structlog.get_logger(__name__)
M = TypeVar("M", bound=BaseModel)

TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})
FINAL_PROBLEM_CODES = frozenset({LLMUpstreamError.code, LLMUnavailableError.code, LLMTimeoutError.code})
RESAMPLED_PROBLEM_CODE = LLMOutputParseError.code
"""Retried on a 500 as well: every peer answers an unusable model output with 500."""
_TRANSIENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError)


@dataclass(frozen=True)
class CallPolicy:
    budget_seconds: float
    """The whole call, retries and backoff included; also each attempt's read/write timeout."""
    connect_timeout_seconds: float = 5.0
    max_attempts: int = 3
    backoff_initial_seconds: float = 0.5
    backoff_max_seconds: float = 4.0
    backoff_jitter_seconds: float = 0.5


def response_error(service: str, response: httpx.Response, *, attempts: int = 1) -> PeerResponseError:
    """The ``PeerResponseError`` of a non-2xx reply: the peer's problem code, detail (with an excerpt of what its
    model wrote, when it says) and other members; ``http_error`` and the body's beginning for a reply that is
    not a problem detail."""
    try:
        body = response.json()
    except ValueError:
        body = None
    text = response.text.strip()[:300] or response.reason_phrase
    return problem_error(service, response.status_code, body, attempts=attempts, otherwise=text)


def problem_error(
    service: str, status: int, problem: Any, *, attempts: int = 1, otherwise: str | None = None
) -> PeerResponseError:
    """The ``PeerResponseError`` of a problem detail (a reply's, or one item's of a bulk reply): its code, detail
    (with an excerpt of what the model wrote, when it says) and other members; ``http_error`` with ``otherwise``
    (the reply's beginning) when ``problem`` is not a problem detail."""
    extensions: dict[str, Any] = {}
    try:
        parsed = ProblemDetail.model_validate(problem)
        code, detail = parsed.code, parsed.detail
        extensions = dict(parsed.model_extra or {})
        excerpt = extensions.get(RAW_OUTPUT_EXCERPT)
        if isinstance(excerpt, str) and excerpt:  # the session keeps what the model wrote, for the audit
            detail += f" (the model wrote: {_excerpt(excerpt)})"
    except ValidationError:
        code, detail = "http_error", otherwise or f"HTTP {status}"
    code, detail = _said_by_peer(code), _said_by_peer(detail)
    return PeerResponseError(service, status, code, detail, attempts=attempts, extensions=extensions)


class _TransientStatus(Exception):
    def __init__(self, response: httpx.Response, code: str | None) -> None:
        super().__init__(f"HTTP {response.status_code}" + (f" {code}" if code else ""))
        self.response = response
        self.code = code


def _problem_code(response: httpx.Response) -> str | None:
    code = _problem_members(response).get("code")
    return code if isinstance(code, str) else None


def problems_of(exc: ValidationError) -> str:
    """The first few validation errors, one ``field.path: message`` each."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, (_TransientStatus, *_TRANSIENT_ERRORS))


def peer_http_client(max_connections: int) -> httpx.AsyncClient:
    """The client all peers share: httpx's API on aiohttp's connection pool and HTTP parser
    (``httpx-aiohttp``, cheaper in CPU than httpx's own transport). Every connection is kept alive. A span
    per request when tracing is on."""
    limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
    return instrument_http_client(httpx.AsyncClient(transport=AiohttpTransport(limits=limits), limits=limits))


class PeerClient:
    """One peer service (``service`` names it in errors and logs) over a shared ``httpx.AsyncClient``."""

    def __init__(
        self, service: str, base_url: str, client: httpx.AsyncClient, policy: CallPolicy, service_key: str | None = None
    ) -> None:
        """``service_key``: the coordinator's own API key, sent to the peer with the caller's client id."""
        self.service = service
        self._authorization = {"Authorization": f"Bearer {service_key}"} if service_key else {}
        self.base_url = base_url.rstrip("/")
        self._client = client
        self._policy = policy
        self._timeout = httpx.Timeout(policy.budget_seconds, connect=policy.connect_timeout_seconds)
        self._parsed_urls: dict[str, httpx.URL] = {}

    def _url(self, path: str) -> httpx.URL:
        """The URL of ``path``, parsed once (a gateway calls a fixed few paths)."""
        url = self._parsed_urls.get(path)
        if url is None:
            url = self._parsed_urls[path] = httpx.URL(f"{self.base_url}{path}")
        return url

    async def post_json(self, path: str, body: dict[str, Any], *, token_budget: int | None = None) -> tuple[Any, int]:
        """POST ``body``; return (the decoded JSON reply, attempts made). ``token_budget``: what the peer's model
        calls may use (``X-Token-Budget``)."""
        url, headers = self._url(path), self._headers()
        if token_budget is not None:
            headers[TOKEN_BUDGET_HEADER] = str(token_budget)
        return await self._call(url, lambda: self._client.post(url, json=body, headers=headers, timeout=self._timeout))

    async def get_json(self, path: str, params: Mapping[str, str] | None = None) -> tuple[Any, int]:
        """GET ``path`` with the query ``params``; return (the decoded JSON reply, attempts made). The URL is
        not kept (the path names a symbol: unlike a gateway's fixed few, they are many)."""
        url = httpx.URL(f"{self.base_url}{path}", params=dict(params or {}))
        return await self._call(url, lambda: self._client.get(url, headers=self._headers(), timeout=self._timeout))

    def _headers(self) -> dict[str, str]:
        """The request id, the client the call is made for, and the coordinator's key."""
        return {**outgoing_headers(), **caller_headers(), **self._authorization}

    async def _call(self, url: httpx.URL, send: Callable[[], Awaitable[httpx.Response]]) -> tuple[Any, int]:
        """``send`` (one attempt) within the call's budget, retried on transient failures; every failure raised
        as a ``GatewayError``."""
        attempts = 0
        resampled: list[LLMUsage] = []  # what the attempts answered llm_output_invalid and asked again had used
        policy = self._policy
        retrying = AsyncRetrying(
            stop=stop_after_attempt(policy.max_attempts),
            wait=wait_exponential_jitter(
                multiplier=policy.backoff_initial_seconds,
                max=policy.backoff_max_seconds,
                jitter=policy.backoff_jitter_seconds,
            ),
            retry=retry_if_exception(_is_transient),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            async with asyncio.timeout(policy.budget_seconds):
                async for attempt in retrying:
                    with attempt:
                        attempts = attempt.retry_state.attempt_number
                        response = await send()
                        if response.status_code in TRANSIENT_STATUSES:
                            code = _problem_code(response)
                            if code not in FINAL_PROBLEM_CODES:
                                if code == RESAMPLED_PROBLEM_CODE:
                                    resampled.append(_usage_of(_problem_members(response)))
                                raise _TransientStatus(response, code)
                        elif response.status_code == 500 and _problem_code(response) == RESAMPLED_PROBLEM_CODE:
                            resampled.append(_usage_of(_problem_members(response)))
                            raise _TransientStatus(response, RESAMPLED_PROBLEM_CODE)
        except (TimeoutError, httpx.TimeoutException) as exc:
            if isinstance(exc, httpx.ConnectTimeout):
                raise self._unavailable(url, exc, attempts) from exc
            message = f"{self.service} timed out after {policy.budget_seconds:g}s ({_attempts(attempts)})"
            raise PeerTimeoutError(self.service, message, attempts=attempts) from exc
        except _TransientStatus as exc:
            failure = response_error(self.service, exc.response, attempts=attempts)
            raise _counting(failure, resampled[:-1] if exc.code == RESAMPLED_PROBLEM_CODE else resampled) from None
        except httpx.HTTPError as exc:
            raise self._unavailable(url, exc, attempts) from exc
        if response.is_error:
            failure = response_error(self.service, response, attempts=attempts)
            raise _counting(failure, resampled)
        try:
            body = orjson.loads(response.content)  # a bulk reply is megabytes: orjson parses it several times faster
        except orjson.JSONDecodeError as exc:
            raise PeerContractError(self.service, f"{self.service} replied with non-JSON", attempts=attempts) from exc
        if resampled and isinstance(body, dict):
            body["usage"] = _summed(body.get("usage"), resampled)
        return body, attempts

    def parsed(self, model: type[M], body: Any, attempts: int, what: str) -> M:
        """``body`` as ``model``; one that breaks it is a ``PeerContractError`` naming ``what`` and the fields."""
        try:
            return model.model_validate(body)
        except ValidationError as exc:
            message = f"{self.service} {what} breaks the contract ({problems_of(exc)})"
            raise PeerContractError(self.service, message, attempts=attempts) from None

    async def post_bulk(
        self, path: str, body: dict[str, Any], count: int, item: Callable[[dict[str, Any], int], dict[str, Any]]
    ) -> list[dict[str, Any] | Exception]:
        """POST a bulk request of ``count`` items (``shared_contracts.bulk``): per item, in order, its result as
        ``item(result, attempts)`` returns it (it may raise a ``GatewayError``), or the ``PeerResponseError`` of its
        problem. The whole call failing raises, as ``post_json``."""
        reply, attempts = await self.post_json(path, body)
        answer = self.parsed(BulkAnswer, reply, attempts, "bulk reply")
        if len(answer.items) != count:
            message = f"{self.service} answered {len(answer.items)} items to a bulk request of {count}"
            raise PeerContractError(self.service, message, attempts=attempts)
        outcomes: list[dict[str, Any] | Exception] = []
        for answered in answer.items:
            if answered.result is None:
                problem = answered.problem.model_dump() if answered.problem is not None else {}
                status = answered.problem.status if answered.problem is not None else 502
                outcomes.append(problem_error(self.service, status, {"title": "", **problem}, attempts=attempts))
                continue
            try:
                outcomes.append(item(answered.result, attempts))
            except GatewayError as exc:
                outcomes.append(exc)
        return outcomes

    async def health(self, timeout_seconds: float) -> str:
        """'ok' when ``GET /healthz`` answers 200, else the reason (for /readyz)."""
        url = f"{self.base_url}/healthz"
        try:
            response = await self._client.get(url, headers=outgoing_headers(), timeout=timeout_seconds)
        except httpx.HTTPError as exc:
            log.debug("peer_health_failed", peer=self.service, url=url, error=str(exc))
            return f"unreachable: {describe_connection_failure(exc)}"
        return "ok" if response.status_code == 200 else f"unhealthy: HTTP {response.status_code}"

    def _unavailable(self, url: httpx.URL, exc: httpx.HTTPError, attempts: int) -> PeerUnavailableError:
        """Names the peer and what happened (``research unreachable: connection refused (ConnectionRefusedError)
        (3 attempts)``); the URL and the HTTP client's own message (which names the host) only in a DEBUG line."""
        log.debug("peer_unreachable", peer=self.service, url=str(url), error=str(exc) or type(exc).__name__)
        message = f"{self.service} unreachable: {describe_connection_failure(exc)} ({_attempts(attempts)})"
        return PeerUnavailableError(self.service, message, attempts=attempts)

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        error = describe_connection_failure(exc) if isinstance(exc, httpx.HTTPError) else str(exc)
        wait = round(state.upcoming_sleep, 3)
        log.warning("peer_retry", peer=self.service, attempt=state.attempt_number, error=error, wait_s=wait)


_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s'\"<>()\[\]]+", re.IGNORECASE)


def _said_by_peer(text: str) -> str:
    """A peer's words as the coordinator keeps them: key-like substrings masked, and every URL (e.g. the peer's
    LLM endpoint) replaced by ``[URL]``."""
    return _URL.sub("[URL]", redact_secrets(text))


def _excerpt(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


def _problem_members(response: httpx.Response) -> dict[str, Any]:
    try:
        members = response.json()
    except ValueError:
        return {}
    return members if isinstance(members, dict) else {}


def _usage_of(members: dict[str, Any]) -> LLMUsage:
    """The ``usage`` member of a peer's answer or problem (none: no calls)."""
    try:
        return LLMUsage.model_validate(members.get("usage") or {})
    except ValidationError:
        return LLMUsage()


def _summed(usage: Any, earlier: list[LLMUsage]) -> dict[str, Any]:
    """``usage`` (an answer's or a problem's member) plus the calls of the attempts asked again before it: a stage's
    usage is every call it made, the coordinator's resampling included."""
    total = _usage_of({"usage": usage})
    for spent in earlier:
        total = total + spent
    return total.model_dump(mode="json", exclude_none=True)


def _counting(failure: PeerResponseError, earlier: list[LLMUsage]) -> PeerResponseError:
    """``failure`` whose problem's ``usage`` also counts the earlier attempts' calls."""
    if earlier:
        failure.extensions["usage"] = _summed(failure.extensions.get("usage"), earlier)
    return failure


def _attempts(n: int) -> str:
    return f"{n} attempt{'s' if n != 1 else ''}"
