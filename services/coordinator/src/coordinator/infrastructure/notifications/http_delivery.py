"""One POST to a receiver and what its outcome means for the outbox:

- a 2xx answer is delivered;
- 408, 429 and 5xx answers, timeouts and connection failures are retryable (``Retry-After``, in seconds or as an
  HTTP date, becomes ``retry_after``);
- any other answer is permanent (a 4xx: the target or its key is wrong);
- a target that is no usable http(s) URL is permanent.

Every failure is a ``SendFailedError`` whose message names the receiver's host only (``HTTP 500 from
example.com``, ``could not reach hooks.slack.com: connection refused (ConnectionRefusedError)``): never the URL,
which for the chat kinds holds the key, nor an httpx exception's text, which quotes it. What a receiver says back
is passed through ``receiver_text`` first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from coordinator.domain.ports.notification_sender import SendFailedError
from shared_contracts.redaction import REDACTED, describe_connection_failure, redact_secrets

RETRYABLE_STATUSES = frozenset({408, 429})
RECEIVER_TEXT_CHARS = 200


def host_of(url: str) -> str:
    """The URL's host (what error messages may name), or ``the receiver`` when it has none."""
    try:
        return urlsplit(url).hostname or "the receiver"
    except ValueError:
        return "the receiver"


def retry_after_seconds(value: str | None, *, now: datetime) -> float | None:
    """A ``Retry-After`` header's wait in seconds (``120``, or an HTTP date after ``now``); None when absent
    or unreadable; never negative."""
    if not value or not (value := value.strip()):
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, (utc(when) - utc(now)).total_seconds())


def receiver_text(text: str, *, hidden: Iterable[str | None]) -> str:
    """What a receiver said, safe to store: one line of at most ``RECEIVER_TEXT_CHARS`` characters, with each of
    ``hidden`` (the channel's secret, target, the target's path) and anything key-like masked."""
    for value in sorted((v for v in hidden if v and len(v) >= 4), key=len, reverse=True):
        text = text.replace(value, REDACTED)
    text = redact_secrets(" ".join(text.split()))
    return text if len(text) <= RECEIVER_TEXT_CHARS else text[: RECEIVER_TEXT_CHARS - 1] + "…"


def hidden_parts(url: str, *secrets: str | None) -> tuple[str | None, ...]:
    """What ``receiver_text`` must mask for a channel: its secrets, its URL and the URL's path and query."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return (*secrets, url)
    return (*secrets, url, parts.path if len(parts.path) > 1 else None, parts.query or None)


def answer_text(response: httpx.Response, *, hidden: Iterable[str | None]) -> str | None:
    """The body of an answer as ``receiver_text`` makes it safe (None when empty or not text)."""
    try:
        text = response.text
    except (UnicodeDecodeError, LookupError):
        return None
    return receiver_text(text, hidden=hidden) or None


def json_object(response: httpx.Response) -> dict[str, Any] | None:
    """The body of an answer when it is a JSON object, else None."""
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def failed_answer(
    response: httpx.Response, host: str, *, now: datetime, said: str | None = None, retry_after: float | None = None
) -> SendFailedError:
    """The ``SendFailedError`` of a non-2xx answer (``said``: what the receiver said, already made safe)."""
    status = response.status_code
    retryable = status in RETRYABLE_STATUSES or status >= 500
    if retry_after is None:
        retry_after = retry_after_seconds(response.headers.get("retry-after"), now=now)
    message = f"HTTP {status} from {host}" + (f": {said}" if said else "")
    return SendFailedError(
        message, status_code=status, retry_after=retry_after if retryable else None, permanent=not retryable
    )


def delivered(response: httpx.Response, host: str, *, now: datetime, said: str | None = None) -> int:
    """The status of a 2xx answer; raises ``failed_answer`` for any other."""
    if not response.is_success:
        raise failed_answer(response, host, now=now, said=said)
    return response.status_code


async def post(
    client: httpx.AsyncClient,
    url: str,
    *,
    timeout_seconds: float,
    json: Any = None,
    content: bytes | None = None,
    headers: Mapping[str, str] | None = None,
) -> httpx.Response:
    """POST and read the answer (whatever its status); a request that got no answer raises ``SendFailedError``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        host = None
    if host is None or parts.scheme not in ("http", "https"):
        raise SendFailedError("the target is not a usable http(s) URL", permanent=True)
    try:
        return await client.post(url, json=json, content=content, headers=headers, timeout=timeout_seconds)
    except (httpx.InvalidURL, httpx.UnsupportedProtocol):
        raise SendFailedError("the target is not a usable http(s) URL", permanent=True) from None
    except httpx.TimeoutException:
        raise SendFailedError(f"no answer from {host} within {timeout_seconds:g} s") from None
    except httpx.RequestError as exc:
        raise SendFailedError(f"could not reach {host}: {describe_connection_failure(exc)}") from None


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC (a naive one is taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
