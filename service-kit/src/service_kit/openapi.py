"""The API documents every service publishes: ``/openapi.json``, which lists every answer an operation can give,
and Swagger UI at ``/docs``, served from the assets bundled with the package (it works offline; no CDN).

Every error answer is documented as what it is on the wire: ``application/problem+json`` with the
``ProblemDetail`` schema (or a problem schema the route declares). Besides the answers a route declares, the
document lists those of the edge every service shares (``security``, ``problems``, ``body_limit``): 400 when a
parameter or the body fails validation (never FastAPI's 422), 405 with ``Allow``, 408/413/415 for a body, 403 for
a cross-origin POST, 429 with ``Retry-After``, 503 and 500 on the ``/api/`` operations, and 401
(``WWW-Authenticate: Bearer``) and 403 when the service is built with authentication."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail

DOCS_PATH = "/docs"
DOCS_ASSETS_PATH = "/docs/assets"
OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect"
SWAGGER_UI_ASSETS = Path(str(swagger_ui_path))
"""Swagger UI's distribution, as the ``swagger-ui-bundle`` package ships it."""

API_PREFIX = "/api/"
SECURITY_SCHEME = "apiKey"

_REF = "#/components/schemas/{model}"
_PROBLEM_REF: dict[str, Any] = {"$ref": _REF.format(model="ProblemDetail")}
_JSON = "application/json"
_PROBLEM_MEMBERS = frozenset(name for name, f in ProblemDetail.model_fields.items() if f.is_required())
_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def install_api_documents(app: FastAPI, *, authenticated: bool = False) -> None:
    """Serve Swagger UI from the bundled assets and publish the OpenAPI document of ``publish_honest_openapi``.
    The app is built with ``docs_url=None, redoc_url=None`` (FastAPI's own pages load Swagger UI from a CDN)."""
    serve_swagger_ui(app)
    publish_honest_openapi(app, authenticated=authenticated)


def operation_id_of(route: APIRoute) -> str:
    """The ``operationId`` of a route that names none (every route of the services names its own, e.g.
    ``getSession``): its function's name in camelCase, not FastAPI's name-path-method default, which generated
    clients turn into names like ``get_session_api_v1_coordinator_sessions_session_id_get``."""
    head, *rest = route.name.split("_")
    return head + "".join(word.capitalize() for word in rest)


def serve_swagger_ui(app: FastAPI) -> None:
    """``/docs`` (Swagger UI on ``app.openapi_url``), its assets under ``/docs/assets`` and
    ``/docs/oauth2-redirect``; none of them in the OpenAPI document."""

    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_swagger_ui_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"),
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{DOCS_ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS_PATH}/favicon-32x32.png",
            oauth2_redirect_url=root + OAUTH2_REDIRECT_PATH,
            init_oauth=app.swagger_ui_init_oauth,
            swagger_ui_parameters=app.swagger_ui_parameters,
        )

    async def oauth2_redirect(_request: Request) -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    app.add_route(DOCS_PATH, swagger_ui, include_in_schema=False)
    app.add_route(OAUTH2_REDIRECT_PATH, oauth2_redirect, include_in_schema=False)
    app.mount(DOCS_ASSETS_PATH, StaticFiles(directory=SWAGGER_UI_ASSETS), name="swagger_ui_assets")


def publish_honest_openapi(app: FastAPI, *, authenticated: bool = False) -> None:
    """``app.openapi()`` builds the document once, then makes it say what the service answers
    (``honest_openapi``)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            app.openapi_schema = honest_openapi(schema, authenticated=authenticated)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def honest_openapi(schema: dict[str, Any], *, authenticated: bool = False) -> dict[str, Any]:
    """``schema`` (FastAPI's document, changed in place and returned) made to list what each operation answers:

    - FastAPI's 422 goes: a request that fails validation is a 400 problem (``install_problem_handlers``); a
      422 a route declares itself (e.g. ``insufficient_history``) stays;
    - every error answer (4xx/5xx, or any answer whose schema is a problem) is ``application/problem+json``,
      with the schema the route gave it when that is a problem, else ``ProblemDetail``; an error body that is
      not a problem (``/readyz``'s 503) stays as declared;
    - the edge's answers (the module's docstring) are added; where the route declares the same status, its
      description gains the edge's reason and its schema also admits a plain ``ProblemDetail``;
    - with ``authenticated``, every ``/api/`` operation names the bearer API-key scheme."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    components.setdefault("ProblemDetail", ProblemDetail.model_json_schema(ref_template=_REF))
    for path, method, operation in _operations(schema):
        responses: dict[str, Any] = operation.setdefault("responses", {})
        fastapi_422 = "HTTPValidationError" in str(responses.get("422", ""))
        if fastapi_422:
            responses.pop("422")
        validated = fastapi_422 or bool(operation.get("parameters")) or "requestBody" in operation
        for status, response in responses.items():
            _as_problem_if_error(status, response, components)
        for status, answer in _edge_answers(path, method, operation, validated=validated, authenticated=authenticated):
            _add_edge_answer(responses, status, answer, allow_of(schema["paths"][path]))
        operation["responses"] = dict(sorted(responses.items(), key=lambda item: _sort_key(item[0])))
        if authenticated and path.startswith(API_PREFIX):
            operation["security"] = [{SECURITY_SCHEME: []}]
    if authenticated:
        schemes = schema["components"].setdefault("securitySchemes", {})
        schemes[SECURITY_SCHEME] = {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key, sent as `Authorization: Bearer <key>` on every `/api/` request.",
        }
    return schema


@dataclass(frozen=True)
class EdgeAnswer:
    """An answer the shared edge can give to an operation. ``codes``: the problem codes it carries; a route's
    own description of the same status that names one of them already says it."""

    description: str
    codes: tuple[str, ...]
    headers: Mapping[str, Any] = field(default_factory=dict)


def _header(description: str, schema: dict[str, Any], example: Any = None) -> dict[str, Any]:
    header: dict[str, Any] = {"description": description, "schema": schema}
    if example is not None:
        header["example"] = example
    return header


INVALID_REQUEST = EdgeAnswer(
    "The request is invalid (`code` invalid_request, or malformed_json for a body that is not JSON).",
    ("invalid_request",),
)
METHOD_NOT_ALLOWED = EdgeAnswer(
    "The path does not answer this method (`code` method_not_allowed); `Allow` lists the methods it answers.",
    ("method_not_allowed",),
)
REQUEST_TIMEOUT = EdgeAnswer(
    "The request body was not received in time (`code` request_timeout).",
    ("request_timeout",),
)
REQUEST_TOO_LARGE = EdgeAnswer(
    "The request body is larger than the service accepts (`code` request_too_large).",
    ("request_too_large",),
)
UNSUPPORTED_MEDIA_TYPE = EdgeAnswer(
    "The request body was not sent as JSON (`code` unsupported_media_type): send `Content-Type: application/json`.",
    ("unsupported_media_type",),
)
RATE_LIMITED = EdgeAnswer(
    "Too many requests from this client (`code` rate_limited, or research_quota_exceeded once the daily research "
    "quota is spent, or token_quota_exceeded once the daily tokens are); `Retry-After` says how many seconds to wait.",
    ("rate_limited",),
    {"Retry-After": _header("Seconds to wait before sending the request again.", {"type": "integer", "minimum": 0})},
)
UNAVAILABLE = EdgeAnswer(
    "The service cannot serve the request now (it, or a dependency it needs, is unavailable); retry later.",
    (),
)
INTERNAL_ERROR = EdgeAnswer(
    "An unexpected error (`code` internal_error); it has been logged with the request id.",
    ("internal_error",),
)
UNAUTHENTICATED = EdgeAnswer(
    "No valid API key (`code` unauthenticated: none was sent; invalid_api_key: unknown or revoked); "
    "`WWW-Authenticate` names the scheme.",
    ("unauthenticated", "invalid_api_key"),
    {"WWW-Authenticate": _header("The scheme to authenticate with: `Bearer` (an API key).", {"type": "string"})},
)
FORBIDDEN = EdgeAnswer("The API key may not call this operation (`code` insufficient_scope).", ("insufficient_scope",))
CROSS_ORIGIN = EdgeAnswer(
    "A browser sent this request from a page of another origin (`code` cross_origin_refused).",
    ("cross_origin_refused",),
)
FORBIDDEN_OR_CROSS_ORIGIN = EdgeAnswer(
    "The API key may not call this operation (`code` insufficient_scope), or a browser sent this request from a "
    "page of another origin (`code` cross_origin_refused).",
    ("insufficient_scope",),
)
_UNSAFE_METHODS = frozenset({"post", "put", "patch", "delete"})


def _edge_answers(
    path: str, method: str, operation: Mapping[str, Any], *, validated: bool, authenticated: bool
) -> Iterator[tuple[str, EdgeAnswer]]:
    api = path.startswith(API_PREFIX)
    body = "requestBody" in operation
    if validated:
        yield "400", INVALID_REQUEST
    unsafe = method in _UNSAFE_METHODS
    if api and authenticated:
        yield "401", UNAUTHENTICATED
        yield "403", FORBIDDEN_OR_CROSS_ORIGIN if unsafe else FORBIDDEN
    elif unsafe:
        yield "403", CROSS_ORIGIN
    yield "405", METHOD_NOT_ALLOWED
    if body:
        yield "408", REQUEST_TIMEOUT
        yield "413", REQUEST_TOO_LARGE
        yield "415", UNSUPPORTED_MEDIA_TYPE
    if api:
        yield "429", RATE_LIMITED
        yield "503", UNAVAILABLE
    yield "500", INTERNAL_ERROR


def _add_edge_answer(responses: dict[str, Any], status: str, answer: EdgeAnswer, allow: str) -> None:
    headers = dict(answer.headers)
    if status == "405":
        headers["Allow"] = _header("The methods this path answers.", {"type": "string"}, allow)
    declared = responses.get(status)
    if declared is None:
        responses[status] = {"description": answer.description, "content": _problem_content(_PROBLEM_REF)}
        if headers:
            responses[status]["headers"] = headers
        return
    description = declared.get("description", "")
    if not any(code in description for code in answer.codes):
        declared["description"] = f"{description}\n\n{answer.description}" if description else answer.description
    for name, header in headers.items():
        declared.setdefault("headers", {}).setdefault(name, header)
    content = declared.setdefault("content", {})
    problem = content.setdefault(PROBLEM_CONTENT_TYPE, {"schema": _PROBLEM_REF})
    schema = problem.get("schema") or _PROBLEM_REF
    if schema != _PROBLEM_REF and _PROBLEM_REF not in schema.get("anyOf", []):
        schema = {"anyOf": [schema, _PROBLEM_REF]}
    problem["schema"] = schema


def _as_problem_if_error(status: str, response: dict[str, Any], components: Mapping[str, Any]) -> None:
    """An error answer's body under ``application/problem+json`` (see ``honest_openapi``)."""
    content: dict[str, Any] = response.get("content") or {}
    json_media = content.get(_JSON)
    json_schema = (json_media or {}).get("schema") or None
    json_is_problem = json_schema is not None and _is_problem(json_schema, components)
    if not (_is_error(status) or json_is_problem):
        return
    if json_media is not None and json_schema is not None and not json_is_problem:
        if PROBLEM_CONTENT_TYPE not in content:
            return  # an error body that is not a problem: as the route declares it
    else:
        content.pop(_JSON, None)
    problem = dict(content.get(PROBLEM_CONTENT_TYPE) or {})
    problem["schema"] = problem.get("schema") or (json_schema if json_is_problem else None) or _PROBLEM_REF
    content[PROBLEM_CONTENT_TYPE] = problem
    response["content"] = content


def _is_problem(schema: Mapping[str, Any], components: Mapping[str, Any], depth: int = 0) -> bool:
    """Whether a body of ``schema`` is a problem detail: it has the members every problem has."""
    if depth > 16:
        return False
    if "$ref" in schema:
        target = components.get(str(schema["$ref"]).rsplit("/", 1)[-1])
        return isinstance(target, Mapping) and _is_problem(target, components, depth + 1)
    if "allOf" in schema:
        return any(_is_problem(part, components, depth + 1) for part in schema["allOf"])
    for alternatives in ("anyOf", "oneOf"):
        if alternatives in schema:
            return all(_is_problem(part, components, depth + 1) for part in schema[alternatives])
    return set(schema.get("properties", {})) >= _PROBLEM_MEMBERS


def _problem_content(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {PROBLEM_CONTENT_TYPE: {"schema": dict(schema)}}


def _operations(schema: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in schema.get("paths", {}).items():
        for method, operation in item.items():
            if method in _METHODS:
                yield path, method, operation


def allow_of(path_item: Mapping[str, Any]) -> str:
    """The ``Allow`` of a path: the methods its operations answer (a FastAPI route answers no HEAD)."""
    return ", ".join(sorted(m.upper() for m in path_item if m in _METHODS))


def _is_error(status: str) -> bool:
    return status[:1] in ("4", "5")


def _sort_key(status: str) -> tuple[int, str]:
    return (0 if status[:1].isdigit() else 1, status)
