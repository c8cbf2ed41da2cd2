"""What the routes take from the container (``app.state.container``).
Each dependency is a coroutine: FastAPI runs a plain function in its thread pool, a hop per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from debate.application.services.debate_service import DebateService
from debate.container import DebateContainer
from service_kit.languages import ByLanguage


async def get_container(request: Request) -> DebateContainer:
    container: DebateContainer = request.app.state.container
    return container


async def get_debate_services(
    container: Annotated[DebateContainer, Depends(get_container)],
) -> ByLanguage[DebateService]:
    return container.debate_services


DebateServicesDep = Annotated[ByLanguage[DebateService], Depends(get_debate_services)]
"""The debate of a request's ``language``: ``services(body.language)``."""
