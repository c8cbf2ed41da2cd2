"""Registers the routers."""

from fastapi import APIRouter

from research.presentation.rest.bars_router import router as bars_router
from research.presentation.rest.experts_router import router as experts_router
from research.presentation.rest.universe_router import router as universe_router

ROUTERS: list[APIRouter] = [experts_router, universe_router, bars_router]
