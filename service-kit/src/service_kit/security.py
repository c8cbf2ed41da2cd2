"""The security edge every service shares, in the order a request meets it: browser safety headers, the
cross-origin check, authentication, per-client rate limits, then the body's size and deadline."""

from __future__ import annotations

from collections.abc import Collection

import structlog
from fastapi import FastAPI

from service_kit.api_keys import SCOPES
from service_kit.authentication import AuthenticationMiddleware
from service_kit.body_limit import RequestBodyLimitMiddleware
from service_kit.browser_safety import OriginCheckMiddleware, SecurityHeadersMiddleware
from service_kit.rate_limits import ClientRateLimits, RateLimitMiddleware, storage_uri
from service_kit.settings import ServiceSettings

log = structlog.get_logger(__name__)


def install_security(
    app: FastAPI,
    settings: ServiceSettings,
    *,
    accepted_scopes: Collection[str] = SCOPES,
    quota_path: str | None = None,
) -> None:
    """Add the middlewares (call before the request-id middleware is added, so it runs outside them).
    ``accepted_scopes``: the key scopes this service's API accepts; ``quota_path``: the path prefix whose
    POSTs count against the daily research quota."""
    limits = (
        ClientRateLimits.from_uri(
            storage_uri(settings.redis_url),
            writes=settings.rate_limit_writes,
            reads=settings.rate_limit_reads,
            daily_quota=settings.research_daily_quota,
        )
        if settings.limits_on
        else None
    )
    keys = settings.key_ring() if settings.auth_mode == "api_key" else None
    if keys is None:
        log.warning("auth_disabled", detail="AUTH_MODE=none: every caller is trusted; set AUTH_MODE=api_key to serve")
    app.add_middleware(
        RequestBodyLimitMiddleware,
        max_bytes=settings.max_request_body_bytes,
        timeout_seconds=settings.body_read_timeout_seconds,
        bulk_max_bytes=settings.max_bulk_request_body_bytes,
    )
    app.add_middleware(RateLimitMiddleware, limits=limits, quota_path=quota_path)
    app.add_middleware(AuthenticationMiddleware, keys=keys, accepted_scopes=accepted_scopes)
    app.add_middleware(OriginCheckMiddleware, allowed_origins=settings.origins)
    app.add_middleware(SecurityHeadersMiddleware)
