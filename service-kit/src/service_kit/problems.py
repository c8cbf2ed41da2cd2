"""Errors mapped to HTTP once, at the edge: every error body is a problem detail with a ``code``.

Every service error (``shared_contracts.errors.ServiceError``) carries a stable ``code``; its status is
``PROBLEM_STATUS[code]``, the same in every service. Request validation failures are 400 (not FastAPI's 422).

Every problem's ``detail``, and every string member ``extra`` adds, is passed through ``redact_secrets``
(``shared_contracts.redaction``): an error's text can quote what an upstream said, keys included. The detail and
the validation errors quote no input beyond ``ECHO_LIMIT`` characters (``shared_contracts.echo``).

An exception nothing maps is answered by ``UnexpectedErrorMiddleware``, which sits inside the request-id
middleware: one log line with the request id, a 500 problem carrying it, and the exception stops there.
(Starlette's own catch-all, ``ServerErrorMiddleware``, re-raises after answering: the server then logs the
traceback a second time, without the request id, and drops the keep-alive connection.)"""

from __future__ import annotations

import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, TypedDict, Unpack

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Message, Receive, Scope, Send

from service_kit.asgi import HttpMiddleware
from service_kit.openapi import allow_of
from service_kit.request_id import REQUEST_ID_HEADER, current_request_id
from shared_contracts.echo import bounded_echoes
from shared_contracts.errors import ServiceError
from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail, status_of_code
from shared_contracts.redaction import redact_secrets

log = structlog.get_logger(__name__)

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 415: "unsupported_media_type"}
INTERNAL_ERROR_DETAIL = "An unexpected error occurred; it has been logged."


class ProblemMembers(TypedDict, total=False):
    """What a problem detail may add to its status, code and detail."""

    title: str | None
    errors: list[dict[str, Any]] | None
    extra: Mapping[str, Any] | None
    """Further members; they cannot replace the standard ones."""
    request_id: str | None
    """For handlers running outside the request-id middleware (a response then also sets the header)."""


def problem_members(status: int, code: str, detail: str, **members: Unpack[ProblemMembers]) -> dict[str, Any]:
    """The members of a problem detail as answered (absent ones left out)."""
    standard = {
        "type": "about:blank",
        "title": members.get("title") or HTTPStatus(status).phrase,
        "status": status,
        "detail": bounded_echoes(redact_secrets(detail)),
        "code": code,
        "request_id": members.get("request_id") or current_request_id(),
        "errors": _bounded_errors(members.get("errors")),
    }
    extra = members.get("extra") or {}
    added = {k: redact_secrets(v) if isinstance(v, str) else v for k, v in extra.items() if k not in standard}
    return ProblemDetail.model_validate({**added, **standard}).model_dump(exclude_none=True)


def _bounded_errors(errors: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Each error's strings (its ``msg``, each part of its ``loc``) quoting no input beyond ``ECHO_LIMIT``."""

    def bounded(value: Any) -> Any:
        if isinstance(value, str):
            return bounded_echoes(value)
        return [bounded(v) for v in value] if isinstance(value, list) else value

    return None if errors is None else [{k: bounded(v) for k, v in error.items()} for error in errors]


def problem_response(
    status: int, code: str, detail: str, *, headers: Mapping[str, str] | None = None, **members: Unpack[ProblemMembers]
) -> JSONResponse:
    """The problem detail of ``problem_members`` as a response; ``headers`` go on it as given (e.g. ``Allow`` on a
    405, ``WWW-Authenticate`` on a 401)."""
    answer_headers = dict(headers or {})
    if request_id := members.get("request_id"):
        answer_headers[REQUEST_ID_HEADER] = request_id
    return JSONResponse(
        problem_members(status, code, detail, **members),
        status_code=status,
        media_type=PROBLEM_CONTENT_TYPE,
        headers=answer_headers or None,
    )


def service_error_problem(exc: ServiceError, path: str) -> dict[str, Any]:
    """The problem detail ``exc`` is answered with (the status of its code: ``status_of_code``), logged as a
    rejection, or as a failure when the status is 5xx; ``path``: the request's, for the log."""
    status = status_of_code(exc.code)
    extra = exc.problem_extra
    context = {"problem": dict(extra)} if extra else {}  # e.g. what the model wrote, for the audit
    if status >= 500:
        log.error("request_failed", path=path, code=exc.code, error=str(exc), **context)
    else:
        log.info("request_rejected", path=path, code=exc.code, error=str(exc), **context)
    return problem_members(status, exc.code, str(exc), extra=extra)


def _is_json(content_type: str | None) -> bool:
    """FastAPI reads a body as JSON only with a JSON Content-Type (strict: none is not JSON)."""
    if not content_type:
        return False
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


def _validation_problem(request: Request, exc: RequestValidationError) -> JSONResponse:
    content_type = request.headers.get("content-type")
    if not _is_json(content_type) and any(tuple(e.get("loc", ()))[:1] == ("body",) for e in exc.errors()):
        # e.g. curl -d without -H: the body was never read as JSON, so "not a valid dictionary" would mislead.
        sent = f"it was sent as {content_type}" if content_type else "it was sent without one"
        return problem_response(
            415,
            "unsupported_media_type",
            f"The request body must be JSON sent with Content-Type: application/json ({sent}).",
        )
    errors = [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in exc.errors()
    ]
    if any(e["type"] == "json_invalid" for e in errors):
        return problem_response(400, "malformed_json", "The request body is not valid JSON.", errors=errors)
    where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
    return problem_response(400, "invalid_request", f"The request is invalid: {where}", errors=errors)


def _allowed(request: Request, given: str | None) -> str | None:
    """Every method the request's path answers, as its API document lists them (Starlette's own ``Allow`` names
    only the first matching route's methods, where a path has one route per method); ``given`` for a path the
    document does not list."""
    for template, path_item in request.app.openapi().get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))  # each {parameter}: one path segment
        if re.fullmatch(pattern, request.url.path):
            return allow_of(path_item)
    return given


def install_problem_handlers(app: FastAPI) -> None:
    """Register the handlers of service errors, request validation, HTTP and unexpected errors."""

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return _validation_problem(request, exc)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 405 and (allow := _allowed(request, (exc.headers or {}).get("Allow"))) is not None:
            exc.headers = {**(exc.headers or {}), "Allow": allow}
        if exc.status_code == 400 and exc.__cause__ is not None:
            # FastAPI's answer to a body its JSON decoder raised on (invalid UTF-8, nesting too deep).
            reason = type(exc.__cause__).__name__
            return problem_response(400, "malformed_json", f"The request body is not valid JSON ({reason}).")
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        # The exception's headers are part of the answer: Allow on a 405 (RFC 9110), WWW-Authenticate on a 401.
        return problem_response(exc.status_code, code, str(exc.detail), headers=exc.headers)

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        """Last resort, for an exception raised outside ``UnexpectedErrorMiddleware`` (in a middleware)."""
        rid = request.scope.get("state", {}).get("request_id")
        log.error("unhandled_error", path=request.url.path, error=repr(exc), request_id=rid, exc_info=exc)
        return _internal_error(rid)

    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(Exception, on_unexpected)


def _internal_error(request_id: str | None) -> JSONResponse:
    return problem_response(500, "internal_error", INTERNAL_ERROR_DETAIL, request_id=request_id)


class UnexpectedErrorMiddleware(HttpMiddleware):
    """Answers an unmapped exception with a 500 problem and ends it there (see the module's docstring).

    Once the response has started nothing can be answered: the exception goes on to the server."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:
                raise
            log.error("unhandled_error", path=scope.get("path"), error=repr(exc), exc_info=exc)
            await _internal_error(None)(scope, receive, send)


async def _service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    problem = service_error_problem(exc, request.url.path)
    return JSONResponse(problem, status_code=problem["status"], media_type=PROBLEM_CONTENT_TYPE)
