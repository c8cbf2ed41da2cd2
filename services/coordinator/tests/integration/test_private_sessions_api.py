"""With ``AUTH_MODE=api_key``: every request needs a key; a client lists, reads and retries only its own
sessions (another client's is a 404), an admin sees all; a cross-origin POST is refused; limits answer 429
with ``Retry-After``; and the whole chain works: the coordinator calls research, debate and judge (real apps,
in-process, auth on) with its service key on behalf of the caller."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx
import pytest
from coordinator_fakes import (
    FakeExpertGateway,
    InMemorySessionRepository,
    fake_container,
    make_settings,
    serve,
)

from coordinator.container import build_container
from coordinator.main import create_app
from coordinator.settings import Settings
from service_kit.api_keys import hash_key

KEYS = {"alice": "sr_alice-key-0123456789abcdef", "bob": "sr_bob-key-0123456789abcdef", "ops": "sr_ops-key-012345678"}
SERVICE_KEY = "sr_coordinator-service-key-0123"
API_KEYS = ",".join(
    [f"{c}={hash_key(k)}" for c, k in KEYS.items() if c != "ops"]
    + [f"ops={hash_key(KEYS['ops'])}:admin", f"coordinator={hash_key(SERVICE_KEY)}:service"]
)
BODY = {"symbol": "600519.SH", "experts": ["technical_analyst", "macro_intelligence"], "analysis_date": "2025-06-30"}


def auth(client: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[client]}"}


def secured(**overrides: Any) -> Settings:
    return make_settings(auth_mode="api_key", api_keys=API_KEYS, service_api_key=SERVICE_KEY, **overrides)


@asynccontextmanager
async def coordinator(settings: Settings | None = None, **fakes: Any) -> AsyncIterator[httpx.AsyncClient]:
    settings = settings or secured()
    container = fake_container(settings=settings, sessions=InMemorySessionRepository(), **fakes)
    async with serve(container, settings) as client:
        yield client


async def test_a_request_without_a_valid_key_is_a_401_problem() -> None:
    async with coordinator() as http:
        missing = await http.get("/api/v1/coordinator/sessions")
        wrong = await http.get("/api/v1/coordinator/sessions", headers={"Authorization": "Bearer sr_nope"})
        health = await http.get("/healthz")
    assert (missing.status_code, missing.json()["code"]) == (401, "unauthenticated")
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "[REDACTED]" not in missing.json()["detail"]
    assert (wrong.status_code, wrong.json()["code"]) == (401, "invalid_api_key")
    assert health.status_code == 200


async def test_a_service_key_cannot_use_the_coordinators_api() -> None:
    async with coordinator() as http:
        answer = await http.get("/api/v1/coordinator/sessions", headers={"Authorization": f"Bearer {SERVICE_KEY}"})
    assert (answer.status_code, answer.json()["code"]) == (403, "insufficient_scope")
    assert 'error="insufficient_scope"' in answer.headers["www-authenticate"]


async def test_a_client_lists_reads_and_retries_only_its_own_sessions() -> None:
    failing = FakeExpertGateway(failures={"macro_intelligence": RuntimeError("down")})
    async with coordinator(gateway=failing) as http:
        mine = (await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))).json()
        theirs = (await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("bob"))).json()
        alice_id, bob_id = mine["session_id"], theirs["session_id"]

        listed = (await http.get("/api/v1/coordinator/sessions", headers=auth("alice"))).json()
        assert [s["session_id"] for s in listed["items"]] == [alice_id]
        assert listed["total"] == 1
        assert (await http.get(f"/api/v1/coordinator/sessions/{alice_id}", headers=auth("alice"))).status_code == 200

        read = await http.get(f"/api/v1/coordinator/sessions/{bob_id}", headers=auth("alice"))
        retried = await http.post(f"/api/v1/coordinator/research/{bob_id}/retry", headers=auth("alice"))
        assert (read.status_code, read.json()["code"]) == (404, "session_not_found")
        assert (retried.status_code, retried.json()["code"]) == (404, "session_not_found")

        scorecard = (await http.get("/api/v1/coordinator/scorecard", headers=auth("alice"))).json()
        assert scorecard["sessions"] <= 1

        everyone = (await http.get("/api/v1/coordinator/sessions", headers=auth("ops"))).json()
        assert {s["session_id"] for s in everyone["items"]} == {alice_id, bob_id}
        own_retry = await http.post(f"/api/v1/coordinator/research/{alice_id}/retry", headers=auth("alice"))
        assert own_retry.status_code == 200
        assert own_retry.json()["retry_count"] == 1


async def test_another_clients_events_and_cancel_are_404_and_idempotency_keys_are_per_client() -> None:
    async with coordinator() as http:
        asynchronous = {"Prefer": "respond-async", "Idempotency-Key": "same-key"}
        bobs = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("bob") | asynchronous)
        alices = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice") | asynchronous)
        bob_id = bobs.json()["session_id"]
        assert (bobs.status_code, alices.status_code) == (202, 202)
        assert alices.json()["session_id"] != bob_id  # the same key, another client: another session
        events = await http.get(f"/api/v1/coordinator/sessions/{bob_id}/events", headers=auth("alice"))
        cancel = await http.post(f"/api/v1/coordinator/sessions/{bob_id}/cancel", headers=auth("alice"))
        own = await http.get(f"/api/v1/coordinator/sessions/{bob_id}/events", headers=auth("bob"))
    assert (events.status_code, events.json()["code"]) == (404, "session_not_found")
    assert (cancel.status_code, cancel.json()["code"]) == (404, "session_not_found")
    assert own.status_code == 200
    assert "event: session.queued" in own.text


async def test_a_cross_origin_form_post_is_refused() -> None:
    async with coordinator() as http:
        session_id = (await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))).json()[
            "session_id"
        ]
        form = await http.post(
            f"/api/v1/coordinator/research/{session_id}/retry",
            headers={"Origin": "https://evil.example", "Content-Type": "application/x-www-form-urlencoded"},
            content=b"x=1",
        )
        with_key = await http.post(
            "/api/v1/coordinator/research", json=BODY, headers={**auth("alice"), "Origin": "https://evil.example"}
        )
        fetch_mode = await http.post(
            "/api/v1/coordinator/research", json=BODY, headers={**auth("alice"), "Sec-Fetch-Site": "cross-site"}
        )
        same_origin = await http.post(
            "/api/v1/coordinator/research", json=BODY, headers={**auth("alice"), "Origin": "http://t"}
        )
        marked_cross_site = await http.post(
            "/api/v1/coordinator/research",
            json=BODY,
            headers={**auth("alice"), "Origin": "http://t", "Sec-Fetch-Site": "cross-site"},
        )
        other_scheme = await http.post(
            "/api/v1/coordinator/research", json=BODY, headers={**auth("alice"), "Origin": "https://t"}
        )
    assert (form.status_code, form.json()["code"]) == (403, "cross_origin_refused")
    assert (with_key.status_code, fetch_mode.status_code) == (403, 403)
    assert same_origin.status_code == 200
    assert (marked_cross_site.status_code, other_scheme.status_code) == (403, 403)


async def test_an_allowed_origin_may_post() -> None:
    async with coordinator(secured(allowed_origins="https://desk.example")) as http:
        answer = await http.post(
            "/api/v1/coordinator/research", json=BODY, headers={**auth("alice"), "Origin": "https://desk.example"}
        )
    assert answer.status_code == 200


async def test_writes_beyond_the_limit_are_429_with_retry_after_per_client() -> None:
    async with coordinator(secured(rate_limit_writes="2/minute")) as http:
        answers = [
            (await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))).status_code
            for _ in range(3)
        ]
        refused = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))
        other_client = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("bob"))
        reads = await http.get("/api/v1/coordinator/sessions", headers=auth("alice"))
    assert answers == [200, 200, 429]
    assert (refused.status_code, refused.json()["code"]) == (429, "rate_limited")
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert other_client.status_code == 200
    assert reads.status_code == 200


async def test_the_research_quota_counts_researches_that_ran_and_is_429_until_its_window_ends() -> None:
    async with coordinator(secured(research_daily_quota=1)) as http:
        refused = await http.post("/api/v1/coordinator/research", json={**BODY, "symbol": "!!"}, headers=auth("alice"))
        first = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))
        second = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))
    assert refused.status_code == 400  # a client mistake runs nothing and costs no quota
    assert first.status_code == 200
    assert (second.status_code, second.json()["code"]) == (429, "research_quota_exceeded")
    assert 1 <= int(second.headers["retry-after"]) <= 86_400


async def test_api_answers_carry_the_security_headers() -> None:
    async with coordinator() as http:
        answer = await http.get("/api/v1/coordinator/sessions", headers=auth("alice"))
        refused = await http.get("/api/v1/coordinator/sessions")
    for response in (answer, refused):
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-frame-options"] == "DENY"


def test_api_key_mode_refuses_to_start_without_keys_or_a_service_key() -> None:
    with pytest.raises(ValueError, match="API_KEYS"):
        make_settings(auth_mode="api_key", service_api_key=SERVICE_KEY)
    with pytest.raises(ValueError, match="SERVICE_API_KEY"):
        make_settings(auth_mode="api_key", api_keys=API_KEYS)
    with pytest.raises(ValueError, match="SERVICE_API_KEY"):
        make_settings(auth_mode="api_key", api_keys=API_KEYS, service_api_key="  ")
    with pytest.raises(ValueError, match="64 hexadecimal"):
        make_settings(api_keys="alice=not-a-hash")


# --- the whole chain, auth on everywhere ------------------------------------------------------------------

research_main = pytest.importorskip("research.main", reason="the research package is not installed alongside")
research_settings = pytest.importorskip("research.settings")
debate_main = pytest.importorskip("debate.main", reason="the debate package is not installed alongside")
debate_container = pytest.importorskip("debate.container")
judge_main = pytest.importorskip("judge.main", reason="the judge package is not installed alongside")
judge_settings = pytest.importorskip("judge.settings")


async def test_the_coordinator_calls_its_peers_with_its_service_key_for_the_caller() -> None:
    peer_auth = {"auth_mode": "api_key", "api_keys": API_KEYS, "analysis_engine": "rules"}
    apps = {
        "research": research_main.create_app(research_settings.Settings(market_data_provider="offline", **peer_auth)),
        "debate": debate_main.create_app(debate_container.Settings(**peer_auth)),
        "judge": judge_main.create_app(judge_settings.Settings(**peer_auth)),
    }
    seen: list[tuple[str, str | None, str | None]] = []

    def recording(name: str) -> httpx.AsyncBaseTransport:
        inner = httpx.ASGITransport(app=apps[name])

        class Recording(httpx.AsyncBaseTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                seen.append((name, request.headers.get("authorization"), request.headers.get("x-client-id")))
                return await inner.handle_async_request(request)

        return Recording()

    settings = secured(
        research_service_url="http://research.peer",
        debate_service_url="http://debate.peer",
        judge_service_url="http://judge.peer",
    )
    async with AsyncExitStack() as stack:
        for app in apps.values():
            await stack.enter_async_context(app.router.lifespan_context(app))
        peers = httpx.AsyncClient(mounts={f"http://{n}.peer": recording(n) for n in apps})
        await stack.enter_async_context(peers)
        container = build_container(settings, http_client=peers, sessions=InMemorySessionRepository())
        app = create_app(settings, container=container)
        await stack.enter_async_context(app.router.lifespan_context(app))
        http = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        )
        answer = await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))
        direct = await peers.post("http://judge.peer/api/v1/judge/verdict", json={"symbol": "600519.SH"})

    assert answer.status_code == 200, answer.text
    assert answer.json()["overall_status"] == "completed"
    assert answer.json()["verdict"] is not None
    assert {name for name, _, _ in seen} == {"research", "debate", "judge"}
    assert all(a == f"Bearer {SERVICE_KEY}" and c == "alice" for _, a, c in seen if a is not None)
    assert direct.status_code == 401


async def test_an_admins_retry_belongs_to_the_owner_and_records_who_ran_it() -> None:
    failing = FakeExpertGateway(failures={"macro_intelligence": RuntimeError("down")})
    async with coordinator(gateway=failing) as http:
        source = (await http.post("/api/v1/coordinator/research", json=BODY, headers=auth("alice"))).json()
        retried = await http.post(f"/api/v1/coordinator/research/{source['session_id']}/retry", headers=auth("ops"))
        assert retried.status_code == 200, retried.text
        by_owner = await http.get(f"/api/v1/coordinator/sessions/{retried.json()['session_id']}", headers=auth("alice"))
        original = await http.get(f"/api/v1/coordinator/sessions/{source['session_id']}", headers=auth("alice"))
    assert by_owner.status_code == 200  # the retry is alice's session
    assert by_owner.json()["requested_by"] == "ops"  # and says who ran it
    assert original.json()["requested_by"] == "alice"
