"""AkshareMarketDataProvider against recorded akshare responses (tests/fixtures/live/akshare, see its README)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from research.domain.exceptions import DataProviderError, DataProviderTimeoutError
from research.domain.model.symbol import Symbol
from research.infrastructure.data.akshare_provider import AkshareMarketDataProvider
from research.infrastructure.data.live_support import OptionalDependencyMissingError
from shared_contracts.errors import DataUnavailableError, SymbolNotFoundError

AKSHARE_FUNCTIONS = (
    "stock_zh_a_hist",
    "stock_financial_analysis_indicator_em",
    "stock_balance_sheet_by_yearly_em",
    "stock_cash_flow_sheet_by_yearly_em",
    "stock_fhps_detail_em",
    "stock_value_em",
    "macro_china_cpi",
    "macro_china_ppi",
    "macro_china_money_supply",
    "macro_china_pmi",
    "macro_china_lpr",
    "bond_zh_us_rate",
    "macro_china_consumer_goods_retail",
    "stock_news_em",
)
"""Every akshare function the adapter calls (the module docstring lists them with their columns)."""
MACRO_FUNCTIONS = tuple(name for name in AKSHARE_FUNCTIONS if name.startswith("macro_") or name == "bond_zh_us_rate")
RECORDINGS = Path(__file__).resolve().parents[1] / "fixtures" / "live" / "akshare"
MOUTAI = Symbol.parse("600519.SH")

# Post-parse conversions akshare applies, per recording (read from the akshare 1.19.5 source).
_DATE_COLUMNS = {
    "stock_zh_a_hist": ("日期",),
    "stock_value_em": ("数据日期",),
    "stock_fhps_detail_em": ("报告期", "业绩披露日期", "预案公告日", "股权登记日", "除权除息日", "最新公告日期"),
    "macro_china_lpr": ("TRADE_DATE",),
    "bond_zh_us_rate": ("日期",),
}
_TEXT_COLUMNS = {"stock_zh_a_hist": {"股票代码": str}, "stock_news_em": {"关键词": str}}


def recording(function: str, key: str | None = None) -> pd.DataFrame:
    """A recorded response, as the akshare function returns it."""
    stem = f"{function}_{key}" if key else function
    if (RECORDINGS / f"{stem}.json").exists():  # the *_em statements return Eastmoney's JSON rows unchanged
        return pd.DataFrame(json.loads((RECORDINGS / f"{stem}.json").read_text(encoding="utf-8")))
    frame = pd.read_csv(RECORDINGS / f"{stem}.csv", dtype=_TEXT_COLUMNS.get(function))
    for column in _DATE_COLUMNS.get(function, ()):
        frame[column] = pd.to_datetime(frame[column], errors="coerce").dt.date
    return frame


Response = pd.DataFrame | BaseException | Callable[..., pd.DataFrame]


class RecordedAkshare:
    """Stands in for the akshare module: each function answers with its recording and logs its arguments."""

    def __init__(self, responses: dict[str, Response]) -> None:
        self.responses = responses
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, function: str) -> Callable[..., pd.DataFrame]:
        if function not in self.responses:
            raise AttributeError(function)

        def call(**kwargs: Any) -> pd.DataFrame:
            self.calls.append((function, kwargs))
            response = self.responses[function]
            if isinstance(response, BaseException):
                raise response
            if callable(response) and not isinstance(response, pd.DataFrame):
                return response(**kwargs)
            return response.copy()

        return call

    def kwargs_of(self, function: str) -> dict[str, Any]:
        return next(kwargs for name, kwargs in self.calls if name == function)


def moutai_responses() -> dict[str, Response]:
    return {
        "stock_zh_a_hist": recording("stock_zh_a_hist", "600519"),
        "stock_financial_analysis_indicator_em": recording("stock_financial_analysis_indicator_em", "600519.SH"),
        "stock_balance_sheet_by_yearly_em": recording("stock_balance_sheet_by_yearly_em", "SH600519"),
        "stock_cash_flow_sheet_by_yearly_em": recording("stock_cash_flow_sheet_by_yearly_em", "SH600519"),
        "stock_fhps_detail_em": recording("stock_fhps_detail_em", "600519"),
        "stock_value_em": recording("stock_value_em", "600519"),
        "stock_news_em": recording("stock_news_em", "600519"),
        **{name: recording(name) for name in MACRO_FUNCTIONS},
    }


def provider(responses: dict[str, Response] | None = None, timeout: float = 5.0) -> AkshareMarketDataProvider:
    return AkshareMarketDataProvider(timeout_seconds=timeout, client=RecordedAkshare(responses or moutai_responses()))


# -- routing and plumbing -------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["AAPL", "0700.HK"])
@pytest.mark.parametrize(
    "method",
    [
        lambda p, s: p.get_price_history(s),
        lambda p, s: p.get_financials(s, 3),
        lambda p, s: p.get_valuation(s),
        lambda p, s: p.get_macro(s),
        lambda p, s: p.get_news(s),
    ],
    ids=["bars", "financials", "valuation", "macro", "news"],
)
async def test_non_a_share_symbols_are_not_found_and_point_to_yfinance(raw: str, method: Any) -> None:
    client = RecordedAkshare(moutai_responses())
    with pytest.raises(SymbolNotFoundError, match="yfinance"):
        await method(AkshareMarketDataProvider(5.0, client=client), Symbol.parse(raw))
    assert client.calls == []


async def test_library_exception_becomes_a_readable_provider_error() -> None:
    responses = moutai_responses() | {"stock_zh_a_hist": ConnectionError("Max retries exceeded with url: push2his")}
    with pytest.raises(DataProviderError, match=r"stock_zh_a_hist\(symbol='600519'.*ConnectionError.*push2his"):
        await provider(responses).get_price_history(MOUTAI)


async def test_a_call_slower_than_the_timeout_raises_timeout_error() -> None:
    release = threading.Event()

    def blocking(**_: Any) -> pd.DataFrame:
        release.wait(timeout=10)
        return recording("stock_zh_a_hist", "600519")

    try:
        with pytest.raises(DataProviderTimeoutError, match="stock_zh_a_hist"):
            await provider(moutai_responses() | {"stock_zh_a_hist": blocking}, timeout=0.05).get_price_history(MOUTAI)
    finally:
        release.set()


def test_missing_akshare_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "akshare", None)  # makes `import akshare` fail
    with pytest.raises(OptionalDependencyMissingError, match=r"uv sync --package research --extra akshare"):
        AkshareMarketDataProvider(timeout_seconds=5.0)


def test_the_functions_the_adapter_calls_exist_in_the_installed_akshare() -> None:
    akshare = pytest.importorskip("akshare", reason="the akshare extra is not installed (uv sync --extra akshare)")
    assert [name for name in AKSHARE_FUNCTIONS if not callable(getattr(akshare, name, None))] == []


# -- bars -----------------------------------------------------------------------------------------------


async def test_bars_are_forward_adjusted_with_volume_in_shares() -> None:
    client = RecordedAkshare(moutai_responses())
    history = await AkshareMarketDataProvider(5.0, client=client).get_price_history(MOUTAI)

    assert client.kwargs_of("stock_zh_a_hist") | {"timeout": None} == {
        "symbol": "600519",
        "period": "daily",
        "start_date": "19700101",
        "end_date": "20500101",
        "adjust": "qfq",
        "timeout": None,
    }
    assert history.adjustment == "qfq"
    assert [b.date for b in history.bars][:2] == [date(2025, 9, 19), date(2025, 9, 22)]
    last = history.bars[-1]
    assert (last.date, last.open, last.high, last.low, last.close) == (
        date(2025, 9, 30),
        1460.0,
        1460.76,
        1440.0,
        1443.99,
    )
    assert last.volume == pytest.approx(3_936_362)  # 39,363.62 lots of 100 shares
    assert last.amount is None  # the recording has no 成交额


async def test_turnover_is_kept_in_yuan() -> None:
    responses = moutai_responses() | {"stock_zh_a_hist": recording("stock_zh_a_hist", "300750")}
    history = await provider(responses).get_price_history(Symbol.parse("300750.SZ"))
    assert history.bars[-1].amount == 15_640_548_986
    assert history.bars[-1].volume == pytest.approx(50_897_473)


async def test_end_date_keeps_bars_up_to_and_including_it() -> None:
    history = await provider().get_price_history(MOUTAI, end=date(2025, 9, 25))
    assert history.bars[-1].date == date(2025, 9, 25)
    assert len(history.bars) == 5


async def test_end_date_before_the_first_bar_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError, match="on or before 2020-01-01"):
        await provider().get_price_history(MOUTAI, end=date(2020, 1, 1))


async def test_empty_bars_mean_an_unknown_symbol() -> None:
    responses = moutai_responses() | {"stock_zh_a_hist": pd.DataFrame()}
    with pytest.raises(SymbolNotFoundError, match=r"999999\.SH"):
        await provider(responses).get_price_history(Symbol.parse("999999.SH"))


async def test_an_incomplete_bar_is_dropped_not_patched() -> None:
    frame = recording("stock_zh_a_hist", "600519")
    frame.loc[frame["日期"] == date(2025, 9, 26), "收盘"] = float("nan")
    history = await provider(moutai_responses() | {"stock_zh_a_hist": frame}).get_price_history(MOUTAI)
    assert date(2025, 9, 26) not in [b.date for b in history.bars]
    assert len(history.bars) == 7


# -- financials -----------------------------------------------------------------------------------------


async def test_annual_financials_map_eastmoney_columns_with_units() -> None:
    client = RecordedAkshare(moutai_responses())
    statements = await AkshareMarketDataProvider(5.0, client=client).get_financials(MOUTAI, limit=3)

    assert client.kwargs_of("stock_financial_analysis_indicator_em") == {"symbol": "600519.SH", "indicator": "按报告期"}
    assert client.kwargs_of("stock_balance_sheet_by_yearly_em") == {"symbol": "SH600519"}
    assert client.kwargs_of("stock_cash_flow_sheet_by_yearly_em") == {"symbol": "SH600519"}
    assert client.kwargs_of("stock_fhps_detail_em") == {"symbol": "600519"}
    assert statements.currency == "CNY"
    assert [p.period_end for p in statements.periods] == [date(2022, 12, 31), date(2023, 12, 31), date(2024, 12, 31)]
    fy2024 = statements.periods[-1]
    assert fy2024.revenue == 174_144_069_958.25
    assert fy2024.net_profit_parent == 86_228_146_421.62
    assert (fy2024.revenue_yoy_pct, fy2024.net_profit_parent_yoy_pct) == (15.66, 15.38)
    assert (fy2024.roe_pct, fy2024.gross_margin_pct, fy2024.net_margin_pct) == (36.02, 91.93, 52.27)
    assert fy2024.operating_cash_flow == 92_463_692_168.43
    assert (fy2024.total_assets, fy2024.total_liabilities) == (298_944_579_918.7, 56_933_264_798.1)
    assert (fy2024.accounts_receivable, fy2024.inventory) == (18_974_192.75, 54_343_285_157.47)
    # interim 23.882 + final 27.673 CNY per share, paid on 1,256,197,800 shares
    assert fy2024.dps == pytest.approx(51.555)
    assert fy2024.dividend_total == pytest.approx(51.555 * 1_256_197_800)
    assert fy2024.payout_ratio_pct == pytest.approx(75.1, abs=0.05)
    assert statements.periods[1].dps == pytest.approx(30.876)
    assert fy2024.net_profit_total is None
    assert fy2024.year_end_close is None


async def test_interim_reports_are_not_annual_periods() -> None:
    statements = await provider().get_financials(MOUTAI, limit=10)
    assert [p.period_end.year for p in statements.periods] == [2021, 2022, 2023, 2024]
    assert all((p.period_end.month, p.period_end.day) == (12, 31) for p in statements.periods)


async def test_figures_missing_from_the_source_are_none() -> None:
    fy2021 = (await provider().get_financials(MOUTAI, limit=4)).periods[0]
    assert fy2021.revenue == 109_464_000_000
    assert (fy2021.total_assets, fy2021.operating_cash_flow, fy2021.inventory) == (None, None, None)
    assert (fy2021.dps, fy2021.dividend_total, fy2021.payout_ratio_pct) == (None, None, None)


async def test_a_failed_dividend_call_leaves_only_the_dividend_figures_empty() -> None:
    responses = moutai_responses() | {"stock_fhps_detail_em": TypeError("'NoneType' object is not subscriptable")}
    fy2024 = (await provider(responses).get_financials(MOUTAI, limit=1)).periods[0]
    assert (fy2024.dps, fy2024.dividend_total, fy2024.payout_ratio_pct) == (None, None, None)
    assert fy2024.revenue == 174_144_069_958.25


async def test_a_failed_statement_call_fails_the_request() -> None:
    responses = moutai_responses() | {"stock_cash_flow_sheet_by_yearly_em": KeyError("data")}
    with pytest.raises(DataProviderError, match="stock_cash_flow_sheet_by_yearly_em"):
        await provider(responses).get_financials(MOUTAI, limit=3)


async def test_no_financial_indicators_is_data_unavailable() -> None:
    responses = moutai_responses() | {"stock_financial_analysis_indicator_em": pd.DataFrame()}
    with pytest.raises(DataUnavailableError, match="financial indicators"):
        await provider(responses).get_financials(MOUTAI, limit=3)


# -- valuation ------------------------------------------------------------------------------------------


async def test_valuation_history_and_latest_snapshot() -> None:
    client = RecordedAkshare(moutai_responses())
    valuation = await AkshareMarketDataProvider(5.0, client=client).get_valuation(MOUTAI)

    assert client.kwargs_of("stock_value_em") == {"symbol": "600519"}
    assert [p.date for p in valuation.history] == [date(2025, 9, d) for d in (24, 25, 26, 29, 30)]
    assert valuation.history[0].pe_ttm == 20.1416
    assert all(p.pb is None for p in valuation.history)  # 市净率 is empty in the recording
    (snapshot,) = valuation.snapshots
    assert snapshot.as_of == datetime(2025, 9, 30, 15, 0, tzinfo=timezone(timedelta(hours=8)))
    assert (snapshot.close, snapshot.pe_ttm) == (1443.99, valuation.history[-1].pe_ttm)
    assert snapshot.total_mv == pytest.approx(1443.99 * 1_256_197_800)
    # cash paid with an ex-date in the trailing year: 23.882 (2024-12-20) + 27.673 (2025-06-26)
    assert snapshot.dividend_yield_pct == pytest.approx(51.555 / 1443.99 * 100, abs=1e-4)
    assert snapshot.pe_ttm_percentile is None  # the experts compute it from the history


async def test_without_dividend_data_the_yield_is_none_not_zero() -> None:
    responses = moutai_responses() | {"stock_fhps_detail_em": TypeError("'NoneType' object is not subscriptable")}
    valuation = await provider(responses).get_valuation(MOUTAI)
    assert valuation.snapshots[0].dividend_yield_pct is None
    assert valuation.snapshots[0].pe_ttm is not None


async def test_no_valuation_rows_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError, match="valuation"):
        await provider(moutai_responses() | {"stock_value_em": pd.DataFrame()}).get_valuation(MOUTAI)


# -- macro ----------------------------------------------------------------------------------------------


async def test_china_macro_series_use_the_snapshot_names_and_units() -> None:
    client = RecordedAkshare(moutai_responses())
    macro = await AkshareMarketDataProvider(5.0, client=client).get_macro(MOUTAI)

    assert macro.region == "CN"
    assert set(macro.series) == {
        "cpi_yoy",
        "ppi_yoy",
        "m2_yoy",
        "pmi_manufacturing_nbs",
        "pmi_non_manufacturing_nbs",
        "lpr_1y",
        "lpr_5y",
        "cgb_10y_yield",
        "retail_sales_yoy",
    }
    cpi = macro.series["cpi_yoy"]
    assert (cpi.unit, cpi.frequency, cpi.source) == ("pct", "monthly", "akshare:macro_china_cpi")
    assert (cpi.observations[-1].date, cpi.observations[-1].value) == (date(2026, 7, 1), 0.5)
    assert [o.date for o in cpi.observations] == sorted(o.date for o in cpi.observations)  # oldest first
    assert macro.series["pmi_manufacturing_nbs"].unit == "index"
    assert macro.series["pmi_manufacturing_nbs"].observations[-1].value == 49.2
    assert macro.series["pmi_non_manufacturing_nbs"].observations[-1].value == 49.0
    assert macro.series["lpr_5y"].observations[-1].value == 3.5
    assert macro.series["lpr_1y"].frequency == "fixing_date"
    cgb = macro.series["cgb_10y_yield"]
    assert (cgb.observations[-1].date, cgb.observations[-1].value) == (date(2026, 7, 31), 1.715)
    assert client.kwargs_of("bond_zh_us_rate")["start_date"].isdigit()
    assert sum(1 for name, _ in client.calls if name == "macro_china_pmi") == 1  # one call feeds both PMIs


async def test_one_failing_macro_source_leaves_the_others() -> None:
    responses = moutai_responses() | {"macro_china_ppi": ValueError("Length mismatch")}
    macro = await provider(responses).get_macro(MOUTAI)
    assert "ppi_yoy" not in macro.series
    assert "cpi_yoy" in macro.series


async def test_all_macro_sources_failing_is_a_provider_error() -> None:
    broken = ConnectionError("unreachable")
    responses = moutai_responses() | dict.fromkeys(MACRO_FUNCTIONS, broken)
    with pytest.raises(DataProviderError, match="unreachable"):
        await provider(responses).get_macro(MOUTAI)


# -- news -----------------------------------------------------------------------------------------------


async def test_news_newest_first_in_china_time_and_limited() -> None:
    client = RecordedAkshare(moutai_responses())
    news = await AkshareMarketDataProvider(5.0, client=client).get_news(MOUTAI, limit=2)

    assert client.kwargs_of("stock_news_em") == {"symbol": "600519"}
    assert [n.title for n in news] == ["贵州茅台：2025年半年度报告", "贵州茅台：2024年年度权益分派实施公告"]
    assert news[0].published_at == datetime(2025, 8, 12, 19, 30, tzinfo=timezone(timedelta(hours=8)))
    assert news[0].source == "东方财富网"
    assert news[0].url == "https://so.eastmoney.com/news/s?keyword=600519"
    assert "454.03亿元" in news[0].summary


async def test_no_news_is_an_empty_list() -> None:
    assert await provider(moutai_responses() | {"stock_news_em": pd.DataFrame()}).get_news(MOUTAI) == []


async def test_live_providers_are_open_ended() -> None:
    assert await provider().available_symbols() is None
