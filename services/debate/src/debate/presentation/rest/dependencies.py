"""What the routes take from the container (``app.state.container``).
Each dependency is a coroutine: FastAPI runs a plain function in its thread pool, a hop per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from debate.application.services.debate_service import DebateService
from debate.container import DebateContainer


async def get_container(request: Request) -> DebateContainer:
    container: DebateContainer = request.app.state.container
    return container


async def get_debate_service(container: Annotated[DebateContainer, Depends(get_container)]) -> DebateService:
    return container.debate_service


DebateServiceDep = Annotated[DebateService, Depends(get_debate_service)]
