"""What the routes take from the container (``app.state.container``).
Each dependency is a coroutine: FastAPI runs a plain function in its thread pool, a hop per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from judge.application.services.judge_service import JudgeService
from judge.container import JudgeContainer
from service_kit.languages import ByLanguage


async def get_container(request: Request) -> JudgeContainer:
    container: JudgeContainer = request.app.state.container
    return container


async def get_judge_services(container: Annotated[JudgeContainer, Depends(get_container)]) -> ByLanguage[JudgeService]:
    return container.judge_services


JudgeServicesDep = Annotated[ByLanguage[JudgeService], Depends(get_judge_services)]
"""The judge of a request's ``language``: ``services(body.language)``."""
