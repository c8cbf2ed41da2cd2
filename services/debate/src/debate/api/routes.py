"""Registers the routers."""

from __future__ import annotations

from fastapi import APIRouter

from debate.presentation.rest import debate_router


def routers() -> list[APIRouter]:
    return [debate_router.router]
