"""research.application.data_notes: each data note the experts write, in the research's language."""

from __future__ import annotations

import re

import pytest

from research.application.data_notes import in_language, missing_series, notes_in

CJK = re.compile(r"[\u3400-\u9fff]")
NOTES = [
    "only 180 bars: no MA250 and a 52-week range over 180 bars",
    "only 3 annual periods (asked for 5)",
    "no gross margin in any period",
    "no operating cash flow for 2020, 2021",
    "net profit attributable to the parent is not reported; total net profit is used",
    "no PE percentile: no valuation history",
    "no PB",
    "dividend yield sources disagree: a 1.2%, b 2.5%",
    "no news from offline-snapshot",
    "the latest bar is 2025-09-30, 303 weekdays before the analysis date 2026-11-29: offline-snapshot has nothing "
    "newer",
    "the valuation snapshot is of 2025-06-30, 92 days before 2025-09-30",
    "macro series not updated recently on 2025-09-30: lpr_1y 2025-01-20",
]


@pytest.mark.parametrize("note", NOTES)
def test_every_known_note_has_its_chinese_sentence_with_its_figures(note: str) -> None:
    chinese = in_language(note, "zh")
    assert CJK.search(chinese), chinese
    assert sorted(re.findall(r"\d{2,}", note)) == sorted(re.findall(r"\d{2,}", chinese))  # the same figures
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", chinese)  # a series key is named in Chinese


def test_english_notes_and_unknown_notes_stay_as_written() -> None:
    assert notes_in(NOTES, "en") == NOTES
    assert in_language("a note nobody wrote a pattern for", "zh") == "a note nobody wrote a pattern for"


def test_a_missing_macro_series_is_named_in_the_language() -> None:
    assert missing_series(["cgb_10y_yield", "lpr_1y"], "en") == [
        "no 10-year government bond yield series",
        "no 1-year LPR series",
    ]
    assert missing_series(["cgb_10y_yield", "lpr_1y"], "zh") == ["无10年期国债收益率序列", "无1年期LPR序列"]
