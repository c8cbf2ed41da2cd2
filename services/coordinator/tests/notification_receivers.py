"""Local receivers for notifications over real sockets: ``Receiver`` answers webhooks and the chat kinds (Slack,
Feishu, WeCom, the Telegram Bot API) on one port, served by uvicorn in a thread, recording every request and
answering a planned status first when told to; ``Inbox`` is an aiosmtpd handler keeping every e-mail."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import uvicorn
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from coordinator_processes import wait_for
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from service_kit.stack.launcher import free_port

TELEGRAM_TOKEN = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """``/webhook``, ``/slack``, ``/feishu``, ``/wecom`` and ``/telegram/bot{token}/sendMessage`` on one port.
    ``plan[kind]``: statuses to answer, one per request, before the kind's success (e.g. ``[503, 503]``)."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.plan: dict[str, list[int]] = {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app = Starlette(
            routes=[
                Route("/webhook", self._answer("webhook"), methods=["POST"]),
                Route("/slack", self._answer("slack"), methods=["POST"]),
                Route("/feishu", self._answer("feishu"), methods=["POST"]),
                Route("/wecom", self._answer("wecom"), methods=["POST"]),
                Route("/telegram/bot{token}/sendMessage", self._answer("telegram"), methods=["POST"]),
            ]
        )
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def of(self, kind: str) -> list[Received]:
        return [r for r in self.requests if r.path.startswith(f"/{kind}")]

    def _answer(self, kind: str) -> Any:
        async def answer(request: Request) -> Response:
            self.requests.append(Received(request.url.path, dict(request.headers), await request.body()))
            planned = self.plan.get(kind) or []
            if planned:
                return PlainTextResponse("down", status_code=planned.pop(0), headers={"Retry-After": "0"})
            if kind == "slack":
                return PlainTextResponse("ok")
            if kind == "feishu":
                return JSONResponse({"code": 0, "msg": "success", "data": {}})
            if kind == "wecom":
                return JSONResponse({"errcode": 0, "errmsg": "ok"})
            if kind == "telegram":
                return JSONResponse({"ok": True, "result": {"message_id": len(self.requests)}})
            return Response(status_code=204)

        return answer

    def __enter__(self) -> Receiver:
        self._thread.start()
        wait_for(lambda: self._server.started, "the notification receiver to start")
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


class Inbox:
    """An aiosmtpd handler that keeps each message."""

    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:  # noqa: N802 (its hook)
        self.envelopes.append(envelope)
        return "250 Message accepted"

    def messages(self) -> list[EmailMessage]:
        parsed = []
        for envelope in self.envelopes:
            assert isinstance(envelope.content, bytes)
            message = message_from_bytes(envelope.content, policy=policy.default)
            assert isinstance(message, EmailMessage)
            parsed.append(message)
        return parsed


@contextmanager
def smtp_inbox() -> Iterator[tuple[Inbox, int]]:
    """A local SMTP server on a free port (no TLS, no login) and what it received."""
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
