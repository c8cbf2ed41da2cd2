"""What a browser needs to be told: cross-origin POSTs are refused, answers are not sniffed, framed or cached.

- ``OriginCheckMiddleware``: a POST/PUT/PATCH/DELETE whose ``Origin`` is not one of ``ALLOWED_ORIGINS`` and either
  is not the service's own (scheme and host) or is marked ``Sec-Fetch-Site: cross-site`` by the browser is a 403
  ``cross_origin_refused``
  — a page on another site cannot make a visitor's browser start or retry a research (CSRF).
- ``SecurityHeadersMiddleware``: ``X-Content-Type-Options: nosniff`` and ``X-Frame-Options: DENY`` on every
  answer; ``Cache-Control: no-store`` and a ``Content-Security-Policy`` that allows nothing on ``/api/`` answers.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service_kit.asgi import HttpMiddleware
from service_kit.authentication import API_PREFIX
from service_kit.problems import problem_response

_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class OriginCheckMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, allowed_origins: Collection[str]) -> None:
        super().__init__(app)
        self.allowed = frozenset(allowed_origins)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] in _UNSAFE and not self._allowed(scope):
            detail = "Cross-origin requests that change state are refused (set ALLOWED_ORIGINS to allow an origin)."
            await problem_response(403, "cross_origin_refused", detail)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        headers = dict(scope.get("headers", ()))
        origin = headers.get(b"origin", b"").decode("latin-1").strip().rstrip("/")
        if origin in self.allowed:
            return True
        if headers.get(b"sec-fetch-site", b"").decode("latin-1").lower() == "cross-site":
            return False
        if not origin:
            return True
        host = headers.get(b"host", b"").decode("latin-1").lower()
        parts = urlsplit(origin)
        # the same origin (e.g. /docs "Try it out"): scheme and host as this request's
        return bool(host) and parts.netloc.lower() == host and parts.scheme == scope.get("scheme", "http")


class SecurityHeadersMiddleware(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        api = scope["path"].startswith(API_PREFIX)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("X-Frame-Options", "DENY")
                if api:
                    headers["Cache-Control"] = "no-store"
                    headers.setdefault("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
            await send(message)

        await self.app(scope, receive, send_with_headers)
