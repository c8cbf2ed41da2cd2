"""Live A-share data (SH/SZ/BJ) through AKShare, which scrapes Eastmoney. Needs the ``akshare`` extra.

Functions and columns used (akshare 1.19; see LIVE_PROVIDERS.md for units and limits):

- bars          ``stock_zh_a_hist(symbol="600519", adjust="qfq")``: 日期 开盘 最高 最低 收盘 成交量(手) 成交额(元)
- financials    ``stock_financial_analysis_indicator_em("600519.SH")`` (Eastmoney 主要指标, raw JSON columns),
                ``stock_balance_sheet_by_yearly_em("SH600519")``, ``stock_cash_flow_sheet_by_yearly_em("SH600519")``,
                ``stock_fhps_detail_em("600519")`` (dividends)
- valuation     ``stock_value_em("600519")``: daily PE(TTM) / 市净率 / 总市值 history; dividend yield derived
- macro (China) ``macro_china_cpi/ppi/money_supply/pmi/lpr``, ``bond_zh_us_rate``, ``macro_china_consumer_goods_retail``
- news          ``stock_news_em("600519")``
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import pandas as pd
import structlog

from research.domain.exceptions import DataProviderError
from research.domain.model.market_data import (
    AnnualFinancials,
    FinancialStatements,
    MacroData,
    MacroObservation,
    MacroSeries,
    NewsItem,
    PriceHistory,
    ValuationData,
    ValuationPoint,
    ValuationSnapshot,
)
from research.domain.model.symbol import Symbol
from research.domain.ports.market_data import IMarketDataProvider
from research.infrastructure.data.live_support import (
    call_library,
    complete_bars,
    import_optional,
    to_date,
    to_datetime,
    to_float,
    unwrap,
)
from shared_contracts.errors import DataUnavailableError, ServiceError, SymbolNotFoundError

log = structlog.get_logger(__name__)

CHINA_TZ = timezone(timedelta(hours=8))
SHARES_PER_LOT = 100
"""Eastmoney reports A-share volume in lots (手) of 100 shares."""
MACRO_YEARS = 5
"""How far back the daily bond-yield series reaches (the macro rules look back 12 months)."""
_MONTH = re.compile(r"(\d{4})年(\d{1,2})月")
_CANCELLED = ("取消", "终止", "未通过", "否决")
Plan = tuple[date | None, date | None, float, float | None]
"""A dividend plan paying cash: report period, ex-date, cash per share in CNY, total shares."""


def _month_start(label: object) -> date | None:
    """Eastmoney macro months, e.g. ``2025年09月份`` → 2025-09-01 (dated on the 1st, as the snapshot does)."""
    match = _MONTH.search(str(label))
    return date(int(match.group(1)), int(match.group(2)), 1) if match else None


def _cash_dividends(frame: pd.DataFrame | None) -> list[Plan]:
    """(report period, ex-date, cash per share in CNY, total shares) per dividend plan that pays cash."""
    if frame is None:
        return []
    plans = []
    for row in frame.to_dict(orient="records"):
        per_ten = to_float(row.get("现金分红-现金分红比例"))
        if per_ten is None or per_ten <= 0 or any(word in str(row.get("方案进度") or "") for word in _CANCELLED):
            continue
        plans.append(
            (to_date(row.get("报告期")), to_date(row.get("除权除息日")), per_ten / 10, to_float(row.get("总股本")))
        )
    return plans


def _fiscal_year_dividends(plans: list[Plan], year: int) -> tuple[float | None, float | None]:
    """Cash per share and in total over the plans whose report period falls in ``year`` (interim + final)."""
    of_year = [(per_share, shares) for period, _, per_share, shares in plans if period and period.year == year]
    if not of_year:
        return None, None
    dps = round(sum(per_share for per_share, _ in of_year), 6)
    if any(shares is None for _, shares in of_year):
        return dps, None
    return dps, sum(per_share * (shares or 0.0) for per_share, shares in of_year)


class AkshareMarketDataProvider(IMarketDataProvider):
    name = "akshare"

    def __init__(self, timeout_seconds: float, client: Any | None = None) -> None:
        if timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be positive")
        self._timeout = timeout_seconds
        self._ak: Any = client if client is not None else import_optional("akshare", "akshare")

    # -- plumbing --------------------------------------------------------------------------------------

    async def _frame(self, function: str, **kwargs: Any) -> pd.DataFrame:
        fn: Callable[..., Any] = getattr(self._ak, function)
        args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items() if k != "timeout")
        what = f"{function}({args})"
        result = await call_library("akshare", what, lambda: fn(**kwargs), self._timeout)
        if not isinstance(result, pd.DataFrame):
            raise DataProviderError(f"akshare: {what} returned {type(result).__name__}, not a DataFrame")
        return result

    async def _optional_frame(self, function: str, **kwargs: Any) -> pd.DataFrame | None:
        """A supplementary call: on failure the figures it feeds stay None (logged), the rest is still served."""
        try:
            return await self._frame(function, **kwargs)
        except DataProviderError as exc:
            log.warning("akshare_optional_call_failed", function=function, error=str(exc))
            return None

    @staticmethod
    def _a_share(symbol: Symbol) -> str:
        if not symbol.market.is_a_share:
            raise SymbolNotFoundError(
                f"{symbol}: the AKShare provider serves A-shares (.SH/.SZ/.BJ) only; "
                "US and HK symbols are served by the yfinance provider"
            )
        return symbol.code

    # -- bars ------------------------------------------------------------------------------------------

    async def get_price_history(self, symbol: Symbol, end: date | None = None) -> PriceHistory:
        code = self._a_share(symbol)
        frame = await self._frame(
            "stock_zh_a_hist",
            symbol=code,
            period="daily",
            start_date="19700101",
            end_date="20500101",
            adjust="qfq",
            timeout=self._timeout,
        )
        if frame.empty:
            raise SymbolNotFoundError(f"{symbol}: AKShare (Eastmoney) has no daily bars for this symbol")
        columns = ("开盘", "最高", "最低", "收盘", "成交量")
        rows = ((row.get("日期"), row) for row in frame.to_dict(orient="records"))
        bars = complete_bars(rows, columns, end, volume_unit=SHARES_PER_LOT, amount="成交额")
        if not bars:
            raise DataUnavailableError(f"{symbol}: AKShare has no complete daily bar on or before {end}")
        return PriceHistory(symbol, bars, source="akshare:stock_zh_a_hist", adjustment="qfq")

    # -- financials ------------------------------------------------------------------------------------

    async def get_financials(self, symbol: Symbol, limit: int) -> FinancialStatements:
        code = self._a_share(symbol)
        prefixed = f"{symbol.market.value}{code}"
        outcomes = await asyncio.gather(
            self._frame(
                "stock_financial_analysis_indicator_em", symbol=f"{code}.{symbol.market.value}", indicator="按报告期"
            ),
            self._frame("stock_balance_sheet_by_yearly_em", symbol=prefixed),
            self._frame("stock_cash_flow_sheet_by_yearly_em", symbol=prefixed),
            self._optional_frame("stock_fhps_detail_em", symbol=code),
            return_exceptions=True,
        )
        indicators, balance, cash_flow = (unwrap(outcome) for outcome in outcomes[:3])
        dividends = unwrap(outcomes[3])
        if indicators.empty:
            raise DataUnavailableError(f"{symbol}: AKShare (Eastmoney) has no financial indicators for this symbol")

        annual = {
            d: row
            for row in indicators.to_dict(orient="records")
            if (d := to_date(row.get("REPORT_DATE"))) and (d.month, d.day) == (12, 31)
        }
        if not annual:
            raise DataUnavailableError(f"{symbol}: AKShare (Eastmoney) has no annual report for this symbol")
        balance_by = {to_date(row.get("REPORT_DATE")): row for row in balance.to_dict(orient="records")}
        cash_by = {to_date(row.get("REPORT_DATE")): row for row in cash_flow.to_dict(orient="records")}
        plans = _cash_dividends(dividends)
        periods = []
        for period_end in sorted(annual)[-limit:] if limit > 0 else []:
            row, bal, cash = annual[period_end], balance_by.get(period_end, {}), cash_by.get(period_end, {})
            net_parent = to_float(row.get("PARENTNETPROFIT"))
            dps, total = _fiscal_year_dividends(plans, period_end.year) if dividends is not None else (None, None)
            periods.append(
                AnnualFinancials(
                    period_end=period_end,
                    revenue=to_float(row.get("TOTALOPERATEREVE")),
                    net_profit_parent=net_parent,
                    revenue_yoy_pct=to_float(row.get("TOTALOPERATEREVETZ")),
                    net_profit_parent_yoy_pct=to_float(row.get("PARENTNETPROFITTZ")),
                    roe_pct=to_float(row.get("ROEJQ")),
                    gross_margin_pct=to_float(row.get("XSMLL")),
                    net_margin_pct=to_float(row.get("XSJLL")),
                    operating_cash_flow=to_float(cash.get("NETCASH_OPERATE")),
                    total_assets=to_float(bal.get("TOTAL_ASSETS")),
                    total_liabilities=to_float(bal.get("TOTAL_LIABILITIES")),
                    accounts_receivable=to_float(bal.get("ACCOUNTS_RECE")),
                    inventory=to_float(bal.get("INVENTORY")),
                    dps=dps,
                    dividend_total=total,
                    payout_ratio_pct=total / net_parent * 100 if total is not None and net_parent else None,
                )
            )
        return FinancialStatements(symbol, tuple(periods), source="akshare:eastmoney", currency="CNY")

    # -- valuation -------------------------------------------------------------------------------------

    async def get_valuation(self, symbol: Symbol) -> ValuationData:
        code = self._a_share(symbol)
        frame, dividends = await asyncio.gather(
            self._frame("stock_value_em", symbol=code), self._optional_frame("stock_fhps_detail_em", symbol=code)
        )
        plans = [(ex, per_share) for _, ex, per_share, _ in _cash_dividends(dividends) if ex is not None]

        def trailing_yield(on: date, close: float | None) -> float | None:
            if dividends is None or close is None or close <= 0:
                return None
            paid = sum(per_share for ex, per_share in plans if on - timedelta(days=365) < ex <= on)
            return round(paid / close * 100, 4)

        points: dict[date, tuple[ValuationPoint, Mapping[Any, Any]]] = {}
        for row in frame.to_dict(orient="records"):
            day = to_date(row.get("数据日期"))
            if day is None:
                continue
            close = to_float(row.get("当日收盘价"))
            point = ValuationPoint(
                day, to_float(row.get("PE(TTM)")), to_float(row.get("市净率")), trailing_yield(day, close)
            )
            points[day] = (point, row)
        if not points:
            raise DataUnavailableError(f"{symbol}: AKShare (Eastmoney) has no valuation history for this symbol")
        history = tuple(points[d][0] for d in sorted(points))
        latest, latest_row = points[history[-1].date]
        snapshot = ValuationSnapshot(
            as_of=datetime.combine(latest.date, time(15, 0), tzinfo=CHINA_TZ),
            source="akshare:stock_value_em",
            close=to_float(latest_row.get("当日收盘价")),
            pe_ttm=latest.pe_ttm,
            pb=latest.pb,
            dividend_yield_pct=latest.dividend_yield_pct,
            total_mv=to_float(latest_row.get("总市值")),
        )
        return ValuationData(symbol, (snapshot,), history=history, source="akshare:stock_value_em")

    # -- macro -----------------------------------------------------------------------------------------

    async def get_macro(self, symbol: Symbol) -> MacroData:
        self._a_share(symbol)
        start = (datetime.now(UTC).date() - timedelta(days=365 * MACRO_YEARS)).strftime("%Y%m%d")
        # (indicator, function, kwargs, date column, value column, unit, frequency)
        plan: list[tuple[str, str, dict[str, Any], str, str, str, str]] = [
            ("cpi_yoy", "macro_china_cpi", {}, "月份", "全国-同比增长", "pct", "monthly"),
            ("ppi_yoy", "macro_china_ppi", {}, "月份", "当月同比增长", "pct", "monthly"),
            ("m2_yoy", "macro_china_money_supply", {}, "月份", "货币和准货币(M2)-同比增长", "pct", "monthly"),
            ("pmi_manufacturing_nbs", "macro_china_pmi", {}, "月份", "制造业-指数", "index", "monthly"),
            ("pmi_non_manufacturing_nbs", "macro_china_pmi", {}, "月份", "非制造业-指数", "index", "monthly"),
            ("lpr_1y", "macro_china_lpr", {}, "TRADE_DATE", "LPR1Y", "pct", "fixing_date"),
            ("lpr_5y", "macro_china_lpr", {}, "TRADE_DATE", "LPR5Y", "pct", "fixing_date"),
            ("cgb_10y_yield", "bond_zh_us_rate", {"start_date": start}, "日期", "中国国债收益率10年", "pct", "daily"),
            ("retail_sales_yoy", "macro_china_consumer_goods_retail", {}, "月份", "同比增长", "pct", "monthly"),
        ]
        calls = {fn: kw for _, fn, kw, *_ in plan}  # one call per function (PMI and LPR feed two series each)
        outcomes = await asyncio.gather(*(self._frame(fn, **kw) for fn, kw in calls.items()), return_exceptions=True)
        frames = dict(zip(calls, outcomes, strict=True))

        series: dict[str, MacroSeries] = {}
        failures: list[BaseException] = []
        for indicator, fn, _, date_col, value_col, unit, frequency in plan:
            frame = frames[fn]
            if isinstance(frame, BaseException):
                if not isinstance(frame, ServiceError):
                    raise frame
                failures.append(frame)
                log.warning("akshare_macro_series_failed", indicator=indicator, function=fn, error=str(frame))
                continue
            parse = _month_start if frequency == "monthly" else to_date
            observed: dict[date, float] = {}
            for row in frame.to_dict(orient="records"):
                day, value = parse(row.get(date_col)), to_float(row.get(value_col))
                if day is not None and value is not None:
                    observed[day] = value
            if observed:
                obs = tuple(MacroObservation(d, observed[d]) for d in sorted(observed))
                series[indicator] = MacroSeries(indicator, unit, frequency, obs, source=f"akshare:{fn}")
        if not series:
            if failures:
                raise failures[0]
            raise DataUnavailableError("AKShare returned no China macro series")
        return MacroData(region="CN", series=series, source="akshare")

    # -- news ------------------------------------------------------------------------------------------

    async def get_news(self, symbol: Symbol, limit: int = 20) -> list[NewsItem]:
        code = self._a_share(symbol)
        frame = await self._frame("stock_news_em", symbol=code)
        items = []
        for row in frame.to_dict(orient="records"):
            title = str(row.get("新闻标题") or "").strip()
            when = to_datetime(row.get("发布时间"))
            if not title or when is None:
                continue
            items.append(
                NewsItem(
                    published_at=when if when.tzinfo else when.replace(tzinfo=CHINA_TZ),
                    title=title,
                    summary=str(row.get("新闻内容") or "").strip(),
                    source=str(row.get("文章来源") or "").strip() or "eastmoney",
                    url=str(row.get("新闻链接") or "").strip() or None,
                )
            )
        return sorted(items, key=lambda item: item.published_at, reverse=True)[: max(limit, 0)]

    async def available_symbols(self) -> list[str] | None:
        return None
