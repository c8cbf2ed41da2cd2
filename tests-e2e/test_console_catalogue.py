"""The console's words (issue 51, item 1): both catalogues of js/i18n.js have the same keys, every key the scripts
name exists, every enum the services send has its word, and the texts the console builds from a payload — the
Markdown download, an outcome, a data gap — are Chinese in the Chinese view (the console's modules run in Chromium
on their own files, no stack)."""

from __future__ import annotations

import itertools
import re
import typing
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from console_browser import STATIC, browser, english_words, needs_chromium, static_page
from playwright.sync_api import Browser, Page

from shared_contracts.coordinator import OutcomeStatus, SessionStatus
from shared_contracts.debate import Direction
from shared_contracts.experts import CatalystAssessment, MacroEnvironment, Signal, ValuationVerdict
from shared_contracts.judge import CONFIDENCE_SENTENCE, Action, TimeHorizon
from shared_contracts.scoring import DailyBar, ExitReason, score_trade

JS = STATIC / "js"
KEY = re.compile(r'^    (?:"([^"]+)"|(\w+)): ', re.MULTILINE)


def catalogue(language: str) -> set[str]:
    source = (JS / "i18n.js").read_text(encoding="utf-8")
    english, rest = source.split("\n  zh: {\n", 1)
    block = english.split("\n  en: {\n", 1)[1] if language == "en" else rest.split("\n  },\n", 1)[0]
    return {quoted or bare for quoted, bare in KEY.findall(block)}


def scripts() -> dict[str, str]:
    return {str(p.relative_to(JS)): p.read_text(encoding="utf-8") for p in JS.rglob("*.js")}


def test_both_catalogues_have_the_same_keys() -> None:
    english, chinese = catalogue("en"), catalogue("zh")
    assert len(english) > 300
    assert sorted(english - chinese) == [], "keys without a Chinese word"
    assert sorted(chinese - english) == [], "keys without an English word"


def test_every_key_the_scripts_name_exists() -> None:
    keys = catalogue("en")
    missing: list[str] = []
    for name, source in scripts().items():
        if name == "i18n.js":
            continue
        named = re.findall(r'\bt\("([^"]+)"', source) + re.findall(r'\bset\("[\w-]+", "([^"]+)"\)', source)
        # Keys named as plain strings: the phrase table's.
        named += re.findall(r'"((?:phrase|item|enum)\.[^"]+)"', source)
        missing += [f"{name}: {key}" for key in named if key not in keys]
        # A key built from a prefix (t(`stage.${state}`)) needs at least one key under that prefix.
        for prefix in re.findall(r"t\(`([\w.]+)\.\$\{", source):
            if not any(key.startswith(f"{prefix}.") for key in keys):
                missing.append(f"{name}: {prefix}.*")
    assert missing == []


def test_every_enum_the_services_send_has_its_word() -> None:
    keys = catalogue("en")
    enums = {v.value for e in (Signal, ValuationVerdict, MacroEnvironment, CatalystAssessment, TimeHorizon) for v in e}
    enums |= set(typing.get_args(Direction)) | set(typing.get_args(ExitReason)) | {"rules", "llm"}
    assert sorted(v for v in enums if f"enum.{v}" not in keys) == []
    assert sorted(a.value for a in Action if f"action.{a.value}" not in keys) == []
    assert sorted(s for s in typing.get_args(SessionStatus) if f"status.{s}" not in keys) == []
    assert sorted(s for s in typing.get_args(OutcomeStatus) if f"outcome.{s}" not in keys) == []


# ------------------------------------------------------------------------ texts built in the browser


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    yield from browser()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    yield from static_page(chromium)


def pending_reason() -> str:
    """The reason the scoring module gives for a verdict on the last bar the data has (its words, not a copy)."""
    bar = DailyBar(date(2025, 9, 30), 1400.0, 1412.0, 1398.0, 1409.52)
    trade = score_trade(
        [bar], entry_day=bar.day, action="HOLD", time_horizon="SHORT_TERM", stop_percent=-5, take_profit_percent=8
    )
    assert trade.status == "pending"
    return trade.reason


GAPS = [
    "only 3 annual periods (asked for 5)",
    "no gross margin in any period",
    "no ROE for 2021, 2022",
    "no PB",
    "no 10-year government bond yield for the earnings-yield comparison",
]


def hold_session(outcome: dict[str, Any]) -> dict[str, Any]:
    level = {"percent_from_entry": -5.0, "price": None, "basis": "atr"}
    return {
        "session_id": "s-1",
        "symbol": "600519.SH",
        "analysis_date": "2025-09-30",
        "status": "completed",
        "experts": ["financial_auditor"],
        "expert_results": {
            "financial_auditor": {
                "status": "success",
                "data": {"signal": "BULLISH", "confidence": 0.7, "summary_reasoning": "稳健。", "data_gaps": GAPS},
            }
        },
        "verdict": {
            "action": "HOLD",
            "position_percent": 0.0,
            "confidence": 0.41,
            "time_horizon": "SHORT_TERM",
            "score": 0.159274,
            "universe_rank": 0.607438,
            "market_exposure": 0.8,
            "stop_loss": level,
            "take_profit": {**level, "percent_from_entry": 8.0},
            "reference_price": 1409.52,
            "reference_date": "2025-09-30",
            "risk_warnings": ["估值偏高"],
            "reasoning": "持有。",
            "entry_strategy": "观望",
        },
        "outcome": outcome,
    }


def markdown(page: Page, session: dict[str, Any], lang: str) -> str:
    script = """async ([session, lang]) => {
        localStorage.setItem("console.lang", lang);
        const { sessionMarkdown } = await import("/js/markdown.js");
        const { levelsOf } = await import("/js/levels.js");
        return sessionMarkdown(session, levelsOf(session.verdict, [], session.analysis_date));
    }"""
    text: str = page.evaluate(script, [session, lang])
    return text


def card(page: Page, session: dict[str, Any], lang: str) -> str:
    """The session page's verdict card for ``session``, as the reader sees its text."""
    script = """async ([session, lang]) => {
        localStorage.setItem("console.lang", lang);
        const { verdictCard } = await import("/js/verdict-card.js");
        const { levelsOf } = await import("/js/levels.js");
        document.body.replaceChildren(verdictCard(session, levelsOf(session.verdict)));
        return document.body.innerText;
    }"""
    text: str = page.evaluate(script, [session, lang])
    return text


@pytest.mark.browser
@needs_chromium
def test_a_sell_card_writes_no_null(page: Page) -> None:
    session = hold_session({})
    session["verdict"] = {**session["verdict"], "action": "SELL", "position_percent": 15.5}
    for lang in ("en", "zh"):
        text = card(page, session, lang)
        assert re.findall(r"\b(?:null|undefined|NaN)\b", text) == [], text
        assert "15.5 %" in text
        assert not re.search(r"^\s*—+\s*$", text, re.MULTILINE), text  # no bare dash where a sentence can say why


@pytest.mark.browser
@needs_chromium
def test_a_verdict_without_a_reference_price_invents_no_levels(page: Page) -> None:
    session = hold_session({})
    session["verdict"] = {**session["verdict"], "action": "BUY", "reference_price": None, "reference_date": None}
    english = markdown(page, session, "en")
    assert "- Entry: No price to act on on the analysis date." in english.splitlines()
    assert "- Stop: −5.0 % from the entry (no price: see the entry)" in english.splitlines()
    assert "分析日期没有可执行的价格" in markdown(page, session, "zh")
    shown = card(page, session, "zh")
    assert "分析日期没有可执行的价格" in shown
    assert re.findall(r"\d+\.\d\d(?! %)", shown.split("入场")[1].split("期限")[0]) == [], shown
    # An older session's levels carry their prices: the entry is the price they were measured from.
    older = {**session["verdict"], "stop_loss": {"percent_from_entry": -5.0, "price": 950.0}}
    assert "- Entry: 1000.00, the reference close" in markdown(page, {**session, "verdict": older}, "en")


@pytest.mark.browser
@needs_chromium
def test_the_chinese_download_of_a_pending_hold_is_chinese_and_has_no_holes(page: Page) -> None:
    pending = {"status": "pending", "reason": pending_reason(), "holding_days": 0}
    text = markdown(page, hold_session(pending), "zh")
    # The confidence sentence is the API's own (shared_contracts.judge.CONFIDENCE_SENTENCE, its Chinese still naming
    # BUY/SELL/HOLD); the download quotes it as it is.
    assert english_words(text.replace(CONFIDENCE_SENTENCE["zh"], ""), ("600519.SH", "s-1")) == []
    assert "结果未定：20 个交易日已过 0 个（数据中尚无下一个开盘价）。" in text
    assert "所有报告期都没有毛利率" in text
    assert "没有毛利率；" in text  # the language's separator, not "; "
    assert "; " not in text.replace(CONFIDENCE_SENTENCE["zh"], "")
    # One entry price (the reference close) and the HOLD's levels measured from it, said to apply only if entering.
    assert "1409.52，2025-09-30 的收盘价" in text
    assert "止损（仅在入场时适用）: 1339.04（距入场价 −5.0 %）" in text
    assert "目标（仅在入场时适用）: 1522.28（距入场价 +8.0 %）" in text
    assert "第 61 百分位" in text
    assert "宏观观点会保留仓位的 80 %；持有不建仓。" in text  # not "keeps 80 %" beside a 0 % position
    assert " — — —" not in text
    assert "None" not in text
    assert "undefined" not in text


@pytest.mark.browser
@needs_chromium
def test_the_english_download_says_the_same_in_english(page: Page) -> None:
    scored = {
        "status": "scored",
        "entry_day": "2025-10-09",
        "exit_day": "2025-11-05",
        "exit_price": 1438.66,
        "exit_reason": "horizon",
        "call_return": None,
        "underlying_return": 0.021,
    }
    text = markdown(page, hold_session(scored), "en")
    hold = "A HOLD takes no trade, so it has no call return; the stock moved 2.1 % from 2025-10-09 to 2025-11-05."
    assert hold in text
    assert "- Stop (if entering): 1339.04 (−5.0 % from the entry)" in text
    assert "- Horizon: short term (20 trading days)" in text
    assert "- Confidence: 41 % (" in text
    assert "- Universe rank: Percentile 61: stronger than 61 % of its reference universe" in text
    assert "no gross margin in any period" in text


@pytest.mark.browser
@needs_chromium
def test_a_verdict_without_market_exposure_says_why(page: Page) -> None:
    session = hold_session({})
    session["verdict"] = {**session["verdict"], "market_exposure": None, "action": "BUY", "position_percent": 12.0}
    assert "- Market exposure: Not set: the macro view was not heard" in markdown(page, session, "en")
    assert "未听取宏观观点" in markdown(page, session, "zh")


@pytest.mark.browser
@needs_chromium
def test_a_live_provider_defaults_to_the_last_weekday(page: Page) -> None:
    days = page.evaluate(
        """async () => {
            const { lastWeekday } = await import("/js/pages/new.js");
            return [new Date(2026, 10, 29), new Date(2026, 10, 28), new Date(2026, 10, 27)].map((d) => lastWeekday(d));
        }"""
    )
    assert days == ["2026-11-27", "2026-11-27", "2026-11-27"]  # Sunday and Saturday fall back to Friday


@pytest.mark.browser
@needs_chromium
def test_a_cancelled_session_says_so_in_both_languages(page: Page) -> None:
    english = markdown(
        page, {**hold_session({}), "verdict": {**hold_session({})["verdict"], "risk_warnings": []}}, "en"
    )
    assert "- Risk warnings: No risk named." in english.splitlines()
    cancelled = {**hold_session({}), "status": "cancelled", "verdict": None, "outcome": None}
    assert "- The research was cancelled: there is no verdict." in markdown(page, cancelled, "en").splitlines()
    assert "- 研究已取消：没有裁决。" in markdown(page, cancelled, "zh").splitlines()
    # An expert the cancel stopped says so, not "Error: —".
    stopped = {**cancelled, "expert_results": {}, "debate": {"status": "pending"}, "judge": {"status": "pending"}}
    english = markdown(page, stopped, "en")
    assert "- Cancelled before it finished." in english.splitlines()
    assert "—" not in english.split("## Experts")[1]
    assert "- 完成前已取消。" in markdown(page, stopped, "zh").splitlines()


@pytest.mark.browser
@needs_chromium
def test_the_stages_a_retry_reruns_are_named_in_words(page: Page) -> None:
    script = """async (lang) => {
        localStorage.setItem("console.lang", lang);
        const { joinNames, stageName } = await import("/js/i18n.js");
        return joinNames(["catalyst_detective", "debate", "judge"].map(stageName));
    }"""
    assert page.evaluate(script, "en") == "Catalyst detective, Debate, Judge"
    assert page.evaluate(script, "zh") == "催化剂侦探、辩论、裁决"


@pytest.mark.browser
@needs_chromium
def test_chart_labels_are_stacked_without_overlap(page: Page) -> None:
    tops = page.evaluate(
        """async () => (await import("/js/chart.js")).placeLabels([100, 104, 98, 300, 330], 18, 320)"""
    )
    spans = sorted((top, top + 18) for top in tops)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), spans
    assert all(0 <= top <= 320 - 18 for top in tops)


@pytest.mark.browser
@needs_chromium
def test_up_is_red_for_a_shares_and_in_chinese_unless_the_reader_chooses(page: Page) -> None:
    script = """async ([lang, chosen, symbol]) => {
        localStorage.setItem("console.lang", lang);
        localStorage.setItem("console.colors", chosen);
        return (await import("/js/colors.js")).upDown(symbol).redUp;
    }"""
    assert page.evaluate(script, ["en", "auto", "600519.SH"]) is True  # an A-share
    assert page.evaluate(script, ["en", "auto", "AAPL"]) is False
    assert page.evaluate(script, ["zh", "auto", "AAPL"]) is True  # the Chinese view
    assert page.evaluate(script, ["zh", "green_up", "600519.SH"]) is False  # the reader's setting wins
    assert page.evaluate(script, ["en", "red_up", "AAPL"]) is True
