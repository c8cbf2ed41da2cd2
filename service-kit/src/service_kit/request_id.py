"""X-Request-ID: accepted from the caller or generated, bound to every log line, echoed and forwarded (with
the trace context, ``tracing.inject_trace_context``)."""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

import structlog
from starlette.types import Message, Receive, Scope, Send

from service_kit.asgi import HttpMiddleware
from service_kit.tracing import inject_trace_context

REQUEST_ID_HEADER = "X-Request-ID"
_VALID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
_request_id: ContextVar[str | None] = ContextVar("request_id", default=None)


def current_request_id() -> str | None:
    return _request_id.get()


def outgoing_headers() -> dict[str, str]:
    """Headers to forward on a downstream call made while serving a request: the request id, and the W3C
    ``traceparent`` of the current span when tracing is on."""
    rid = _request_id.get()
    return inject_trace_context({REQUEST_ID_HEADER: rid} if rid else {})


class RequestIdMiddleware(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        incoming = dict(scope.get("headers", [])).get(REQUEST_ID_HEADER.lower().encode(), b"").decode("latin-1")
        rid = incoming if _VALID.match(incoming) else uuid.uuid4().hex
        token = _request_id.set(rid)
        # Kept on the scope too: the last-resort 500 handler runs outside this middleware.
        scope.setdefault("state", {})["request_id"] = rid
        structlog.contextvars.bind_contextvars(request_id=rid)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.append((REQUEST_ID_HEADER.lower().encode(), rid.encode()))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            structlog.contextvars.unbind_contextvars("request_id")
            _request_id.reset(token)
