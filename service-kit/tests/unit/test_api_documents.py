"""The API documents of the kit: Swagger UI served offline, 405s that say what is allowed, and an OpenAPI
document in which every answer an operation can give is listed as what it is on the wire."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel

from service_kit.app_factory import create_service_app
from service_kit.openapi import publish_honest_openapi
from service_kit.problems import install_problem_handlers
from service_kit.settings import ServiceSettings
from shared_contracts.errors import ServiceError
from shared_contracts.problems import PROBLEM_CONTENT_TYPE, ProblemDetail

PROBLEM_REF = {"$ref": "#/components/schemas/ProblemDetail"}


class Payload(BaseModel):
    n: int


class ThingProblem(ProblemDetail):
    thing: str


class StoreDown(ServiceError):
    code = "session_store_unavailable"


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1/kit")

    @router.post("/things", responses={409: {"model": ThingProblem, "description": "The thing exists (`thing`)."}})
    async def create(payload: Payload) -> dict[str, int]:
        return {"n": payload.n}

    @router.get(
        "/things/{name}",
        responses={
            404: {"description": "No such thing."},
            503: {"model": ProblemDetail, "description": "The store is down (`code` session_store_unavailable)."},
        },
    )
    async def read(name: str) -> dict[str, str]:
        if name == "store":
            raise StoreDown("the store is down")
        return {"name": name}

    @router.get("/catalog")
    async def catalog() -> dict[str, str]:
        return {}

    return router


def build_app(settings: ServiceSettings | None = None) -> FastAPI:
    return create_service_app(
        service="kit-docs",
        title="Kit",
        description="d",
        settings=settings or ServiceSettings(log_json=True),
        routers=[api_router()],
    )


def bare_app(*, authenticated: bool) -> FastAPI:
    app = FastAPI(title="Kit", version="0")
    install_problem_handlers(app)
    app.include_router(api_router())
    publish_honest_openapi(app, authenticated=authenticated)
    return app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=build_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        yield c


def responses_of(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    responses: dict[str, Any] = schema["paths"][path][method]["responses"]
    return responses


def problem_schema(response: dict[str, Any]) -> Any:
    assert list(response["content"]) == [PROBLEM_CONTENT_TYPE], response
    return response["content"][PROBLEM_CONTENT_TYPE]["schema"]


async def test_docs_load_swagger_ui_from_the_service_itself(client: httpx.AsyncClient) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "cdn" not in page.text.lower()
    assert "http:" not in page.text
    assert "https:" not in page.text
    assets = re.findall(r'(?:href|src)="([^"]+)"', page.text)
    assert sorted(assets) == [
        "/docs/assets/favicon-32x32.png",
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui.css",
    ]
    expected = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
    for asset in assets:
        response = await client.get(asset)
        assert response.status_code == 200, asset
        assert response.headers["content-type"].startswith(expected[asset[asset.rindex(".") :]]), asset
        assert response.content
    assert "url: '/openapi.json'" in page.text
    assert (await client.get("/openapi.json")).status_code == 200


async def test_the_docs_oauth2_redirect_is_served_and_no_redoc(client: httpx.AsyncClient) -> None:
    redirect = await client.get("/docs/oauth2-redirect")
    assert redirect.status_code == 200
    assert redirect.headers["content-type"].startswith("text/html")
    assert (await client.get("/redoc")).status_code == 404


async def test_docs_honour_the_root_path_of_a_proxy() -> None:
    transport = httpx.ASGITransport(app=build_app(), root_path="/kit")
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        page = await c.get("/docs")
    assert "url: '/kit/openapi.json'" in page.text
    assert 'src="/kit/docs/assets/swagger-ui-bundle.js"' in page.text


def test_a_route_without_an_operation_id_gets_its_function_name_in_camel_case() -> None:
    async def read_every_thing() -> dict[str, str]:
        return {}

    app = build_app()
    app.get("/api/v1/kit/every")(read_every_thing)
    ids = {op["operationId"] for item in app.openapi()["paths"].values() for op in item.values()}

    assert {"create", "read", "catalog", "readEveryThing", "getHealth", "getReadiness"} == ids


def test_the_docs_routes_are_not_in_the_openapi_document() -> None:
    paths = build_app().openapi()["paths"]
    assert not [p for p in paths if p.startswith("/docs")]


async def test_a_missing_docs_asset_is_a_404_problem(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs/assets/nothing.js")
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM_CONTENT_TYPE


def test_every_api_operation_lists_the_edge_answers_as_problems() -> None:
    schema = build_app().openapi()
    for path, method in [
        ("/api/v1/kit/things", "post"),
        ("/api/v1/kit/things/{name}", "get"),
        ("/api/v1/kit/catalog", "get"),
    ]:
        responses = responses_of(schema, path, method)
        for status in ("405", "429", "500", "503"):
            assert problem_schema(responses[status]) == PROBLEM_REF, (path, status)
        assert "401" not in responses  # built without authentication
        assert "422" not in responses
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert schema["components"]["schemas"]["ProblemDetail"]["required"] == ["title", "status", "detail", "code"]


def test_only_a_request_that_changes_state_can_be_refused_as_cross_origin() -> None:
    schema = build_app().openapi()
    create = responses_of(schema, "/api/v1/kit/things", "post")
    assert problem_schema(create["403"]) == PROBLEM_REF
    assert "cross_origin_refused" in create["403"]["description"]
    assert "insufficient_scope" not in create["403"]["description"]  # built without authentication
    assert "403" not in responses_of(schema, "/api/v1/kit/catalog", "get")


def test_a_body_adds_408_413_and_415_and_a_parameter_400() -> None:
    schema = build_app().openapi()
    create = responses_of(schema, "/api/v1/kit/things", "post")
    for status, code in [
        ("400", "invalid_request"),
        ("408", "request_timeout"),
        ("413", "request_too_large"),
        ("415", "unsupported_media_type"),
    ]:
        assert problem_schema(create[status]) == PROBLEM_REF
        assert code in create[status]["description"]
    read = responses_of(schema, "/api/v1/kit/things/{name}", "get")
    assert problem_schema(read["400"]) == PROBLEM_REF
    assert not {"408", "413", "415"} & set(read)
    # Nothing of a request without parameters or body can fail validation.
    assert not {"400", "408", "413", "415"} & set(responses_of(schema, "/api/v1/kit/catalog", "get"))


def test_405_describes_allow_and_429_retry_after() -> None:
    schema = build_app().openapi()
    read = responses_of(schema, "/api/v1/kit/things/{name}", "get")
    assert read["405"]["headers"]["Allow"]["example"] == "GET"
    assert responses_of(schema, "/api/v1/kit/things", "post")["405"]["headers"]["Allow"]["example"] == "POST"
    assert read["429"]["headers"]["Retry-After"]["schema"]["type"] == "integer"
    assert "rate_limited" in read["429"]["description"]


def test_declared_error_answers_become_problems_with_the_edge_reasons_added() -> None:
    schema = build_app().openapi()
    read = responses_of(schema, "/api/v1/kit/things/{name}", "get")
    assert problem_schema(read["404"]) == PROBLEM_REF  # declared without a model
    assert problem_schema(read["503"]) == PROBLEM_REF  # declared with model=ProblemDetail
    assert read["503"]["description"].startswith("The store is down (`code` session_store_unavailable).")
    assert "retry later" in read["503"]["description"]
    create = responses_of(schema, "/api/v1/kit/things", "post")
    assert problem_schema(create["409"]) == {"$ref": "#/components/schemas/ThingProblem"}
    assert list(read) == sorted(read)


def test_a_declared_problem_schema_also_admits_the_edge_s_plain_problem() -> None:
    router = APIRouter()

    @router.post("/api/v1/kit/run", responses={500: {"model": ThingProblem, "description": "The run failed."}})
    async def run(payload: Payload) -> dict[str, int]:
        return {"n": payload.n}

    app = FastAPI()
    app.include_router(router)
    publish_honest_openapi(app)
    failed = responses_of(app.openapi(), "/api/v1/kit/run", "post")["500"]
    assert problem_schema(failed) == {"anyOf": [{"$ref": "#/components/schemas/ThingProblem"}, PROBLEM_REF]}
    assert "The run failed." in failed["description"]
    assert "internal_error" in failed["description"]


def test_readiness_is_documented_with_its_503_body_which_is_not_a_problem() -> None:
    readyz = responses_of(build_app().openapi(), "/readyz", "get")
    readiness = {"$ref": "#/components/schemas/Readiness"}
    assert readyz["200"]["content"] == {"application/json": {"schema": readiness}}
    assert readyz["503"]["content"] == {"application/json": {"schema": readiness}}
    assert problem_schema(readyz["500"]) == PROBLEM_REF


def test_no_error_answer_is_documented_as_plain_json_but_readiness() -> None:
    schema = build_app().openapi()
    plain = [
        (path, status)
        for path, item in schema["paths"].items()
        for operation in item.values()
        for status, response in operation["responses"].items()
        if int(status) >= 400 and "application/json" in response.get("content", {})
    ]
    assert plain == [("/readyz", "503")]


def test_an_authenticated_api_lists_401_and_403_and_names_its_scheme() -> None:
    schema = bare_app(authenticated=True).openapi()
    create = responses_of(schema, "/api/v1/kit/things", "post")
    assert problem_schema(create["401"]) == PROBLEM_REF
    assert "WWW-Authenticate" in create["401"]["headers"]
    assert "Bearer" in create["401"]["headers"]["WWW-Authenticate"]["description"]
    assert problem_schema(create["403"]) == PROBLEM_REF
    assert "cross_origin_refused" in create["403"]["description"]
    catalog = schema["paths"]["/api/v1/kit/catalog"]["get"]
    assert {"401", "403"} <= set(catalog["responses"])
    assert "cross_origin_refused" not in catalog["responses"]["403"]["description"]
    assert catalog["security"] == [{"apiKey": []}]
    assert schema["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key, sent as `Authorization: Bearer <key>` on every `/api/` request.",
    }
    unauthenticated = bare_app(authenticated=False).openapi()
    assert "securitySchemes" not in unauthenticated["components"]
    assert "security" not in unauthenticated["paths"]["/api/v1/kit/catalog"]["get"]


async def test_a_service_that_requires_api_keys_documents_the_401_it_sends() -> None:
    settings = ServiceSettings(log_json=True, auth_mode="api_key", api_keys="kit=" + "0" * 64)
    app = build_app(settings)
    catalog = responses_of(app.openapi(), "/api/v1/kit/catalog", "get")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        response = await c.get("/api/v1/kit/catalog")
        docs = await c.get("/docs")
    assert response.status_code == 401
    assert response.json()["code"] in catalog["401"]["description"]
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "WWW-Authenticate" in catalog["401"]["headers"]
    assert docs.status_code == 200  # the API documents stay open
