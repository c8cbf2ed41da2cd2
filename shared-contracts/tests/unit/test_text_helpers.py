"""shared_contracts.text and shared_contracts.reference_price: shortening to whole sentences, prices at the
reference's precision, the no-risk sentence, and when a close prices a research."""

from __future__ import annotations

from datetime import date

import pytest

from shared_contracts.reference_price import REFERENCE_STALE_WEEKDAYS, prices_the_date, weekdays_between
from shared_contracts.text import (
    NO_SPECIFIC_RISK,
    at_tick,
    format_price,
    is_no_risk_statement,
    shorten,
    tick_decimals,
)


def test_a_text_that_fits_is_kept_on_one_line() -> None:
    assert shorten("  close 12.5\n above  MA20 ", 40) == "close 12.5 above MA20"


def test_a_long_text_keeps_its_leading_whole_sentences() -> None:
    text = "The backdrop is favorable: PMI 50.90, trend falling. CPI 1.30 is low. Rates are 1.87% and rising."
    cut = shorten(text, 70)
    assert cut == "The backdrop is favorable: PMI 50.90, trend falling. CPI 1.30 is low."
    assert len(cut) <= 70


def test_a_decimal_point_is_not_a_sentence_end() -> None:
    assert shorten("ROE 21.81 and margin 16.71. And more words here", 30) == "ROE 21.81 and margin 16.71."


def test_a_first_sentence_longer_than_the_limit_is_kept_whole() -> None:
    text = "ROE 21.81 and margin 16.71 and more words here, no end in sight"
    assert shorten(text, 20) == text


def test_chinese_text_keeps_whole_sentences_and_ends_with_a_full_stop() -> None:
    text = "营收同比 25.60%、净利润同比 36.27%（2018-12-31）；区间营收复合增速 24.97%；ROE 21.81%"
    assert shorten(text, 40) == "营收同比 25.60%、净利润同比 36.27%（2018-12-31）。"


def test_a_sentence_end_inside_a_quotation_is_not_a_cut() -> None:
    text = "甲看多与乙看空相互矛盾：「按池内位置投票。贡献 +0.05。」对「估值偏高。」。其余分歧从略。再补一句。"
    assert shorten(text, 40) == "甲看多与乙看空相互矛盾：「按池内位置投票。贡献 +0.05。」对「估值偏高。」。"
    assert shorten('He said "it holds. really." Then more. And more.', 30) == 'He said "it holds. really." Then more.'


@pytest.mark.parametrize(
    ("value", "reference", "written"),
    [(1492.3141, 1492.31, "1492.31"), (3.4567, 3.456, "3.457"), (117000.5, None, "117000.50"), (30.0, 1500.0, "30.00")],
)
def test_a_price_is_written_at_the_reference_precision(value: float, reference: float | None, written: str) -> None:
    assert format_price(value, reference) == written


def test_the_no_risk_sentence_is_recognised_in_either_language() -> None:
    assert all(is_no_risk_statement(sentence) for sentence in NO_SPECIFIC_RISK.values())
    assert is_no_risk_statement(f" {NO_SPECIFIC_RISK['en']}. ")
    assert not is_no_risk_statement("high volatility: ATR14 is 4.2% of the close")


def test_a_close_prices_its_day_and_the_ten_weekdays_after_it() -> None:
    close = date(2025, 9, 30)  # a Tuesday
    assert weekdays_between(close, date(2025, 10, 14)) == REFERENCE_STALE_WEEKDAYS
    assert prices_the_date(close, close)
    assert prices_the_date(close, date(2025, 10, 14))
    assert not prices_the_date(close, date(2025, 10, 15))
    assert not prices_the_date(close, date(2025, 9, 29))  # a close after the analysis date never does


@pytest.mark.parametrize(
    ("symbol", "close", "quoted"),
    [
        ("600519.SH", 1409.5237, 1409.52),
        ("300750.SZ", 12.345, 12.35),
        ("0700.HK", 385.266, 385.27),
        ("1234.HK", 0.1234, 0.123),
        ("AAPL", 205.1749, 205.17),
        ("PENNY", 0.51237, 0.5124),
    ],
)
def test_a_price_is_quoted_at_its_markets_tick(symbol: str, close: float, quoted: float) -> None:
    assert at_tick(symbol, close) == quoted
    assert format_price(at_tick(symbol, close), at_tick(symbol, close)) == f"{quoted:.{tick_decimals(symbol, close)}f}"
