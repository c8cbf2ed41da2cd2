"""One way to assemble a service's FastAPI app, so every service has the same edge."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any, Protocol, TypeVar

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response

from service_kit.api_keys import SCOPES
from service_kit.authentication import admin_or_service_caller
from service_kit.disconnect import CancelOnDisconnectMiddleware
from service_kit.heap import startup_heap_frozen
from service_kit.logging import configure_logging, write_logs_synchronously
from service_kit.observability import ReadinessCheck, install_observability
from service_kit.openapi import install_api_documents, operation_id_of
from service_kit.problems import UnexpectedErrorMiddleware, install_problem_handlers
from service_kit.request_id import RequestIdMiddleware
from service_kit.security import install_security
from service_kit.settings import EngineSettings, ServiceSettings
from service_kit.token_budget import TokenBudgetPolicy
from service_kit.tracing import flush_spans, install_tracing
from shared_contracts.redaction import remember_secrets

ExceptionHandler = Callable[[Request, Exception], Awaitable[Response]]


def create_service_app(
    *,
    service: str,
    title: str,
    description: str,
    settings: ServiceSettings,
    routers: Sequence[APIRouter],
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[Any]] | None = None,
    readiness: ReadinessCheck | None = None,
    accepted_scopes: Collection[str] = SCOPES,
    quota_path: str | None = None,
    exception_handlers: Mapping[type[Exception], ExceptionHandler] | None = None,
    stop_work_on_disconnect: bool = False,
) -> FastAPI:
    """``accepted_scopes`` and ``quota_path``: see ``security.install_security``. ``exception_handlers`` answer
    an error otherwise than with its problem detail (they win over it: looked up along the exception's MRO).
    ``stop_work_on_disconnect``: a request whose client goes away before its answer is cancelled
    (``disconnect.CancelOnDisconnectMiddleware``; the peers, whose requests are the model work itself)."""
    remember_secrets(settings.secret_values())  # before the first line is logged
    configure_logging(settings.log_level, json=settings.log_json, service=service)
    app = FastAPI(
        title=title,
        description=description,
        version="0.1.0",
        docs_url=None,  # /docs serves the bundled Swagger UI (install_api_documents), not the CDN's
        redoc_url=None,
        lifespan=_logs_written_at_exit(lifespan),
        generate_unique_id_function=operation_id_of,
    )
    # Added innermost first: the request-id middleware runs outside the others, so their answers carry the id.
    if stop_work_on_disconnect:
        app.add_middleware(CancelOnDisconnectMiddleware)
    app.add_middleware(UnexpectedErrorMiddleware)
    install_security(app, settings, accepted_scopes=accepted_scopes, quota_path=quota_path)
    app.add_middleware(RequestIdMiddleware)
    install_problem_handlers(app)
    for exc_class, handler in (exception_handlers or {}).items():
        app.add_exception_handler(exc_class, handler)
    keys = settings.key_ring() if settings.auth_mode == "api_key" else None
    install_observability(app, service, readiness, sees_detail=None if keys is None else admin_or_service_caller(keys))
    if isinstance(settings, EngineSettings):  # an analysing service: who may spend how much on its model
        app.state.token_budget_policy = TokenBudgetPolicy.of(service, settings)
    for router in routers:
        app.include_router(router)
    install_api_documents(app, authenticated=settings.auth_mode == "api_key")
    install_tracing(app, service, settings, keys)
    return app


def _logs_written_at_exit(
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[Any]] | None,
) -> Callable[[FastAPI], AbstractAsyncContextManager[Any]]:
    """The app's lifespan, after whose shutdown every line is written as it is logged (the process is about
    to end, possibly by a signal: ``write_logs_synchronously``)."""

    @asynccontextmanager
    async def lifespan_then_direct_logs(app: FastAPI) -> AsyncIterator[None]:
        try:
            if lifespan is None:
                yield
            else:
                async with lifespan(app):
                    yield
        finally:
            flush_spans()
            write_logs_synchronously()

    return lifespan_then_direct_logs


class Closable(Protocol):
    async def aclose(self) -> None: ...


C = TypeVar("C", bound=Closable)
Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def container_lifespan(given: C | None, open_container: Callable[[], AbstractAsyncContextManager[C]]) -> Lifespan:
    """The lifespan of every service: ``app.state.container`` is the ``given`` container (the caller's, not
    closed here) or the one ``open_container()`` opens at start-up and closes at shutdown (``lambda:
    open_container(settings)``). While the app serves, what start-up built is frozen out of the garbage
    collector's full collections (``heap``)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            built = given if given is not None else await stack.enter_async_context(open_container())
            app.state.container = built
            with startup_heap_frozen():
                yield

    return lifespan


def container_readiness(
    check: Callable[[C], Awaitable[dict[str, str]]], not_built: Mapping[str, str] | None = None
) -> ReadinessCheck:
    """A readiness check that asks ``app.state.container``; before the lifespan has built it, the answer
    is ``not_built`` (without one, the missing container is an error, as any bug)."""

    async def readiness(app: FastAPI) -> dict[str, str]:
        if not_built is not None and getattr(app.state, "container", None) is None:
            return dict(not_built)
        container: C = app.state.container
        return await check(container)

    return readiness
