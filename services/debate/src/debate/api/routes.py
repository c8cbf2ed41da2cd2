"""Registers the routers."""

from __future__ import annotations

from fastapi import APIRouter

from debate.presentation.rest.debate_router import router as debate_router

ROUTERS: list[APIRouter] = [debate_router]
