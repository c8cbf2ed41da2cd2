"""One language per research across the four processes (issue 51): the stack runs with REPORT_LANGUAGE zh; a research
naming ``en`` is written in English by every expert, the debate and the judge (no CJK character in any narrative
field), one naming ``zh`` in Chinese, and the session keeps its language. A language other than zh or en is a 400."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import ALL_EXPERTS, RESEARCH, SESSIONS, expect
from in_process_grid import texts_of

from service_kit.stack.launcher import Stack, running_stack

pytestmark = pytest.mark.e2e

CJK = re.compile(r"[\u3400-\u9fff]")
DATA_FIELDS = ("information_sources", "data_source", ".engine.", "relative_standing", "_indicators", ".figures")
DATA_FIELDS += ("catalyst_context", "key_technical_levels", "contributions", ".dimension", ".date", "coverage")
"""Fields that hold data (source names, units, keys), not prose (as ``test_narrative_text.NOT_PROSE``)."""


@pytest.fixture(scope="module")
def coordinator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    workdir: Path = tmp_path_factory.mktemp("e2e-language")
    with running_stack(workdir, common_env={"REPORT_LANGUAGE": "zh"}) as stack:
        yield from _client(stack)


def _client(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack["coordinator"].url, timeout=60) as client:
        yield client


def _prose(body: dict[str, Any]) -> list[tuple[str, str]]:
    experts = [t for name, e in body["expert_results"].items() if e["data"] for t in texts_of(e["data"], name)]
    texts = experts + texts_of(body["debate_outcome"], "debate") + texts_of(body["verdict"], "verdict")
    return [(path, text) for path, text in texts if not any(part in path for part in DATA_FIELDS)]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_stage_writes_in_the_language_the_research_names(coordinator: httpx.Client, language: str) -> None:
    asked = {"symbol": "600519.SH", "experts": ALL_EXPERTS, "analysis_date": "2025-09-30", "language": language}
    body = expect(coordinator.post(RESEARCH, json=asked), 200)
    assert (body["overall_status"], body["language"]) == ("completed", language)
    prose = _prose(body)
    stages = {path.split(".")[0].split("[")[0] for path, _ in prose}
    assert stages == {*ALL_EXPERTS, "debate", "verdict"}
    if language == "en":
        assert [(path, text[:80]) for path, text in prose if CJK.search(text)] == []
    else:
        for key in ("reasoning", "entry_strategy"):
            assert CJK.search(body["verdict"][key]), body["verdict"][key]
        assert CJK.search(body["debate_outcome"]["conflict_resolution"])
        gaps = [gap for e in body["expert_results"].values() for gap in e["data"]["data_gaps"]]
        assert gaps
        assert [gap for gap in gaps if not CJK.search(gap)] == []
    detail = expect(coordinator.get(f"{SESSIONS}/{body['session_id']}"), 200)
    assert (detail["language"], detail["request"]["language"]) == (language, language)
    assert detail["verdict"]["reference_price"] == body["verdict"]["reference_price"] is not None


def test_another_language_is_a_400_invalid_language(coordinator: httpx.Client) -> None:
    asked = {"symbol": "600519.SH", "experts": ALL_EXPERTS, "language": "english"}
    problem = expect(coordinator.post(RESEARCH, json=asked), 400)
    assert problem["code"] == "invalid_language"
