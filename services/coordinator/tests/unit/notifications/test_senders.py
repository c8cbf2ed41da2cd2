"""Each HTTP kind against a fake receiver (httpx.MockTransport): the exact body and headers each documents, its
acknowledgement, and failures classified retryable or permanent with messages that hold no key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest
from notification_samples import SENT_AT, channel, channel_test_notification, run_notification
from standardwebhooks.webhooks import Webhook

from coordinator.domain.model.channel import Channel, new_webhook_secret
from coordinator.domain.ports.notification_sender import SendFailedError
from coordinator.infrastructure.notifications import NotificationSender
from coordinator.infrastructure.notifications.chat_formats import feishu_payload, slack_payload, wecom_payload
from coordinator.infrastructure.notifications.message import compose
from coordinator.infrastructure.notifications.text_formats import telegram_html

SLACK_URL = "https://hooks.slack.com/services/T000/B000/SlackKey0123456789"
FEISHU_URL = "https://open.feishu.cn/open-apis/bot/v2/hook/feishu-hook-0123456789"
WECOM_URL = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wecom-key-0123456789"
WEBHOOK_URL = "https://receiver.example.com/hooks/stock?token=query-token-0123456789"
TELEGRAM_TOKEN = "123456789:AAHtelegram-bot-token-0123456789"
TELEGRAM_API = "https://tg.example.org"
FEISHU_SECRET = "feishu-sign-secret-0123"

Answer = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


@dataclass
class Receiver:
    """Records each request and gives the next answer (the last one again when they run out)."""

    answers: list[Answer] = field(default_factory=lambda: [httpx.Response(200, text="ok")])
    requests: list[httpx.Request] = field(default_factory=list)
    sender: NotificationSender | None = None

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer(request) if callable(answer) else answer

    @property
    def body(self) -> Any:
        return json.loads(self.requests[-1].content)

    async def send(self, to: Channel, *answers: Answer, sent_at: datetime = SENT_AT, **kwargs: Any) -> int | None:
        if answers:
            self.answers = list(answers)
        assert self.sender is not None
        notification = kwargs.pop("notification", None) or run_notification(to.language)
        return await self.sender.send(to, notification, message_id="msg_1", sent_at=sent_at)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    r = Receiver()
    async with httpx.AsyncClient(transport=httpx.MockTransport(r.handle)) as client:
        r.sender = NotificationSender(client, telegram_api_base=TELEGRAM_API, request_timeout_seconds=2)
        yield r


async def test_a_webhook_is_the_documented_envelope_signed_per_standard_webhooks(receiver: Receiver) -> None:
    secret = new_webhook_secret()
    now = datetime.now(UTC).replace(microsecond=0)
    notification = run_notification("en")
    to = channel("webhook", WEBHOOK_URL, secret)
    status = await receiver.send(to, httpx.Response(204), sent_at=now, notification=notification)
    assert status == 204
    request = receiver.requests[0]
    assert str(request.url) == WEBHOOK_URL
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == "msg_1"
    assert request.headers["webhook-timestamp"] == str(int(now.timestamp()))
    verified = Webhook(secret).verify(request.content, dict(request.headers))
    assert verified == {
        "type": "watchlist.run.completed",
        "timestamp": now.isoformat().replace("+00:00", "Z"),
        "data": notification.to_json(),
    }


async def test_a_webhook_without_a_usable_secret_is_refused_for_good(receiver: Receiver) -> None:
    for secret in (None, "not-a-whsec"):
        with pytest.raises(SendFailedError) as failed:
            await receiver.send(channel("webhook", WEBHOOK_URL, secret))
        assert failed.value.permanent
    assert receiver.requests == []


async def test_slack_gets_text_and_blocks_and_answers_ok(receiver: Receiver) -> None:
    to = channel("slack", SLACK_URL)
    assert await receiver.send(to, httpx.Response(200, text="ok")) == 200
    assert str(receiver.requests[0].url) == SLACK_URL
    assert receiver.body == slack_payload(compose(run_notification()))


async def test_feishu_with_a_secret_is_signed_as_its_docs_say(receiver: Receiver) -> None:
    to = channel("feishu", FEISHU_URL, FEISHU_SECRET)
    assert await receiver.send(to, httpx.Response(200, json={"code": 0, "msg": "success", "data": {}})) == 200
    body = receiver.body
    timestamp = str(int(SENT_AT.timestamp()))
    key = f"{timestamp}\n{FEISHU_SECRET}".encode()
    assert body == {
        "timestamp": timestamp,
        "sign": base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode(),
        **feishu_payload(compose(run_notification())),
    }
    assert body["msg_type"] == "post"


async def test_feishu_without_a_secret_sends_no_sign(receiver: Receiver) -> None:
    await receiver.send(channel("feishu", FEISHU_URL), httpx.Response(200, json={"StatusCode": 0}))
    assert "sign" not in receiver.body
    assert "timestamp" not in receiver.body


@pytest.mark.parametrize(
    ("answer", "permanent"),
    [
        ({"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}, True),
        ({"code": 19024, "msg": "Key Words Not Found"}, True),
        ({"code": 11232, "msg": "frequency limited psm[lark.oapi.app_platform_runtime]appID[1]"}, False),
        ({"code": 9499, "msg": "too many request"}, False),
    ],
)
async def test_a_feishu_code_other_than_0_is_a_failure(
    receiver: Receiver, answer: dict[str, Any], permanent: bool
) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("feishu", FEISHU_URL, FEISHU_SECRET), httpx.Response(200, json=answer))
    assert failed.value.permanent is permanent
    assert str(failed.value).startswith(f"Feishu refused the message (code {answer['code']}: ")
    assert failed.value.status_code == 200


async def test_wecom_gets_markdown_and_reads_errcode(receiver: Receiver) -> None:
    to = channel("wecom", WECOM_URL)
    assert await receiver.send(to, httpx.Response(200, json={"errcode": 0, "errmsg": "ok"})) == 200
    assert receiver.body == wecom_payload(compose(run_notification()))
    with pytest.raises(SendFailedError) as limited:
        await receiver.send(to, httpx.Response(200, json={"errcode": 45009, "errmsg": "api freq out of limit"}))
    assert not limited.value.permanent
    answer = {"errcode": 93000, "errmsg": "invalid webhook url, hint: [1] more info at https://x.example/e=93000"}
    with pytest.raises(SendFailedError) as refused:
        await receiver.send(to, httpx.Response(200, json=answer))
    assert refused.value.permanent
    assert "code 93000: invalid webhook url" in str(refused.value)


async def test_a_2xx_without_the_chats_code_is_retried(receiver: Receiver) -> None:
    for to in (channel("wecom", WECOM_URL), channel("feishu", FEISHU_URL)):
        with pytest.raises(SendFailedError) as failed:
            await receiver.send(to, httpx.Response(200, text="<html>portal</html>"))
        assert not failed.value.permanent


async def test_telegram_gets_html_to_the_bot_tokens_url(receiver: Receiver) -> None:
    to = channel("telegram", "-1001234567890", TELEGRAM_TOKEN, language="en")
    assert await receiver.send(to, httpx.Response(200, json={"ok": True, "result": {"message_id": 5}})) == 200
    assert str(receiver.requests[0].url) == f"{TELEGRAM_API}/bot{TELEGRAM_TOKEN}/sendMessage"
    assert receiver.body == {
        "chat_id": "-1001234567890",
        "text": telegram_html(compose(run_notification("en"))),
        "parse_mode": "HTML",
        "disable_web_page_preview": True,
    }


async def test_telegrams_429_carries_its_retry_after(receiver: Receiver) -> None:
    answer = {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 7", "parameters": {}}
    answer["parameters"] = {"retry_after": 7}
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("telegram", "42", TELEGRAM_TOKEN), httpx.Response(429, json=answer))
    assert (failed.value.retry_after, failed.value.permanent, failed.value.status_code) == (7.0, False, 429)
    assert str(failed.value) == "HTTP 429 from tg.example.org: Too Many Requests: retry after 7"


async def test_telegram_without_a_token_is_refused_for_good(receiver: Receiver) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("telegram", "42"))
    assert failed.value.permanent
    assert receiver.requests == []


@pytest.mark.parametrize(
    ("status", "permanent"),
    [
        *((status, True) for status in (301, 400, 401, 403, 404, 410)),
        *((status, False) for status in (408, 429, 500, 502, 503, 504)),
    ],
)
async def test_an_http_status_is_retryable_or_permanent(receiver: Receiver, status: int, permanent: bool) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("slack", SLACK_URL), httpx.Response(status, text="no_service"))
    assert (failed.value.status_code, failed.value.permanent) == (status, permanent)
    assert str(failed.value) == f"HTTP {status} from hooks.slack.com: no_service"


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("120", 120.0), (format_datetime(SENT_AT + timedelta(seconds=90), usegmt=True), 90.0), ("soon", None)],
)
async def test_retry_after_is_read_in_seconds_or_as_a_date(
    receiver: Receiver, header: str, seconds: float | None
) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("slack", SLACK_URL), httpx.Response(503, headers={"Retry-After": header}))
    assert failed.value.retry_after == seconds


async def test_a_permanent_failure_has_no_retry_after(receiver: Receiver) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("slack", SLACK_URL), httpx.Response(403, headers={"Retry-After": "60"}))
    assert failed.value.retry_after is None


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (httpx.ConnectError(f"cannot connect to {SLACK_URL}"), "could not reach hooks.slack.com: connection failed"),
        (httpx.ReadTimeout(f"timed out reading {SLACK_URL}"), "no answer from hooks.slack.com within 2 s"),
        (httpx.RemoteProtocolError(f"peer closed {SLACK_URL}"), "could not reach hooks.slack.com: connection failed"),
    ],
)
async def test_no_answer_is_retryable_and_named_by_host(receiver: Receiver, error: Exception, said: str) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("slack", SLACK_URL), error)
    assert not failed.value.permanent
    assert failed.value.status_code is None
    assert str(failed.value).startswith(said)


async def test_a_target_that_is_no_web_address_is_permanent(receiver: Receiver) -> None:
    with pytest.raises(SendFailedError) as failed:
        await receiver.send(channel("slack", "ftp://hooks.slack.com/x"))
    assert failed.value.permanent
    assert str(failed.value) == "the target is not a usable http(s) URL"


def _echo(request: httpx.Request, status: int) -> httpx.Response:
    """A receiver that quotes everything it was sent back in its error (the worst case)."""
    quoted = f"{request.url} {request.url.path} {request.content.decode()[:300]} {dict(request.headers)}"
    return httpx.Response(
        status,
        json={"code": 19021, "errcode": 93000, "msg": quoted, "errmsg": quoted, "description": quoted, "ok": False},
    )


SECRETS = (
    "SlackKey0123456789",
    "feishu-hook-0123456789",
    FEISHU_SECRET,
    "wecom-key-0123456789",
    "query-token-0123456789",
    "telegram-bot-token-0123456789",
)


@pytest.mark.parametrize("status", [200, 400, 500])
@pytest.mark.parametrize(
    "to",
    [
        channel("slack", SLACK_URL),
        channel("feishu", FEISHU_URL, FEISHU_SECRET),
        channel("wecom", WECOM_URL),
        channel("telegram", "42", TELEGRAM_TOKEN),
        channel("webhook", WEBHOOK_URL, new_webhook_secret()),
    ],
    ids=lambda c: c.kind,
)
async def test_an_error_never_holds_a_key_a_token_or_a_keyed_url(receiver: Receiver, to: Channel, status: int) -> None:
    try:
        await receiver.send(to, lambda request: _echo(request, status))
    except SendFailedError as exc:
        message = str(exc)
    else:
        assert status == 200  # slack and webhook take any 2xx
        assert to.kind in ("slack", "webhook")
        return
    for secret in (*SECRETS, to.secret or "\0", to.target if to.kind != "telegram" else "\0"):
        assert secret not in message
    assert "[REDACTED]" in message or status == 200


async def test_a_channel_test_reaches_every_http_kind(receiver: Receiver) -> None:
    answers = {"feishu": {"code": 0}, "wecom": {"errcode": 0}, "telegram": {"ok": True}}
    for to in (
        channel("slack", SLACK_URL, language="en"),
        channel("feishu", FEISHU_URL),
        channel("wecom", WECOM_URL),
        channel("telegram", "42", TELEGRAM_TOKEN),
    ):
        notification = channel_test_notification(to.language)
        answer = httpx.Response(200, json=answers[to.kind]) if to.kind in answers else httpx.Response(200, text="ok")
        assert await receiver.send(to, answer, notification=notification) == 200
        assert ("test message" if to.language == "en" else "测试消息") in receiver.requests[-1].content.decode()
