"""Registers the routers."""

from fastapi import APIRouter

from research.presentation.rest.bars import router as bars_router
from research.presentation.rest.experts import router as experts_router
from research.presentation.rest.universe import router as universe_router

routers: list[APIRouter] = [experts_router, universe_router, bars_router]
