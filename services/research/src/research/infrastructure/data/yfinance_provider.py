"""Live US and HK data through yfinance (Yahoo Finance). Needs the ``yfinance`` extra.

Calls per ticker (yfinance 1.x; see LIVE_PROVIDERS.md): ``Ticker.history(period="max", auto_adjust=True)``,
``Ticker.income_stmt`` / ``balance_sheet`` / ``cashflow`` (annual, row labels such as ``Total Revenue``),
``Ticker.dividends``, ``Ticker.info`` (``trailingPE``, ``priceToBook``, ``dividendYield`` — already in
percent in yfinance 1.x — ``marketCap``), ``Ticker.get_news(count=...)``. Macro: the US 10-year Treasury
yield from ``^TNX`` only. Symbols: ``0700.HK`` → ``0700.HK``, ``9988.HK``; ``BRK.B`` → ``BRK-B``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

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
    ValuationSnapshot,
)
from research.domain.model.symbol import Market, Symbol
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
T = TypeVar("T")

US_10Y_TICKER = "^TNX"
"""CBOE 10-year Treasury yield index; Yahoo quotes it in percent (4.25 = 4.25 %)."""
MACRO_YEARS = 5
_FISCAL_YEAR = (timedelta(days=300), timedelta(days=430))
"""A previous column counts as "the year before" when it ends 300-430 days earlier (for YoY and average equity)."""
_MARKET_CURRENCY = {Market.US: "USD", Market.HK: "HKD"}
_NET_INCOME = ("Net Income", "Net Income Common Stockholders")


def yahoo_ticker(symbol: Symbol) -> str:
    """Yahoo's spelling: US class shares with a dash (``BRK-B``), HK codes as 4+ digits with ``.HK`` (``0700.HK``)."""
    if symbol.market is Market.US:
        return symbol.code.replace(".", "-")
    if symbol.market is Market.HK:
        return f"{int(symbol.code):04d}.HK"
    raise SymbolNotFoundError(
        f"{symbol}: the yfinance provider serves US and HK symbols only; A-shares are served by the AKShare provider"
    )


def _ticker_missing(exc: Exception) -> ServiceError | None:
    """yfinance's ``YFTickerMissingError`` family (no timezone, no prices: usually an unknown ticker) → 404."""
    if any(cls.__name__ == "YFTickerMissingError" for cls in type(exc).__mro__):
        return SymbolNotFoundError(f"Yahoo Finance does not know this ticker ({exc})")
    return None


def _cell(frame: pd.DataFrame, label: str, column: Any) -> float | None:
    if column is None or label not in frame.index or column not in frame.columns:
        return None
    return to_float(frame.at[label, column])


def _first(frame: pd.DataFrame, labels: tuple[str, ...], column: Any) -> float | None:
    for label in labels:
        if (value := _cell(frame, label, column)) is not None:
            return value
    return None


def _pct(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator * 100


class YFinanceMarketDataProvider(IMarketDataProvider):
    name = "yfinance"

    def __init__(self, timeout_seconds: float, client: Any | None = None) -> None:
        if timeout_seconds <= 0:
            raise ValueError("timeout_seconds must be positive")
        self._timeout = timeout_seconds
        self._yf: Any = client if client is not None else import_optional("yfinance", "yfinance")

    async def _call(self, ticker: str, what: str, fn: Callable[[Any], T]) -> T:
        """``fn(Ticker(ticker))`` in a worker thread (the Ticker is built there too: it may touch the network)."""
        call = f"Ticker({ticker!r}).{what}"
        return await call_library("yfinance", call, lambda: fn(self._yf.Ticker(ticker)), self._timeout, _ticker_missing)

    async def _frame(self, ticker: str, attribute: str) -> pd.DataFrame:
        result = await self._call(ticker, attribute, lambda t: getattr(t, attribute))
        if result is None:
            return pd.DataFrame()
        if not isinstance(result, pd.DataFrame):
            raise DataProviderError(f"yfinance: Ticker({ticker!r}).{attribute} returned {type(result).__name__}")
        return result

    async def _history(self, ticker: str) -> pd.DataFrame:
        result = await self._call(
            ticker,
            "history(period='max')",
            lambda t: t.history(period="max", interval="1d", auto_adjust=True, timeout=self._timeout),
        )
        if not isinstance(result, pd.DataFrame):
            raise DataProviderError(f"yfinance: Ticker({ticker!r}).history returned {type(result).__name__}")
        return result

    # -- bars ------------------------------------------------------------------------------------------

    async def get_price_history(self, symbol: Symbol, end: date | None = None) -> PriceHistory:
        ticker = yahoo_ticker(symbol)
        frame = await self._history(ticker)
        if frame.empty:
            raise SymbolNotFoundError(f"{symbol}: Yahoo Finance has no daily bars for {ticker}")
        rows = zip(frame.index, frame.to_dict(orient="records"), strict=True)
        bars = complete_bars(rows, ("Open", "High", "Low", "Close", "Volume"), end)
        if not bars:
            raise DataUnavailableError(f"{symbol}: Yahoo Finance has no complete daily bar on or before {end}")
        return PriceHistory(symbol, bars, source="yfinance:history", adjustment="adjusted")

    # -- financials ------------------------------------------------------------------------------------

    async def get_financials(self, symbol: Symbol, limit: int) -> FinancialStatements:
        ticker = yahoo_ticker(symbol)
        outcomes = await asyncio.gather(
            self._frame(ticker, "income_stmt"),
            self._frame(ticker, "balance_sheet"),
            self._frame(ticker, "cashflow"),
            self._call(ticker, "dividends", lambda t: t.dividends),
            self._call(ticker, "info", lambda t: t.info),
            return_exceptions=True,
        )
        income, balance, cash = (unwrap(o) for o in outcomes[:3])
        dividends, info = unwrap(outcomes[3]), unwrap(outcomes[4])
        if income.empty:
            raise DataUnavailableError(f"{symbol}: Yahoo Finance has no annual income statement for {ticker}")
        info = info if isinstance(info, Mapping) else {}
        currency = str(info.get("financialCurrency") or info.get("currency") or _MARKET_CURRENCY[symbol.market])

        columns = sorted(income.columns, key=lambda c: pd.Timestamp(c))
        pairs = zip([None, *columns], columns, strict=False)  # (the column before, the column)
        annual = (self._annual(income, balance, cash, dividends, column, prior) for prior, column in pairs)
        periods = [period for period in annual if period is not None]
        if not periods:
            raise DataUnavailableError(f"{symbol}: Yahoo Finance's annual statements for {ticker} are empty")
        return FinancialStatements(
            symbol, tuple(periods[-limit:] if limit > 0 else ()), source="yfinance:statements", currency=currency
        )

    @staticmethod
    def _annual(
        income: pd.DataFrame, balance: pd.DataFrame, cash: pd.DataFrame, dividends: Any, column: Any, previous: Any
    ) -> AnnualFinancials | None:
        period_end = to_date(column)
        if period_end is None:
            return None
        prior_end = to_date(previous)
        prior = previous if prior_end and _FISCAL_YEAR[0] <= period_end - prior_end <= _FISCAL_YEAR[1] else None
        revenue, prior_revenue = (_cell(income, "Total Revenue", c) for c in (column, prior))
        net_parent, prior_net = (_first(income, _NET_INCOME, c) for c in (column, prior))
        equity, prior_equity = (_cell(balance, "Stockholders Equity", c) for c in (column, prior))
        paid = _cell(cash, "Cash Dividends Paid", column)
        dividend_total = abs(paid) if paid is not None else None
        average_equity = (equity + prior_equity) / 2 if equity is not None and prior_equity is not None else None
        revenue_yoy = _pct(revenue - prior_revenue, prior_revenue) if revenue is not None and prior_revenue else None
        profit_yoy = _pct(net_parent - prior_net, abs(prior_net)) if net_parent is not None and prior_net else None
        values = AnnualFinancials(
            period_end=period_end,
            revenue=revenue,
            net_profit_parent=net_parent,
            net_profit_total=_cell(income, "Net Income Including Noncontrolling Interests", column),
            revenue_yoy_pct=revenue_yoy,
            net_profit_parent_yoy_pct=profit_yoy,
            roe_pct=_pct(net_parent, average_equity) if average_equity and average_equity > 0 else None,
            gross_margin_pct=_pct(_cell(income, "Gross Profit", column), revenue),
            net_margin_pct=_pct(net_parent, revenue),
            operating_cash_flow=_cell(cash, "Operating Cash Flow", column),
            total_assets=_cell(balance, "Total Assets", column),
            total_liabilities=_cell(balance, "Total Liabilities Net Minority Interest", column),
            accounts_receivable=_cell(balance, "Accounts Receivable", column),
            inventory=_cell(balance, "Inventory", column),
            dps=YFinanceMarketDataProvider._dps(dividends, period_end),
            dividend_total=dividend_total,
            payout_ratio_pct=_pct(dividend_total, net_parent) if net_parent and net_parent > 0 else None,
        )
        reported = (values.revenue, values.net_profit_parent, values.total_assets, values.operating_cash_flow)
        return values if any(v is not None for v in reported) else None

    @staticmethod
    def _dps(dividends: Any, period_end: date) -> float | None:
        """Cash per share with an ex-date in the fiscal year; None when the series does not reach that far back."""
        if not isinstance(dividends, pd.Series) or dividends.empty:
            return None
        paid = [
            (d, v) for stamp, value in dividends.items() if (d := to_date(stamp)) and (v := to_float(value)) is not None
        ]
        if not paid or min(d for d, _ in paid) > period_end:
            return None
        start = period_end - timedelta(days=365)
        return round(sum(v for d, v in paid if start < d <= period_end), 6)

    # -- valuation -------------------------------------------------------------------------------------

    async def get_valuation(self, symbol: Symbol) -> ValuationData:
        ticker = yahoo_ticker(symbol)
        info = await self._call(ticker, "info", lambda t: t.info)
        if not isinstance(info, Mapping):
            raise DataProviderError(f"yfinance: Ticker({ticker!r}).info returned {type(info).__name__}")
        close = to_float(info.get("currentPrice")) or to_float(info.get("regularMarketPrice"))
        dividend_yield = to_float(info.get("dividendYield"))
        if dividend_yield is None and (trailing := to_float(info.get("trailingAnnualDividendYield"))) is not None:
            dividend_yield = trailing * 100  # this one is still a fraction
        stamp = to_float(info.get("regularMarketTime"))
        snapshot = ValuationSnapshot(
            as_of=datetime.fromtimestamp(stamp, tz=UTC) if stamp is not None else datetime.now(UTC),
            source="yfinance:info",
            close=close,
            pe_ttm=to_float(info.get("trailingPE")),
            pb=to_float(info.get("priceToBook")),
            dividend_yield_pct=dividend_yield,
            total_mv=to_float(info.get("marketCap")),
        )
        if all(v is None for v in (snapshot.close, snapshot.pe_ttm, snapshot.pb, snapshot.total_mv)):
            raise DataUnavailableError(f"{symbol}: Yahoo Finance has no quote or valuation for {ticker}")
        return ValuationData(symbol, (snapshot,), history=(), source="yfinance:info")

    # -- macro -----------------------------------------------------------------------------------------

    async def get_macro(self, symbol: Symbol) -> MacroData:
        yahoo_ticker(symbol)
        if symbol.market is not Market.US:
            raise DataUnavailableError(
                f"{symbol}: the yfinance provider has no macro series for {symbol.market.value} "
                "(it serves only the US 10-year Treasury yield, for US symbols)"
            )
        frame = await self._history(US_10Y_TICKER)
        since = datetime.now(UTC).date() - timedelta(days=365 * MACRO_YEARS)
        observed: dict[date, float] = {}
        for stamp, value in zip(frame.index, frame.get("Close", pd.Series(dtype=float)), strict=False):
            day, number = to_date(stamp), to_float(value)
            if day is not None and number is not None and day >= since:
                observed[day] = number
        if not observed:
            raise DataUnavailableError(f"Yahoo Finance returned no {US_10Y_TICKER} observations")
        observations = tuple(MacroObservation(d, observed[d]) for d in sorted(observed))
        series = MacroSeries("ust_10y_yield", "pct", "daily", observations, source=f"yfinance:{US_10Y_TICKER}")
        return MacroData(region="US", series={series.indicator: series}, source="yfinance")

    # -- news ------------------------------------------------------------------------------------------

    async def get_news(self, symbol: Symbol, limit: int = 20) -> list[NewsItem]:
        ticker = yahoo_ticker(symbol)
        count = max(limit, 1)
        raw = await self._call(ticker, f"get_news(count={count})", lambda t: t.get_news(count=count))
        items = [item for entry in (raw or []) if isinstance(entry, Mapping) and (item := self._news_item(entry))]
        return sorted(items, key=lambda item: item.published_at, reverse=True)[: max(limit, 0)]

    @staticmethod
    def _news_item(entry: Mapping[str, Any]) -> NewsItem | None:
        """yfinance 1.x nests the story under ``content``; older releases had flat keys (both are read)."""
        content = entry.get("content")
        story: Mapping[str, Any] = content if isinstance(content, Mapping) else entry
        title = str(story.get("title") or "").strip()
        published = to_datetime(story.get("pubDate"))
        if published is None and (epoch := to_float(story.get("providerPublishTime"))) is not None:
            published = datetime.fromtimestamp(epoch, tz=UTC)
        if not title or published is None:
            return None
        provider = story.get("provider")
        links = (story.get(key) for key in ("canonicalUrl", "clickThroughUrl"))
        url = next((str(link["url"]) for link in links if isinstance(link, Mapping) and link.get("url")), None)
        return NewsItem(
            published_at=published if published.tzinfo else published.replace(tzinfo=UTC),
            title=title,
            summary=str(story.get("summary") or story.get("description") or "").strip(),
            source=str(
                (provider.get("displayName") if isinstance(provider, Mapping) else None)
                or story.get("publisher")
                or "Yahoo Finance"
            ),
            url=url or (str(story["link"]) if story.get("link") else None),
        )

    async def available_symbols(self) -> list[str] | None:
        return None
