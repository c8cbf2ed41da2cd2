"""The authenticated caller of a request, as the coordinator's use cases see it."""

from __future__ import annotations

from fastapi import Request

from coordinator.domain.model.viewer import Viewer
from shared_contracts.service.authentication import client_of


def get_viewer(request: Request) -> Viewer:
    """The caller's own sessions, or every client's for an ``admin`` key (``AUTH_MODE=none``: the local user,
    who sees all)."""
    client = client_of(request)
    return Viewer(client.audit_id, sees_all=client.is_admin)
