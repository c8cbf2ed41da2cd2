"""Answers the server protocol writes itself, before or instead of the app: problem details, as raw bytes on
the connection (``raw_problem``) or as an ASGI app (``problem_app``), with the headers every answer carries."""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus

from starlette.types import ASGIApp, Receive, Scope, Send

from shared_contracts.problems import PROBLEM_CONTENT_TYPE

SAFETY_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
"""What ``SecurityHeadersMiddleware`` puts on the app's answers, for the answers the server makes alone."""


def _problem_body(status: int, code: str, detail: str) -> bytes:
    title = HTTPStatus(status).phrase
    return json.dumps(
        {"type": "about:blank", "title": title, "status": status, "detail": detail, "code": code}
    ).encode()


def _headers(body: bytes, extra: Mapping[str, str] | None) -> dict[str, str]:
    return {
        "content-type": PROBLEM_CONTENT_TYPE,
        "content-length": str(len(body)),
        **SAFETY_HEADERS,
        **(extra or {}),
        "connection": "close",
    }


def raw_problem(status: int, code: str, detail: str, headers: Mapping[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 answer (the connection is closed after it)."""
    body = _problem_body(status, code, detail)
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}"]
    lines += [f"{name}: {value}" for name, value in _headers(body, headers).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def problem_app(status: int, code: str, detail: str) -> ASGIApp:
    """An ASGI app answering every request with this problem and closing the connection."""
    body = _problem_body(status, code, detail)
    raw_headers = [(k.encode(), v.encode()) for k, v in _headers(body, {"retry-after": "1"}).items()]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return app
