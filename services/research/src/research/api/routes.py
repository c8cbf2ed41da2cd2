"""Registers the routers."""

from fastapi import APIRouter

from research.presentation.rest.experts import router as experts_router

routers: list[APIRouter] = [experts_router]
