"""Who is calling: the bearer key of every ``/api/`` request when ``AUTH_MODE=api_key``.

A missing or unknown key is a 401 problem (``unauthenticated`` / ``invalid_api_key``, with
``WWW-Authenticate: Bearer``); a key without a scope the service accepts is a 403 (``insufficient_scope``).
A ``service`` key (the coordinator's) may name the client it calls for in ``X-Client-Id``. Health, metrics and
the API documents stay open. With ``AUTH_MODE=none`` every caller is ``LOCAL_CLIENT``.

The client is on ``request.scope["state"]["client"]`` (``client_of(request)``), named to peers while the request
is served (``caller_headers()``), and on every log line as ``client_id`` when keys are on."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from contextvars import ContextVar

import structlog
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from service_kit.api_keys import CLIENT_ID_PATTERN, LOCAL_CLIENT, Client, KeyRing
from service_kit.asgi import HttpMiddleware
from service_kit.problems import problem_response

CLIENT_ID_HEADER = "X-Client-Id"
API_PREFIX = "/api/"
_client: ContextVar[Client | None] = ContextVar("client", default=None)


def client_of(connection: HTTPConnection) -> Client:
    """The caller of a request that went through ``AuthenticationMiddleware``."""
    client: Client = connection.scope["state"]["client"]
    return client


class AuthenticationMiddleware(HttpMiddleware):
    """``keys`` None: ``AUTH_MODE=none``. ``accepted_scopes``: a key needs one of them for ``/api/``."""

    def __init__(self, app: ASGIApp, keys: KeyRing | None, accepted_scopes: Collection[str]) -> None:
        super().__init__(app)
        self.keys = keys
        self.accepted_scopes = frozenset(accepted_scopes)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.keys is None:
            client: Client | None = LOCAL_CLIENT
        elif not scope["path"].startswith(API_PREFIX):
            client = None
        else:
            headers = dict(scope.get("headers", ()))
            scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                await _refuse(
                    401, "unauthenticated", "Send an API key in the Authorization header: Bearer, then the key."
                )(scope, receive, send)
                return
            client = self.keys.client_for(token.strip())
            if client is None:
                await _refuse(401, "invalid_api_key", "The API key is not valid (unknown or revoked).")(
                    scope, receive, send
                )
                return
            if not client.scopes & self.accepted_scopes:
                detail = f"This key's scopes ({', '.join(sorted(client.scopes))}) do not allow this service's API."
                await _refuse(403, "insufficient_scope", detail)(scope, receive, send)
                return
            acting_for = headers.get(CLIENT_ID_HEADER.lower().encode(), b"").decode("latin-1")
            if client.is_service and CLIENT_ID_PATTERN.match(acting_for):
                client = dataclasses.replace(client, acting_for=acting_for)
        scope.setdefault("state", {})["client"] = client
        token_ = _client.set(client)
        logged = client is not None and client is not LOCAL_CLIENT  # AUTH_MODE=none: nothing to tell apart
        if logged:
            structlog.contextvars.bind_contextvars(client_id=client.audit_id)  # type: ignore[union-attr]
        try:
            await self.app(scope, receive, send)
        finally:
            if logged:
                structlog.contextvars.unbind_contextvars("client_id")
            _client.reset(token_)


def admin_or_service_caller(keys: KeyRing) -> Callable[[HTTPConnection], bool]:
    """Whether a request's bearer key (on any path, ``/readyz`` too) is an admin's or a service's key."""

    def allowed(connection: HTTPConnection) -> bool:
        scheme, _, token = connection.headers.get("authorization", "").partition(" ")
        client = keys.client_for(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        return client is not None and (client.is_admin or client.is_service)

    return allowed


def _refuse(status: int, code: str, detail: str) -> ASGIApp:
    response = problem_response(status, code, detail)
    error = {"invalid_api_key": ', error="invalid_token"', "insufficient_scope": ', error="insufficient_scope"'}
    response.headers["WWW-Authenticate"] = f'Bearer realm="stock-research"{error.get(code, "")}'
    return response


def caller_headers() -> dict[str, str]:
    """Headers naming, to a peer, the client a request is served for (trusted only from a ``service`` key)."""
    client = _client.get()
    return {CLIENT_ID_HEADER: client.audit_id} if client is not None else {}
