"""The chat kinds: each POSTs its format (``chat_formats``, ``text_formats``) and reads the chat's own
acknowledgement.

- Slack: the incoming-webhook URL; a 2xx (body ``ok``) is delivered.
- Feishu: the bot's URL, with ``timestamp`` and ``sign`` when the channel has a signing secret; delivered when
  the answer's ``code`` (older bots: ``StatusCode``) is 0; codes 9499 and 11232 (rate limits) are retryable,
  any other is permanent.
- WeCom: the group bot's URL; delivered when ``errcode`` is 0; 45009 (rate limit) and -1 (busy) are retryable,
  any other is permanent.
- Telegram: ``{api_base}/bot{token}/sendMessage`` with the chat id and HTML; the token is the channel's secret.
  A 429 carries ``parameters.retry_after``.

Failures name the chat's host and the code and text it answered (made safe by ``receiver_text``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from coordinator.domain.model.channel import Channel
from coordinator.domain.ports.notification_sender import SendFailedError
from coordinator.infrastructure.notifications.chat_formats import feishu_payload, slack_payload, wecom_payload
from coordinator.infrastructure.notifications.http_delivery import (
    answer_text,
    delivered,
    failed_answer,
    hidden_parts,
    host_of,
    json_object,
    post,
    receiver_text,
    utc,
)
from coordinator.infrastructure.notifications.message import Message
from coordinator.infrastructure.notifications.signing import feishu_sign
from coordinator.infrastructure.notifications.text_formats import telegram_html

FEISHU_RETRYABLE_CODES = frozenset({9499, 11232})
WECOM_RETRYABLE_CODES = frozenset({45009, -1})


async def send_slack(
    client: httpx.AsyncClient, channel: Channel, message: Message, *, sent_at: datetime, timeout_seconds: float
) -> int:
    response = await post(client, channel.target, json=slack_payload(message), timeout_seconds=timeout_seconds)
    said = None if response.is_success else answer_text(response, hidden=hidden_parts(channel.target))
    return delivered(response, host_of(channel.target), now=sent_at, said=said)


async def send_feishu(
    client: httpx.AsyncClient, channel: Channel, message: Message, *, sent_at: datetime, timeout_seconds: float
) -> int:
    body = feishu_payload(message)
    if channel.secret:
        timestamp = int(utc(sent_at).timestamp())
        body = {"timestamp": str(timestamp), "sign": feishu_sign(channel.secret, timestamp), **body}
    response = await post(client, channel.target, json=body, timeout_seconds=timeout_seconds)
    return _coded_answer(
        response, channel, "Feishu", ("code", "StatusCode"), ("msg", "StatusMessage"), FEISHU_RETRYABLE_CODES, sent_at
    )


async def send_wecom(
    client: httpx.AsyncClient, channel: Channel, message: Message, *, sent_at: datetime, timeout_seconds: float
) -> int:
    response = await post(client, channel.target, json=wecom_payload(message), timeout_seconds=timeout_seconds)
    return _coded_answer(response, channel, "WeCom", ("errcode",), ("errmsg",), WECOM_RETRYABLE_CODES, sent_at)


async def send_telegram(
    client: httpx.AsyncClient,
    channel: Channel,
    message: Message,
    *,
    sent_at: datetime,
    timeout_seconds: float,
    api_base: str,
) -> int:
    if not channel.secret:
        raise SendFailedError("the Telegram channel has no bot token", permanent=True)
    url = f"{api_base.rstrip('/')}/bot{channel.secret}/sendMessage"
    body = {
        "chat_id": channel.target,
        "text": telegram_html(message),
        "parse_mode": "HTML",
        "disable_web_page_preview": True,
    }
    response = await post(client, url, json=body, timeout_seconds=timeout_seconds)
    answer = json_object(response) or {}
    if response.is_success and answer.get("ok") is True:
        return response.status_code
    said = _said(answer.get("description"), channel)
    if not response.is_success:
        raise failed_answer(response, host_of(url), now=sent_at, said=said, retry_after=_telegram_wait(answer))
    raise SendFailedError(
        f"Telegram did not accept the message: {said or 'its answer is not ok'}", status_code=response.status_code
    )


def _telegram_wait(answer: dict[str, Any]) -> float | None:
    parameters = answer.get("parameters")
    wait = parameters.get("retry_after") if isinstance(parameters, dict) else None
    return float(wait) if isinstance(wait, int | float) and not isinstance(wait, bool) and wait >= 0 else None


def _coded_answer(
    response: httpx.Response,
    channel: Channel,
    chat: str,
    code_keys: tuple[str, ...],
    text_keys: tuple[str, ...],
    retryable_codes: frozenset[int],
    sent_at: datetime,
) -> int:
    """A Feishu or WeCom answer: HTTP status first, then the body's code (0: delivered)."""
    answer = json_object(response)
    said = _said(next((answer[k] for k in text_keys if answer and k in answer), None), channel)
    if not response.is_success:
        said = said or answer_text(response, hidden=hidden_parts(channel.target, channel.secret))
        raise failed_answer(response, host_of(channel.target), now=sent_at, said=said)
    code = next((answer[k] for k in code_keys if answer and k in answer), None)
    status = response.status_code
    if isinstance(code, bool) or not isinstance(code, int):  # not the chat's answer (e.g. a proxy's page): retried
        raise SendFailedError(f"{chat} answered HTTP {status} without a result code", status_code=status)
    if code == 0:
        return status
    message = f"{chat} refused the message (code {code}" + (f": {said})" if said else ")")
    raise SendFailedError(message, status_code=status, permanent=code not in retryable_codes)


def _said(value: object, channel: Channel) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return receiver_text(value, hidden=hidden_parts(channel.target, channel.secret))
