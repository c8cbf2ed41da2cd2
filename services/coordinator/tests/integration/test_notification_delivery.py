"""Notifications over real sockets: e-mail to a local SMTP server (aiosmtpd), a webhook to a local HTTP receiver
that checks its signature with Standard Webhooks' library, and receivers that are not there."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import httpx
import pytest
from aiohttp import web
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from notification_samples import SENT_AT, channel, run_notification
from standardwebhooks.webhooks import Webhook

from coordinator.domain.model.channel import new_webhook_secret
from coordinator.domain.ports.notification_sender import SendFailedError
from coordinator.infrastructure.notifications import NotificationSender

SMTP_PASSWORD = "smtp-password-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Inbox:
    """An aiosmtpd handler: keeps each message; refuses a recipient whose address starts with a reply code."""

    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []

    async def handle_RCPT(  # noqa: N802 (aiosmtpd's hook name)
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if address[:3].isdigit():
            return f"{address[:3]} {address[0]}.1.1 refused: {address}"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:  # noqa: N802
        self.envelopes.append(envelope)
        return "250 Message accepted"

    def message(self) -> EmailMessage:
        content = self.envelopes[-1].content
        assert isinstance(content, bytes)
        parsed = message_from_bytes(content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


def _authenticate(server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
    ok = isinstance(data, LoginPassword) and data.login == b"robot" and data.password == SMTP_PASSWORD.encode()
    return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd answers 535 itself


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, authenticator=_authenticate, auth_require_tls=False)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as c:
        yield c


def email_sender(client: httpx.AsyncClient, port: int, **smtp: Any) -> NotificationSender:
    settings: dict[str, Any] = {
        "smtp_host": "127.0.0.1",
        "smtp_port": port,
        "smtp_from": "Stock research <robot@example.com>",
        "smtp_starttls": False,
        "smtp_timeout_seconds": 5,
    }
    return NotificationSender(client, **(settings | smtp))


async def test_an_email_has_a_plain_and_an_html_part(client: httpx.AsyncClient, smtp_server: tuple[Inbox, int]) -> None:
    inbox, port = smtp_server
    to = channel("email", "ann@example.com, bob@example.com ,")
    notification = run_notification()
    assert await email_sender(client, port).send(to, notification, message_id="m1", sent_at=SENT_AT) is None
    assert inbox.envelopes[0].rcpt_tos == ["ann@example.com", "bob@example.com"]
    mail = inbox.message()
    assert mail["Subject"] == notification.title
    assert mail["From"] == "Stock research <robot@example.com>"
    assert mail["To"] == "ann@example.com, bob@example.com"
    assert mail.get_content_type() == "multipart/alternative"
    plain, page = mail.iter_parts()
    assert plain.get_content_type() == "text/plain"
    assert "1. 600519.SH 买入 · 评分 0.82 · 仓位 5.0% · 置信度 78%" in plain.get_content()
    assert page.get_content_type() == "text/html"
    assert "<table" in page.get_content()
    assert "由买入转为卖出" in page.get_content()


async def test_smtp_credentials_are_used_and_a_refusal_does_not_repeat_them(
    client: httpx.AsyncClient, smtp_server: tuple[Inbox, int]
) -> None:
    inbox, port = smtp_server
    to = channel("email", "ann@example.com")
    good = email_sender(client, port, smtp_username="robot", smtp_password=SMTP_PASSWORD)
    assert await good.send(to, run_notification(), message_id="m1", sent_at=SENT_AT) is None
    assert len(inbox.envelopes) == 1
    wrong = email_sender(client, port, smtp_username="robot", smtp_password="wrong-password-987654")
    with pytest.raises(SendFailedError) as failed:
        await wrong.send(to, run_notification(), message_id="m1", sent_at=SENT_AT)
    assert failed.value.permanent
    assert "SMTP 535" in str(failed.value)
    assert "wrong-password-987654" not in str(failed.value)


@pytest.mark.parametrize(("address", "permanent"), [("550@example.com", True), ("451@example.com", False)])
async def test_a_refused_recipient_is_permanent_on_5xx_and_retryable_on_4xx(
    client: httpx.AsyncClient, smtp_server: tuple[Inbox, int], address: str, permanent: bool
) -> None:
    _, port = smtp_server
    with pytest.raises(SendFailedError) as failed:
        await email_sender(client, port).send(
            channel("email", address), run_notification(), message_id="m1", sent_at=SENT_AT
        )
    assert failed.value.permanent is permanent
    assert str(failed.value).startswith("127.0.0.1 refused every recipient")


async def test_starttls_asked_of_a_server_without_it_is_permanent(
    client: httpx.AsyncClient, smtp_server: tuple[Inbox, int]
) -> None:
    _, port = smtp_server
    with pytest.raises(SendFailedError) as failed:
        await email_sender(client, port, smtp_starttls=True).send(
            channel("email", "ann@example.com"), run_notification(), message_id="m1", sent_at=SENT_AT
        )
    assert failed.value.permanent


async def test_an_smtp_server_that_is_not_there_is_retryable(client: httpx.AsyncClient) -> None:
    with pytest.raises(SendFailedError) as failed:
        await email_sender(client, free_port()).send(
            channel("email", "ann@example.com"), run_notification(), message_id="m1", sent_at=SENT_AT
        )
    assert not failed.value.permanent
    assert str(failed.value).startswith("could not reach 127.0.0.1: connection refused")


async def test_email_without_smtp_settings_is_permanent(client: httpx.AsyncClient) -> None:
    with pytest.raises(SendFailedError) as failed:
        await NotificationSender(client).send(
            channel("email", "ann@example.com"), run_notification(), message_id="m1", sent_at=SENT_AT
        )
    assert failed.value.permanent


@pytest.fixture
async def webhook_receiver() -> AsyncIterator[tuple[str, list[tuple[bytes, dict[str, str]]]]]:
    received: list[tuple[bytes, dict[str, str]]] = []

    async def receive(request: web.Request) -> web.Response:
        received.append((await request.read(), dict(request.headers)))
        return web.Response(status=200, text="thanks")

    app = web.Application()
    app.router.add_post("/hooks/{key}", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/hooks/receiver-key-0123456789", received
    finally:
        await runner.cleanup()


async def test_a_webhook_over_the_wire_passes_the_receivers_signature_check(
    client: httpx.AsyncClient, webhook_receiver: tuple[str, list[tuple[bytes, dict[str, str]]]]
) -> None:
    url, received = webhook_receiver
    secret = new_webhook_secret()
    sent_at = datetime.now(UTC)
    status = await NotificationSender(client).send(
        channel("webhook", url, secret), run_notification(), message_id="msg_42", sent_at=sent_at
    )
    assert status == 200
    body, headers = received[0]
    payload = Webhook(secret).verify(body, headers)
    assert payload["type"] == "watchlist.run.completed"
    assert payload["data"] == run_notification().to_json()
    assert headers["webhook-id"] == "msg_42"


async def test_a_receiver_that_is_not_there_is_retryable_and_named_by_host(client: httpx.AsyncClient) -> None:
    url = f"http://127.0.0.1:{free_port()}/hooks/receiver-key-0123456789"
    with pytest.raises(SendFailedError) as failed:
        await NotificationSender(client).send(
            channel("slack", url), run_notification(), message_id="m1", sent_at=SENT_AT
        )
    assert not failed.value.permanent
    assert str(failed.value) == "could not reach 127.0.0.1: connection refused (ConnectionRefusedError)"
