"""Registers the routers (the spec names this file)."""

from __future__ import annotations

from fastapi import APIRouter

from coordinator.presentation.rest.research_routes import router as research_router
from coordinator.presentation.rest.scorecard_routes import router as scorecard_router
from coordinator.presentation.rest.session_routes import router as session_router


def routers() -> list[APIRouter]:
    return [research_router, session_router, scorecard_router]
