"""An expert writes in the language its request names (zh or en), whatever the service's REPORT_LANGUAGE (zh
here); another value is a 400 invalid_language, for one symbol and for many."""

from __future__ import annotations

import re

import httpx
import pytest

from shared_contracts.experts import ExpertType

CJK = re.compile(r"[\u3400-\u9fff]")
NARRATIVE = {
    ExpertType.TECHNICAL_ANALYST: ("summary_reasoning", "risk_warning"),
    ExpertType.FINANCIAL_AUDITOR: ("summary_reasoning", "risk_warning"),
    ExpertType.VALUATION_MODELER: ("reasoning_summary",),
    ExpertType.MACRO_INTELLIGENCE: ("macro_summary",),
}
BODY = {"symbol": "600519.SH", "analysis_date": "2025-09-30"}


@pytest.mark.parametrize("expert", list(NARRATIVE))
async def test_each_expert_writes_in_the_language_asked_for(client: httpx.AsyncClient, expert: ExpertType) -> None:
    path = f"/api/v1/research/experts/{expert.value}"
    english = await client.post(path, json={**BODY, "language": "en"})
    chinese = await client.post(path, json={**BODY, "language": "zh"})
    default = await client.post(path, json=BODY)
    assert english.status_code == chinese.status_code == default.status_code == 200, english.text
    for field in NARRATIVE[expert]:
        assert not CJK.search(english.json()[field]), english.json()[field]
        assert CJK.search(chinese.json()[field]), chinese.json()[field]
        assert default.json()[field] == chinese.json()[field]  # REPORT_LANGUAGE zh


async def test_the_bulk_form_writes_in_the_language_asked_for(client: httpx.AsyncClient) -> None:
    path = f"/api/v1/research/experts/{ExpertType.TECHNICAL_ANALYST.value}/bulk"
    body = {"symbols": ["600519.SH", "000001.SZ"], "analysis_date": "2025-09-30", "language": "en"}
    response = await client.post(path, json=body)
    assert response.status_code == 200, response.text
    texts = [item["result"]["summary_reasoning"] for item in response.json()["items"]]
    assert len(texts) == 2
    assert not any(CJK.search(text) for text in texts)


@pytest.mark.parametrize("bulk", [False, True])
async def test_another_language_is_a_400_invalid_language(client: httpx.AsyncClient, bulk: bool) -> None:
    path = f"/api/v1/research/experts/{ExpertType.MACRO_INTELLIGENCE.value}"
    if bulk:
        response = await client.post(f"{path}/bulk", json={"symbols": ["600519.SH"], "language": "zh-TW"})
    else:
        response = await client.post(path, json={**BODY, "language": "zh-TW"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_language"
    assert "zh, en" in response.json()["detail"]
