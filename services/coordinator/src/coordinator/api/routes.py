"""The routers (the spec names this file)."""

from __future__ import annotations

from fastapi import APIRouter

from coordinator.presentation.rest.batch_router import router as batch_router
from coordinator.presentation.rest.channel_router import router as channel_router
from coordinator.presentation.rest.market_router import router as market_router
from coordinator.presentation.rest.research_router import router as research_router
from coordinator.presentation.rest.scorecard_router import router as scorecard_router
from coordinator.presentation.rest.session_router import router as session_router
from coordinator.presentation.rest.usage_router import router as usage_router
from coordinator.presentation.rest.watchlist_router import router as watchlist_router

ROUTERS: list[APIRouter] = [
    research_router,
    batch_router,
    watchlist_router,
    channel_router,
    session_router,
    scorecard_router,
    usage_router,
    market_router,
]
