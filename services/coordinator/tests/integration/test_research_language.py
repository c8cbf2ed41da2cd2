"""Issue 51: a research names its language (zh or en; REPORT_LANGUAGE when it does not); the session keeps it and
every expert, the debate and the judge are asked for it. Another value is a 400 invalid_language before anything
runs. Through the real app (LangGraph orchestrator, SQLite store) with fake peers that record every call."""

from __future__ import annotations

import pytest
from coordinator_fakes import (
    FakeDebateGateway,
    FakeExpertGateway,
    FakeJudgeGateway,
    fake_container,
    make_settings,
    serve,
)
from coordinator_persistence_fakes import RESEARCH, SESSIONS

from coordinator.domain.ports.research_expert_gateway import ExpertOptions

BODY = {"symbol": "600519.SH", "experts": ["technical_analyst", "macro_intelligence"], "analysis_date": "2025-09-30"}


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_every_stage_is_asked_for_the_researchs_language(language: str) -> None:
    research, debate, judge = FakeExpertGateway(), FakeDebateGateway(), FakeJudgeGateway()
    async with serve(fake_container(gateway=research, debate=debate, judge=judge)) as client:
        response = await client.post(RESEARCH, json={**BODY, "language": language})
        assert response.status_code == 200, response.text
        detail = (await client.get(f"{SESSIONS}/{response.json()['session_id']}")).json()
    assert response.json()["language"] == language
    assert {o.language for _, _, o in research.calls if isinstance(o, ExpertOptions)} == {language}
    assert len(research.calls) == 2
    assert [asked.get("language") for asked in debate.asked] == [language]
    assert [(context or {}).get("language") for _, _, context in judge.calls] == [language]
    assert (detail["language"], detail["request"]["language"]) == (language, language)


@pytest.mark.parametrize("configured", ["zh", "en", None])
async def test_a_research_naming_no_language_is_written_in_report_language(configured: str | None) -> None:
    """The coordinator's REPORT_LANGUAGE, when set (compose and Kubernetes set the peers'); unset, the research names
    none to the peers either (each writes in its own) and its language is null."""
    research, debate = FakeExpertGateway(), FakeDebateGateway()
    settings = make_settings(report_language=configured)
    async with serve(fake_container(gateway=research, debate=debate, settings=settings), settings) as client:
        response = await client.post(RESEARCH, json=BODY)
        listed = (await client.get(SESSIONS)).json()["items"]
    assert response.status_code == 200, response.text
    assert response.json()["language"] == configured
    assert [item["language"] for item in listed] == [configured]
    assert [asked.get("language") for asked in debate.asked] == [configured]
    assert {o.language for _, _, o in research.calls if isinstance(o, ExpertOptions)} == {configured}


@pytest.mark.parametrize(
    ("language", "code"), [("fr", "invalid_language"), ("EN", "invalid_language"), (5, "invalid_request")]
)
async def test_another_language_is_a_400_before_anything_runs(language: object, code: str) -> None:
    research = FakeExpertGateway()
    async with serve(fake_container(gateway=research)) as client:
        response = await client.post(RESEARCH, json={**BODY, "language": language})
        listed = (await client.get(SESSIONS)).json()["items"]
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert (research.calls, listed) == ([], [])
