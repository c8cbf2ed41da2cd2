"""What the score is made of (issue 52, item 5), in the two texts a reader takes away: the CLI's one line under the
debate (scripts/research_cli.py) and the console's Markdown download (its ``js/markdown.js``, run in Chromium on
the console's own files; skipped without Chromium). The figures are a real research's (600519.SH as of 2025-06-30,
rules engines): three voting experts whose contributions add up to the score, macro and catalyst listed with weight
0. Each text shows every contribution, a total equal to the score, and no ``None``, dict or ``undefined``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from console_browser import STATIC, browser, needs_chromium, static_page
from deploy_manifests import ROOT
from e2e_support import load_script
from playwright.sync_api import Browser, Page

from shared_contracts.debate import Contribution
from shared_contracts.judge import CONFIDENCE_SENTENCE, Verdict

SCORE = 0.159274
CONTRIBUTIONS = [
    Contribution.model_validate(c).model_dump()
    for c in (
        {
            "expert": "technical_analyst",
            "signal": "NEUTRAL",
            "confidence": 0.3058,
            "weight": 0.8,
            "contribution": 0.153719,
            "percentile": 0.652893,
            "votes": True,
        },
        {
            "expert": "financial_auditor",
            "signal": "BULLISH",
            "confidence": 1.0,
            "weight": 0.05,
            "contribution": 0.047222,
            "percentile": 1.0,
            "votes": True,
        },
        {
            "expert": "valuation_modeler",
            "signal": "NEUTRAL",
            "confidence": 0.4876,
            "weight": 0.15,
            "contribution": -0.041667,
            "percentile": 0.256198,
            "votes": True,
        },
        {
            "expert": "macro_intelligence",
            "signal": "NEUTRAL",
            "confidence": 0.35,
            "weight": 0.0,
            "contribution": 0.0,
            "votes": False,
            "note": "market_wide",
        },
        {
            "expert": "catalyst_detective",
            "signal": "NEUTRAL",
            "confidence": 0.35,
            "weight": 0.0,
            "contribution": 0.0,
            "votes": False,
            "note": "events",
        },
    )
]
LEFTOVERS = re.compile(r"\bNone\b|\{'|\bundefined\b|\bnull\b|\bNaN\b|\[object")
"""What a text built from a payload must never show: Python's None or dicts, JavaScript's undefined, null, NaN."""


def debate(contributions: list[dict[str, Any]] = CONTRIBUTIONS, score: float | None = SCORE) -> dict[str, Any]:
    outcome: dict[str, Any] = {
        "symbol": "600519.SH",
        "direction": "NEUTRAL",
        "confidence": 0.2149,
        "bull_case": {"core_thesis": "Two dimensions add.", "supporting_arguments": [], "acknowledged_risks": []},
        "bear_case": {"core_thesis": "One takes.", "supporting_arguments": [], "acknowledged_strengths": []},
        "risk_matrix": [],
        "key_disagreements": [],
        "conflict_resolution": "The stock stands in the middle of its universe.",
        "engine": {"kind": "rules"},
        "contributions": contributions,
    }
    if score is not None:
        outcome["score"] = score
    return outcome


def research(outcome: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "session_id": "1828b015",
        "symbol": "600519.SH",
        "analysis_date": "2025-06-30",
        "overall_status": "completed",
        "status": "completed",
        "retry_count": 0,
        "experts": [],
        "expert_results": {},
        "debate_outcome": outcome,
        "verdict": {
            "action": "HOLD",
            "position_percent": 0.0,
            "confidence": 0.2149,
            "time_horizon": "SHORT_TERM",
            "score": SCORE,
            "risk_warnings": [],
            "reasoning": "Hold.",
        },
    }


# ------------------------------------------------------------------------------------------------ the CLI


@pytest.fixture(scope="module")
def cli() -> ModuleType:
    return load_script(ROOT / "scripts" / "research_cli.py", "research_cli_contributions")


def test_the_cli_says_each_contribution_the_score_they_add_up_to_and_who_does_not_vote(cli: ModuleType) -> None:
    line = cli.format_contributions(debate())
    assert line == (
        "technical +0.154 · financial +0.047 · valuation \u22120.042 = score +0.159 (macro, catalyst: no vote)"
    )
    assert round(0.154 + 0.047 - 0.042, 3) == round(SCORE, 3)
    summary = cli.format_summary(research(debate()))
    lines = summary.splitlines()
    at = next(i for i, text in enumerate(lines) if text.startswith("Debate   "))
    assert lines[at + 1] == f"  contributions  {line}"
    assert summary.count("  contributions  ") == 1
    assert LEFTOVERS.findall(summary) == []


def test_the_cli_line_names_an_expert_without_standing_data_and_shows_a_sum_that_differs(cli: ModuleType) -> None:
    financial = {**CONTRIBUTIONS[1], "weight": 0.0, "contribution": 0.0, "votes": False, "note": "no_standing_data"}
    technical = {**CONTRIBUTIONS[0], "weight": 0.842105, "contribution": 0.161811}
    valuation = {**CONTRIBUTIONS[2], "weight": 0.157895, "contribution": -0.043860}
    items = [technical, financial, valuation, *CONTRIBUTIONS[3:]]
    line = cli.format_contributions(debate(items, score=0.117951))
    assert line == (
        "technical +0.162 · valuation \u22120.044 = score +0.118 "
        "(financial: no standing data; macro, catalyst: no vote)"
    )
    # Without a score the contributions' sum stands for it; a score that is not their sum is shown beside it.
    assert cli.format_contributions(debate(score=None)).endswith("= score +0.159 (macro, catalyst: no vote)")
    assert "= +0.159, not the score +0.300" in cli.format_contributions(debate(score=0.3))


def failed_catalyst() -> dict[str, Any]:
    """The outcome when the catalyst detective failed: not among the contributions, named in the coverage."""
    return {**debate(CONTRIBUTIONS[:4]), "coverage": {"failed_experts": ["catalyst_detective"]}}


def test_the_cli_line_names_an_expert_that_failed(cli: ModuleType) -> None:
    assert cli.format_contributions(failed_catalyst()) == (
        "technical +0.154 · financial +0.047 · valuation \u22120.042 = score +0.159 (macro: no vote; catalyst: failed)"
    )


def test_the_cli_follows_a_verdict_in_words_not_dicts(cli: ModuleType) -> None:
    level = {"percent_from_entry": -2.89, "price": 1368.83, "basis": "support"}
    data = {"action": "HOLD", "position": 0.0, "stop": level, "target": {"percent_from_entry": 5.87}, "horizon": None}
    line = cli.format_event("verdict.completed", {**data, "duration_ms": 12.0})
    assert line == "  ✓ verdict              HOLD, position 0.0 %  0.0 s"  # a HOLD has no stop or target to act on
    buy = cli.format_event("verdict.completed", {**data, "action": "BUY", "position": 8.0, "horizon": "SHORT_TERM"})
    assert buy == "  ✓ verdict              BUY, position 8.0 %, stop \u22122.9 %, target +5.9 %, short term"
    assert LEFTOVERS.findall(line) == []


def test_the_cli_has_no_contributions_line_without_contributions(cli: ModuleType) -> None:
    older = {k: v for k, v in debate().items() if k not in ("contributions", "score")}
    assert cli.format_contributions(older) is None
    assert cli.format_contributions({**older, "contributions": None}) is None
    summary = cli.format_summary(research(older))
    assert "  contributions  " not in summary
    assert LEFTOVERS.findall(summary) == []


# ------------------------------------------------------------------------------- the console's Markdown


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    yield from browser()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    yield from static_page(chromium)


def markdown(page: Page, session: dict[str, Any], lang: str = "en") -> str:
    """The console's Markdown download of ``session``, as its download button writes it."""
    script = """async ([session, lang]) => {
        localStorage.setItem("console.lang", lang);
        const { sessionMarkdown } = await import("/js/markdown.js");
        return sessionMarkdown(session, { entry: 1409.52, stop: 1368.83, target: 1492.31 });
    }"""
    text: str = page.evaluate(script, [session, lang])
    return text


def table(text: str) -> list[list[str]]:
    """The rows of the contributions table (header first), each as its cells."""
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


@pytest.mark.browser
@needs_chromium
def test_the_markdown_download_tables_each_contribution_and_a_total_equal_to_the_score(page: Page) -> None:
    text = markdown(page, research(debate()))
    rows = table(text)
    assert "| expert | signal | confidence | weight | contribution |" in text.splitlines()
    assert rows[1:] == [
        ["Technical analyst", "NEUTRAL", "0.31", "0.80", "+0.154"],
        ["Financial auditor", "BULLISH", "1.00", "0.05", "+0.047"],
        ["Valuation modeler", "NEUTRAL", "0.49", "0.15", "-0.042"],
        ["Macro intelligence", "NEUTRAL", "0.35", "0.00", "0.000"],
        ["Catalyst detective", "NEUTRAL", "0.35", "0.00", "0.000"],
        ["**Total = score**", "", "", "1.00", "**+0.159**"],
    ]
    assert sum(float(row[4]) for row in rows[1:-1]) == pytest.approx(SCORE, abs=0.0015)
    assert f"{SCORE:+.3f}" in rows[-1][4]
    assert "Sum of the contributions: +0.154 + 0.047 - 0.042 = +0.159; the score: +0.159." in text
    assert "- Macro intelligence: weight 0, no vote — it sets the market exposure" in text
    assert "- Catalyst detective: weight 0, no vote — it reports events and risks" in text
    # Under the debate's heading, before the bull's case.
    assert text.index("## Debate") < text.index("### What the score is made of") < text.index("### Bull")
    assert LEFTOVERS.findall(text) == []


@pytest.mark.browser
@needs_chromium
def test_the_chinese_download_has_the_same_table_in_chinese(page: Page) -> None:
    text = markdown(page, research(debate()), "zh")
    assert "| 专家 | 信号 | 置信度 | 权重 | 贡献 |" in text.splitlines()
    assert table(text)[-1] == ["**合计 = 评分**", "", "", "1.00", "**+0.159**"]
    assert "宏观情报员：权重 0，不投票——它只调节市场敞口" in text
    assert LEFTOVERS.findall(text) == []


@pytest.mark.browser
@needs_chromium
def test_the_download_names_an_expert_that_failed(page: Page) -> None:
    text = markdown(page, research(failed_catalyst()))
    assert [row[0] for row in table(text)[1:-1]] == [
        "Technical analyst",
        "Financial auditor",
        "Valuation modeler",
        "Macro intelligence",
    ]
    assert "- Catalyst detective: failed, so not heard." in text.splitlines()
    assert LEFTOVERS.findall(text) == []


@pytest.mark.browser
@needs_chromium
def test_a_download_without_contributions_has_no_table(page: Page) -> None:
    older = {k: v for k, v in debate().items() if k not in ("contributions", "score")}
    text = markdown(page, research(older))
    assert "What the score is made of" not in text
    assert table(text) == []
    assert LEFTOVERS.findall(text) == []


def test_every_new_console_word_is_in_both_languages() -> None:
    source = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    english, chinese = source.split("\n  zh: {\n", 1)
    keys = re.compile(r'^\s+"((?:contrib|md)\.[\w.]+)":', re.MULTILINE)
    assert set(keys.findall(english)) == set(keys.findall(chinese.split("\n};", 1)[0]))
    assert len(keys.findall(english)) >= 20
    used = set(re.findall(r't\("((?:contrib|md)\.[\w.]+)"', (STATIC / "js" / "contributions.js").read_text()))
    used |= {f"contrib.note.{n}" for n in ("market_wide", "events", "no_standing_data", "not_a_family", "other")}
    used |= {"contrib.failed"}
    assert used <= set(keys.findall(english))


def test_the_api_console_cli_and_export_say_the_same_sentence_about_the_confidence(cli: ModuleType) -> None:
    """Issue 52: one meaning of ``verdict.confidence``, said the same way wherever it is shown."""
    schema = Verdict.model_json_schema()
    assert schema["properties"]["confidence"]["description"] == CONFIDENCE_SENTENCE["en"]
    catalogue = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    for language in ("en", "zh"):
        assert json.dumps(CONFIDENCE_SENTENCE[language], ensure_ascii=False) in catalogue
    assert 't("confidence.sentence")' in (STATIC / "js" / "markdown.js").read_text(encoding="utf-8")
    summary = " ".join(cli.format_summary(research(debate())).split())
    assert (
        f"confidence {round(research(debate())['verdict']['confidence'] * 100)} %. {CONFIDENCE_SENTENCE['en']}"
        in summary
    )
    unranked = research(debate(score=None))
    del unranked["verdict"]["score"]
    assert CONFIDENCE_SENTENCE["en"] not in cli.format_summary(unranked)  # no standing: not claimed
