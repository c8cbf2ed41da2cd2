"""Nothing leaked through the coordinator: a peer whose problem detail quotes its LLM endpoint's key (and the
Authorization header it was sent) is recorded in the session and answered with the key masked, and a peer
that cannot be reached is named, not located: no key in the response, the stored session, the database file
or the logs, and no URL in any error the client is shown."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import respx
from coordinator_fakes import debate_outcome, make_settings, sample_result, serve
from coordinator_persistence_fakes import RESEARCH, SESSIONS

from service_kit.logging import flush_logs

KEY = "sk-test-SECRET-123456"
TA, MI, FA = "technical_analyst", "macro_intelligence", "financial_auditor"
PEER_RESEARCH, PEER_DEBATE, PEER_JUDGE = "http://research.test", "http://debate.test", "http://judge.test"


def leaking_problem(status: int, code: str) -> httpx.Response:
    """A peer's problem that quotes what its LLM endpoint answered, key and header included."""
    body = {
        "type": "about:blank",
        "title": "Bad Gateway",
        "status": status,
        "code": code,
        "detail": f"the LLM refused the call (401): Incorrect API key provided: {KEY}; "
        f"sent Authorization: Bearer {KEY} to http://llm.internal:8080/v1/chat/completions",
        "raw_output_excerpt": f'{{"api_key": "{KEY}"}}',
    }
    return httpx.Response(status, json=body, headers={"content-type": "application/problem+json"})


@contextlib.contextmanager
def peers(failing_stage: str) -> Iterator[respx.MockRouter]:
    """research: the technical analyst answers, the macro expert's LLM call fails with the key in its problem,
    the financial auditor cannot be reached; ``failing_stage`` (debate or judge) fails the same way."""
    with respx.mock(using="httpx", assert_all_called=False) as router:
        router.route(host="t").pass_through()
        experts = f"{PEER_RESEARCH}/api/v1/research/experts"
        router.post(f"{experts}/{TA}").mock(return_value=httpx.Response(200, json=sample_result(TA)))
        router.post(f"{experts}/{MI}").mock(return_value=leaking_problem(502, "llm_upstream_error"))
        router.post(f"{experts}/{FA}").mock(side_effect=httpx.ConnectError("Cannot connect to host research.test:80"))
        debate = router.post(f"{PEER_DEBATE}/api/v1/debate/run")
        judge = router.post(f"{PEER_JUDGE}/api/v1/judge/verdict")
        if failing_stage == "debate":
            debate.mock(return_value=leaking_problem(503, "llm_unavailable"))
        else:
            debate.mock(return_value=httpx.Response(200, json=debate_outcome()))
            judge.mock(return_value=leaking_problem(502, "llm_upstream_error"))
        yield router


@pytest.mark.parametrize("failing_stage", ["debate", "judge"])
async def test_a_peer_quoting_its_llm_key_leaks_it_nowhere(
    failing_stage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "coordinator.db"
    settings = make_settings(database_url=f"sqlite+aiosqlite:///{database}", log_level="DEBUG")
    with peers(failing_stage):
        async with serve(settings=settings) as client:
            response = await client.post(RESEARCH, json={"symbol": "600519.SH", "experts": [TA, MI, FA]})
            assert response.status_code == 200, response.text
            session_id = response.json()["session_id"]
            stored = await client.get(f"{SESSIONS}/{session_id}")
            history = await client.get(SESSIONS)
    flush_logs()
    logged = capsys.readouterr().err

    body, detail = response.json(), stored.json()
    assert stored.status_code == 200, stored.text
    for where, text in {
        "response": response.text,
        "stored session": stored.text,
        "history": history.text,
        "database file": database.read_bytes().decode("utf-8", "replace"),
        "logs": logged,
    }.items():
        assert KEY not in text, where
        assert "SECRET" not in text, where

    errors = {
        "response": {expert: item["error"] for expert, item in body["expert_results"].items() if item["error"]},
        "session": {
            **{expert: item["error"] for expert, item in detail["expert_results"].items() if item["error"]},
            failing_stage: detail[failing_stage]["error"],
        },
    }
    assert set(errors["response"]) == {MI, FA}
    for error in [*errors["response"].values(), *errors["session"].values()]:
        assert "http://" not in error
        assert "research.test" not in error
    assert errors["response"][MI].startswith("research 502 llm_upstream_error: the LLM refused the call (401): ")
    assert "Incorrect API key provided: [REDACTED]" in errors["response"][MI]  # the peer's words, the key masked
    assert errors["response"][FA] == "research unreachable: connection failed (ConnectError) (3 attempts)"
    assert errors["session"][failing_stage].startswith(f"{failing_stage} 50")
    assert "[REDACTED]" in errors["session"][failing_stage]
    assert any(json.loads(line).get("event") == "peer_unreachable" for line in logged.splitlines() if line[:1] == "{")
