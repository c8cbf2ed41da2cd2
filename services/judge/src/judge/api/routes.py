"""Registers the routers."""

from __future__ import annotations

from fastapi import APIRouter

from judge.presentation.rest.judge_router import router as judge_router

ROUTERS: list[APIRouter] = [judge_router]
