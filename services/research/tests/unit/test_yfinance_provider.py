"""YFinanceMarketDataProvider against recorded yfinance responses (tests/fixtures/live/yfinance, see its README)."""

from __future__ import annotations

import json
import sys
import threading
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from research.domain.exceptions import DataProviderError, DataProviderTimeoutError
from research.domain.model.symbol import Symbol
from research.infrastructure.data.live_support import OptionalDependencyMissingError
from research.infrastructure.data.yfinance_provider import YFinanceMarketDataProvider, yahoo_ticker
from shared_contracts.errors import DataUnavailableError, SymbolNotFoundError

TICKER_ATTRIBUTES = ("history", "income_stmt", "balance_sheet", "cashflow", "dividends", "info", "get_news")
"""Every ``yfinance.Ticker`` member the adapter uses."""
RECORDINGS = Path(__file__).resolve().parents[1] / "fixtures" / "live" / "yfinance"
AAPL = Symbol.parse("AAPL")
NEW_YORK = "America/New_York"


def history_recording(name: str) -> pd.DataFrame:
    """``Ticker.history()``: tz-aware DatetimeIndex named Date, OHLCV + Dividends + Stock Splits."""
    frame = pd.read_csv(RECORDINGS / f"{name}_history.csv", index_col="Date")
    frame.index = pd.DatetimeIndex(pd.to_datetime(frame.index, utc=True).tz_convert(NEW_YORK), name="Date")
    return frame


def statement_recording(name: str) -> pd.DataFrame:
    """``Ticker.income_stmt`` & co.: row labels as index, naive period-end Timestamps as columns (newest first)."""
    frame = pd.read_csv(RECORDINGS / f"AAPL_{name}.csv", index_col=0)
    frame.columns = pd.to_datetime(frame.columns)
    return frame.astype(float)


def dividends_recording() -> pd.Series:
    frame = pd.read_csv(RECORDINGS / "AAPL_dividends.csv", index_col="Date")
    index = pd.DatetimeIndex(pd.to_datetime(frame.index, utc=True).tz_convert(NEW_YORK), name="Date")
    return pd.Series(frame["Dividends"].to_numpy(dtype=float), index=index, name="Dividends")


def json_recording(name: str) -> Any:
    return json.loads((RECORDINGS / name).read_text(encoding="utf-8"))


class RecordedTicker:
    """Stands in for ``yfinance.Ticker``: the members the adapter uses, answering with recordings."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self._answers = answers
        self.history_kwargs: dict[str, Any] = {}

    def _answer(self, member: str) -> Any:
        answer = self._answers.get(member)
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer()
        return answer.copy() if hasattr(answer, "copy") else answer

    def history(self, **kwargs: Any) -> pd.DataFrame:
        self.history_kwargs = kwargs
        result = self._answer("history")
        return pd.DataFrame() if result is None else result

    def get_news(self, count: int = 10, tab: str = "news") -> list[dict[str, Any]]:
        return list(self._answer("news") or [])[:count]

    @property
    def income_stmt(self) -> pd.DataFrame:
        return self._answer("income_stmt")

    @property
    def balance_sheet(self) -> pd.DataFrame:
        return self._answer("balance_sheet")

    @property
    def cashflow(self) -> pd.DataFrame:
        return self._answer("cashflow")

    @property
    def dividends(self) -> pd.Series:
        return self._answer("dividends")

    @property
    def info(self) -> dict[str, Any]:
        return self._answer("info")


class RecordedYFinance:
    """Stands in for the yfinance module (a ``Ticker`` factory); unknown tickers answer like Yahoo: empty."""

    def __init__(self, tickers: dict[str, dict[str, Any]]) -> None:
        self.tickers = tickers
        self.requested: list[str] = []
        self.made: list[RecordedTicker] = []

    def Ticker(self, name: str) -> RecordedTicker:  # noqa: N802 - mirrors yfinance.Ticker
        self.requested.append(name)
        ticker = RecordedTicker(self.tickers.get(name, {"history": pd.DataFrame(), "info": {}, "news": []}))
        self.made.append(ticker)
        return ticker


def aapl_answers() -> dict[str, Any]:
    return {
        "history": history_recording("AAPL"),
        "income_stmt": statement_recording("income_stmt"),
        "balance_sheet": statement_recording("balance_sheet"),
        "cashflow": statement_recording("cashflow"),
        "dividends": dividends_recording(),
        "info": json_recording("AAPL_info.json"),
        "news": json_recording("AAPL_news.json"),
    }


def recorded(**overrides: Any) -> RecordedYFinance:
    return RecordedYFinance({"AAPL": aapl_answers() | overrides, "^TNX": {"history": history_recording("TNX")}})


def provider(client: RecordedYFinance | None = None, timeout: float = 5.0) -> YFinanceMarketDataProvider:
    return YFinanceMarketDataProvider(timeout_seconds=timeout, client=client or recorded())


class YFTickerMissingError(Exception):
    """Same name as yfinance's exception family for unknown tickers (the adapter matches on the name)."""


# -- symbols and plumbing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "yahoo"),
    [("AAPL", "AAPL"), ("BRK.B", "BRK-B"), ("0700.HK", "0700.HK"), ("9988.HK", "9988.HK"), ("09988.HK", "9988.HK")],
)
def test_symbols_are_spelled_the_yahoo_way(raw: str, yahoo: str) -> None:
    assert yahoo_ticker(Symbol.parse(raw)) == yahoo


@pytest.mark.parametrize("raw", ["600519.SH", "000001.SZ", "430047.BJ"])
async def test_a_shares_are_not_found_and_point_to_akshare(raw: str) -> None:
    client = recorded()
    with pytest.raises(SymbolNotFoundError, match="AKShare"):
        await provider(client).get_price_history(Symbol.parse(raw))
    assert client.requested == []


async def test_hk_symbols_are_requested_with_the_hk_suffix() -> None:
    client = recorded()
    with pytest.raises(SymbolNotFoundError, match=r"0700\.HK"):
        await provider(client).get_price_history(Symbol.parse("700.HK"))
    assert client.requested == ["0700.HK"]


async def test_yahoo_ticker_missing_error_is_symbol_not_found() -> None:
    client = recorded(history=YFTickerMissingError("$AAPL: possibly delisted; no timezone found"))
    with pytest.raises(SymbolNotFoundError, match="does not know this ticker"):
        await provider(client).get_price_history(AAPL)


async def test_other_library_errors_are_provider_errors() -> None:
    client = recorded(income_stmt=RuntimeError("Too Many Requests. Rate limited. Try after a while."))
    with pytest.raises(DataProviderError, match=r"Ticker\('AAPL'\)\.income_stmt failed.*Rate limited"):
        await provider(client).get_financials(AAPL, limit=4)


async def test_a_call_slower_than_the_timeout_raises_timeout_error() -> None:
    release = threading.Event()

    def blocking() -> dict[str, Any]:
        release.wait(timeout=10)
        return {}

    try:
        with pytest.raises(DataProviderTimeoutError, match=r"Ticker\('AAPL'\)\.info"):
            await provider(recorded(info=blocking), timeout=0.05).get_valuation(AAPL)
    finally:
        release.set()


def test_missing_yfinance_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yfinance", None)  # makes `import yfinance` fail
    with pytest.raises(OptionalDependencyMissingError, match=r"uv sync --package research --extra yfinance"):
        YFinanceMarketDataProvider(timeout_seconds=5.0)


def test_the_ticker_members_the_adapter_uses_exist_in_the_installed_yfinance() -> None:
    yfinance = pytest.importorskip("yfinance", reason="the yfinance extra is not installed (uv sync --extra yfinance)")
    assert [name for name in TICKER_ATTRIBUTES if not hasattr(yfinance.Ticker, name)] == []


# -- bars -----------------------------------------------------------------------------------------------


async def test_bars_are_adjusted_daily_bars_dated_in_exchange_time() -> None:
    client = recorded()
    history = await provider(client).get_price_history(AAPL)

    assert client.made[0].history_kwargs | {"timeout": None} == {
        "period": "max",
        "interval": "1d",
        "auto_adjust": True,
        "timeout": None,
    }
    assert history.adjustment == "adjusted"
    assert len(history.bars) == 25
    last = history.bars[-1]
    assert (last.date, last.open, last.high, last.low, last.close) == (
        date(2025, 8, 14),
        234.055,
        235.12,
        230.85,
        232.78,
    )
    assert last.volume == 51_916_275
    assert last.amount is None  # Yahoo has no turnover


async def test_end_date_keeps_bars_up_to_and_including_it() -> None:
    history = await provider().get_price_history(AAPL, end=date(2025, 8, 11))
    assert history.bars[-1].date == date(2025, 8, 11)


async def test_end_date_before_the_first_bar_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError):
        await provider().get_price_history(AAPL, end=date(2025, 1, 1))


# -- financials -----------------------------------------------------------------------------------------


async def test_annual_statements_map_to_the_domain_with_derived_ratios() -> None:
    statements = await provider().get_financials(AAPL, limit=4)

    assert statements.currency == "USD"
    assert [p.period_end for p in statements.periods] == [date(y, 9, 30) for y in (2021, 2022, 2023, 2024)]
    fy2024 = statements.periods[-1]
    assert (fy2024.revenue, fy2024.net_profit_parent) == (391_035e6, 93_736e6)
    assert fy2024.revenue_yoy_pct == pytest.approx((391_035 / 383_285 - 1) * 100)
    assert fy2024.net_profit_parent_yoy_pct == pytest.approx((93_736 / 96_995 - 1) * 100)
    assert fy2024.roe_pct == pytest.approx(93_736 / ((56_950 + 62_146) / 2) * 100)  # on average equity
    assert fy2024.gross_margin_pct == pytest.approx(180_683 / 391_035 * 100)
    assert fy2024.net_margin_pct == pytest.approx(93_736 / 391_035 * 100)
    assert (fy2024.operating_cash_flow, fy2024.total_assets, fy2024.total_liabilities) == (
        118_254e6,
        364_980e6,
        308_030e6,
    )
    assert (fy2024.accounts_receivable, fy2024.inventory) == (33_410e6, 7_286e6)
    assert fy2024.dividend_total == 15_234e6  # cash paid, sign dropped
    assert fy2024.payout_ratio_pct == pytest.approx(15_234 / 93_736 * 100)
    assert fy2024.dps == pytest.approx(0.24 + 0.24 + 0.25 + 0.25)  # ex-dates within FY2024
    assert statements.periods[1].dps == pytest.approx(0.90)


async def test_first_period_has_no_yoy_and_no_dps_before_the_dividend_series_starts() -> None:
    fy2021 = (await provider().get_financials(AAPL, limit=4)).periods[0]
    assert fy2021.revenue == 365_817e6
    assert (fy2021.revenue_yoy_pct, fy2021.net_profit_parent_yoy_pct, fy2021.roe_pct) == (None, None, None)
    assert fy2021.dps is None  # the recorded dividends begin 2021-11-05, after FY2021 ended
    assert fy2021.year_end_close is None


async def test_growth_is_only_computed_against_the_year_before() -> None:
    fy2022 = pd.Timestamp("2022-09-30")
    answers = {name: statement_recording(name).drop(columns=[fy2022]) for name in ("income_stmt", "balance_sheet")}
    statements = await provider(recorded(**answers)).get_financials(AAPL, limit=4)
    fy2023 = next(p for p in statements.periods if p.period_end.year == 2023)
    assert (fy2023.revenue_yoy_pct, fy2023.roe_pct) == (None, None)  # FY2021 is two years back
    assert statements.periods[-1].revenue_yoy_pct is not None


async def test_the_all_empty_oldest_column_is_dropped_and_limit_keeps_the_latest() -> None:
    statements = await provider().get_financials(AAPL, limit=2)
    assert [p.period_end.year for p in statements.periods] == [2023, 2024]
    everything = await provider().get_financials(AAPL, limit=10)
    assert date(2020, 9, 30) not in [p.period_end for p in everything.periods]


async def test_financial_currency_comes_from_info() -> None:
    info = json_recording("AAPL_info.json") | {"financialCurrency": "CNY", "currency": "HKD"}
    statements = await provider(recorded(info=info)).get_financials(AAPL, limit=1)
    assert statements.currency == "CNY"


async def test_no_income_statement_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError, match="income statement"):
        await provider(recorded(income_stmt=pd.DataFrame())).get_financials(AAPL, limit=4)


# -- valuation ------------------------------------------------------------------------------------------


async def test_valuation_snapshot_from_info_in_percent_units() -> None:
    valuation = await provider().get_valuation(AAPL)

    assert valuation.history == ()
    (snapshot,) = valuation.snapshots
    assert snapshot.as_of == datetime(2025, 8, 14, 20, 0, tzinfo=UTC)
    assert snapshot.close == 232.78
    assert snapshot.pe_ttm == pytest.approx(232.78 / 6.59)
    assert snapshot.dividend_yield_pct == 0.45  # yfinance 1.x: dividendYield is already in percent
    assert (snapshot.pb, snapshot.total_mv) == (None, None)  # absent from the recording


async def test_trailing_dividend_yield_fraction_is_converted_to_percent() -> None:
    info = {k: v for k, v in json_recording("AAPL_info.json").items() if k != "dividendYield"}
    info["trailingAnnualDividendYield"] = 0.0044
    valuation = await provider(recorded(info=info)).get_valuation(AAPL)
    assert valuation.snapshots[0].dividend_yield_pct == pytest.approx(0.44)


async def test_an_empty_info_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError, match="no quote"):
        await provider(recorded(info={})).get_valuation(AAPL)


# -- macro ----------------------------------------------------------------------------------------------


async def test_us_macro_is_the_10_year_treasury_yield() -> None:
    client = recorded()
    macro = await provider(client).get_macro(AAPL)

    assert client.requested == ["^TNX"]
    assert macro.region == "US"
    series = macro.series["ust_10y_yield"]
    assert (series.unit, series.frequency) == ("pct", "daily")
    assert [(o.date, o.value) for o in series.observations] == [
        (date(2024, 12, 31), 4.58),
        (date(2025, 6, 30), 4.24),
        (date(2025, 7, 31), 4.37),
    ]


async def test_hk_macro_is_data_unavailable() -> None:
    client = recorded()
    with pytest.raises(DataUnavailableError, match="no macro series for HK"):
        await provider(client).get_macro(Symbol.parse("0700.HK"))
    assert client.requested == []


# -- news -----------------------------------------------------------------------------------------------


async def test_news_reads_nested_and_legacy_items_newest_first() -> None:
    news = await provider().get_news(AAPL, limit=10)

    assert [n.published_at for n in news] == [
        datetime(2025, 7, 31, 20, 31, tzinfo=UTC),
        datetime(2025, 7, 31, 20, 30, tzinfo=UTC),
        datetime(2025, 5, 1, 20, 30, tzinfo=UTC),
    ]
    dividend, results, legacy = news
    assert dividend.summary.startswith("The dividend is payable")  # empty summary → description
    assert dividend.url == "https://www.apple.com/newsroom/2025/07/apple-reports-third-quarter-results/"  # clickThrough
    assert (results.title, results.source) == ("Apple reports third quarter results", "Apple Newsroom")
    assert results.url == "https://www.apple.com/newsroom/2025/07/apple-reports-third-quarter-results/"
    assert (legacy.title, legacy.source) == ("Apple reports second quarter results", "Apple Newsroom")
    assert legacy.url == "https://www.apple.com/newsroom/2025/05/apple-reports-second-quarter-results/"


async def test_news_asks_yahoo_for_limit_items() -> None:
    assert len(await provider().get_news(AAPL, limit=1)) == 1


async def test_news_items_without_title_are_skipped() -> None:
    items = json_recording("AAPL_news.json")
    items[2]["title"] = ""
    news = await provider(recorded(news=items)).get_news(AAPL, limit=10)
    assert [n.published_at.date() for n in news] == [date(2025, 7, 31), date(2025, 7, 31)]


async def test_live_providers_are_open_ended() -> None:
    assert await provider().available_symbols() is None
