"""The numbers gate: which figures are claims, how they trace to a call's input, what each policy does."""

from __future__ import annotations

import re
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, StringConstraints

from service_kit.llm.numbers.claims import extract_claims
from service_kit.llm.numbers.gate import MARK, NumbersGate, check_texts, plain_text
from service_kit.llm.numbers.sources import sources_from
from shared_contracts.errors import LLMOutputParseError

FACTS = (
    '{"as_of": "2024-06-28", "close": 1417.03, "change_1d_pct": -1.55, "ma20": 1480.0335, "pe_ttm": 21.97, '
    '"roe": 0.3419, "revenue": 150560330316.45, "total_mv": 1808279321178.0, "support": [1378.0647, 1365.55]}'
)


class Answer(BaseModel):
    signal: Literal["BUY", "SELL", "HOLD"]
    confidence: float
    summary: str
    risks: list[str]


def kinds(text: str) -> list[tuple[str, str]]:
    return [(c.text, c.kind) for c in extract_claims("f", text)]


def unverified(text: str, **kwargs: object) -> list[str]:
    found = check_texts({"f": text}, sources_from([FACTS]), **kwargs)  # type: ignore[arg-type]
    return [c.text for c in found.unverified]


def test_claims_are_measurements_and_counts_windows_codes_ordinals_are_told_apart() -> None:
    assert kinds("PE 21.97倍，ROE 34.2%，营收１５０５．６亿元，HK$120–130") == [
        ("21.97倍", "multiple"),
        ("34.2%", "percent"),
        ("１５０５．６亿元", "amount"),
        ("HK$120", "amount"),
        ("130", "amount"),
    ]
    assert kinds("MA20 与 RSI14、600519.SH、T+1、Q3、第3名、3rd") == []
    assert kinds("1. 近20日 3 个风险；5 experts, a 20-day window") == [
        ("20", "window"),
        ("3", "count"),
        ("5", "count"),
        ("20", "window"),
    ]
    assert [c.date for c in extract_claims("f", "截至 2024-06-28、2024年6月28日、June 28, 2024 与 2023年")] == [
        (2024, 6, 28),
        (2024, 6, 28),
        (2024, 6, 28),
        (2023, None, None),
    ]


def test_true_figures_trace_in_their_usual_spellings() -> None:
    text = (
        "2024年6月28日收盘价 1,417.03 元（约 1417），当日下跌 1.55%，MA20 1,480.0，PE 22 倍，ROE 34.2%，"
        "营收 1,505.6亿元，总市值约 1.81万亿元，支撑 1,365.55–1,378.06；3 个风险"
    )
    assert unverified(text) == []


def test_untraceable_figures_are_flagged() -> None:
    assert unverified("收盘价 1,380.50 元") == ["1,380.50"]  # another day's close
    assert unverified("PE 为 18.5倍") == ["18.5倍"]  # another stock's PE
    assert unverified("营收 1,505.6万元") == ["1,505.6万元"]  # a wrong unit
    assert unverified("毛利率 47.3%") == ["47.3%"]  # an invented percentage
    assert unverified("当日上涨 1.55%") == ["1.55%"]  # the sign of a change
    assert unverified("截至 2024-06-21") == ["2024-06-21"]  # another day
    assert unverified("ROE 1417.03%") == ["1417.03%"]  # a price is no percentage


def test_stop_target_and_position_quoted_must_equal_the_structured_ones() -> None:
    levels = {"stop": [5.0, 1346.18], "take": [12.0, 1587.07], "position": [20.0]}
    ok = "止损 1,346.18 元（5%），止盈 1,587.07，仓位 20%"
    assert unverified(ok, levels=levels) == []
    assert unverified("stop-loss at 1,365.55, position 30%", levels=levels) == ["1,365.55", "30%"]


def test_markup_is_removed() -> None:
    assert plain_text("buy <script>alert(1)</script>now [here](javascript:x) <b>BUY</b>") == "buy alert(1)now here BUY"


@pytest.mark.parametrize(
    "forged",
    [
        "<scr<script>ipt>alert(1)</scr</script>ipt>",
        '<iframe srcdoc="<script>parent.x=1</script>"></iframe>',
        "<<script>script>alert(1)<</script>/script>",
        "[[x](y)](javajavascript:script:alert(1))",
        "<img src=x onerror=alert(1) " + "a" * 600 + ">",  # longer than a tag the pattern removes
        "<svg/onload=alert(1)",  # never closed
        "<!<!-- -->-- x -->",
    ],
)
def test_markup_is_removed_to_a_fixed_point_and_no_tag_opener_is_left(forged: str) -> None:
    cleaned = plain_text(f"Momentum holds. {forged} End.")
    assert re.search(r"<[A-Za-z/!?]", cleaned) is None, cleaned
    assert "javascript:" not in cleaned.lower()
    assert plain_text(cleaned) == cleaned  # a second pass finds nothing
    assert cleaned.startswith("Momentum holds.")
    assert cleaned.endswith("End.")


def test_text_with_comparisons_keeps_its_words() -> None:
    assert plain_text("PE < 20 and ROE > 15%; 1<2") == "PE < 20 and ROE > 15%; 1<2"


async def test_a_verdicts_reasoning_and_risks_leave_the_gate_without_a_tag() -> None:
    async def never(_: str) -> Answer:
        raise AssertionError("no second call")

    first = Answer(
        signal="BUY",
        confidence=0.7,
        summary="Hold on. <scr<script>ipt>alert(1)</scr</script>ipt>",
        risks=['<iframe srcdoc="<script>alert(2)</script>">'],
    )
    answer, _ = await NumbersGate("mark").review(first, sources_from([FACTS]), never)
    for text in [answer.summary, *answer.risks]:
        assert re.search(r"<[A-Za-z/!?]", text) is None, text


async def test_repair_asks_once_and_takes_only_the_texts() -> None:
    asked: list[str] = []

    async def ask_again(instruction: str) -> Answer:
        asked.append(instruction)
        return Answer(signal="SELL", confidence=0.1, summary="收盘价 1,417.03 元", risks=["毛利率 47.3%"])

    first = Answer(signal="BUY", confidence=0.7, summary="收盘价 1,380.50 元", risks=["毛利率 47.3%"])
    answer, check = await NumbersGate("repair").review(first, sources_from([FACTS]), ask_again)
    assert len(asked) == 1
    assert "1,380.50" in asked[0]
    assert "47.3%" in asked[0]
    assert (answer.signal, answer.confidence) == ("BUY", 0.7)  # the structured answer is the first one's
    assert answer.summary == "收盘价 1,417.03 元"
    assert answer.risks == [f"毛利率 47.3%{MARK}"]  # still untraceable after the repair: marked
    assert check.repaired
    assert check.checked == 2
    assert check.traced == 1
    assert [(f.field, f.text, f.value) for f in check.unverified] == [("risks[0]", "47.3%", 47.3)]


async def test_mark_keeps_the_answer_and_reject_refuses_it() -> None:
    async def never(_: str) -> Answer:
        raise AssertionError("no second call")

    first = Answer(signal="BUY", confidence=0.7, summary="PE 为 18.5倍", risks=[])
    marked, check = await NumbersGate("mark").review(first, sources_from([FACTS]), never)
    assert marked.summary == f"PE 为 18.5倍{MARK}"
    assert not check.repaired
    assert len(check.unverified) == 1
    with pytest.raises(LLMOutputParseError) as refused:
        await NumbersGate("reject").review(first, sources_from([FACTS]), never)
    assert refused.value.code == "llm_output_invalid"
    assert "18.5倍" in str(refused.value)
    clean = Answer(signal="BUY", confidence=0.7, summary="PE 21.97", risks=[])
    same, check = await NumbersGate("reject").review(clean, sources_from([FACTS]), never)
    assert same == clean
    assert check.checked == check.traced == 1


class Dated(BaseModel):
    summary: str
    date: Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")] | None = None


async def test_a_text_its_field_refuses_once_marked_stays_as_it_was_and_is_listed() -> None:
    async def never(_: str) -> Dated:
        raise AssertionError("no second call")

    answer = Dated(summary="截至 2024-06-21", date="2024-06-21")
    marked, check = await NumbersGate("mark").review(answer, sources_from([FACTS]), never)
    assert marked.date == "2024-06-21"
    assert marked.summary == f"截至 2024-06-21{MARK}"
    assert [f.field for f in check.unverified] == ["summary", "date"]
