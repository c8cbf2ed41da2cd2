"""A problem quotes no input beyond 200 characters: its detail and its validation errors (``msg``, ``loc``), however
the message was written."""

from __future__ import annotations

import httpx
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel, field_validator

from service_kit.app_factory import create_service_app
from service_kit.problems import problem_members
from service_kit.settings import ServiceSettings
from shared_contracts.echo import echo
from shared_contracts.errors import InvalidRequestError


class Body(BaseModel):
    name: str
    counts: dict[str, int] = {}

    @field_validator("name")
    @classmethod
    def _plain(cls, value: str) -> str:
        if not value.isalpha():
            raise ValueError(f"must be letters, got {value!r}")  # a validator that quotes its input whole
        return value


def build_app() -> FastAPI:
    router = APIRouter(prefix="/api/v1/kit")

    @router.post("/things")
    async def create(body: Body) -> dict[str, str]:
        raise InvalidRequestError(f"no thing named {body.name}")  # quoted whole, as a message may

    return create_service_app(
        service="kit-echo", title="Kit", description="d", settings=ServiceSettings(log_json=True), routers=[router]
    )


async def test_validation_errors_and_details_quote_at_most_200_characters_of_input() -> None:
    huge = "A" * 900_000
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=build_app()), base_url="http://t") as client:
        by_validator = await client.post("/api/v1/kit/things", json={"name": huge + "1"})
        by_key = await client.post("/api/v1/kit/things", json={"name": "a", "counts": {huge: "x"}})
        by_message = await client.post("/api/v1/kit/things", json={"name": huge})
    for response in (by_validator, by_key, by_message):
        assert response.status_code == 400
        assert len(response.content) < 2_000, response.text[:300]
        assert "A" * 201 not in response.text


def test_echo_cuts_a_long_value_and_says_how_long_it_was() -> None:
    assert echo("AAPL") == "'AAPL'"
    assert echo("B" * 1_000) == f"{'B' * 200!r}… (1,000 characters)"
    assert echo(list(range(1_000))).endswith("characters)")
    members = problem_members(400, "invalid_request", "x " + "C" * 5_000 + " y")
    assert members["detail"] == "x " + "C" * 200 + "… (5,000 characters) y"
