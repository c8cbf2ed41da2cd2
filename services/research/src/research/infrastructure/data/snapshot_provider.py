"""The offline snapshot provider (the default): real public data shipped in ``snapshot/``.

Coverage (see ``snapshot/SOURCES.md`` and ``snapshot/universe.csv``): daily bars for 119 A-shares and
AAPL/MSFT; annual financials for 19 A-shares, valuation snapshots for 18; China macro; no news.
Financials, valuation and macro are read at start; each symbol's bars on first use, then kept.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TypeVar

from research.domain.model.market_data import (
    Bar,
    DateSpan,
    FinancialStatements,
    MacroData,
    NewsItem,
    PriceHistory,
    SymbolCoverage,
    ValuationData,
)
from research.domain.model.symbol import Symbol
from research.domain.ports.market_data import IMarketDataProvider
from research.infrastructure.data import snapshot_reader as reader
from shared_contracts.errors import DataUnavailableError, SymbolNotFoundError

T = TypeVar("T")
DEFAULT_SNAPSHOT_DIR = Path(__file__).parent / "snapshot"
MACRO_SOURCE = "tsvetoslavtsachev/china-macro-dashboard (NBS/PBoC via akshare, DBnomics)"


class OfflineSnapshotProvider(IMarketDataProvider):
    name = "offline-snapshot"

    def __init__(self, directory: Path = DEFAULT_SNAPSHOT_DIR) -> None:
        """Reads every file once; a missing or unreadable snapshot fails here, at start."""
        if not (directory / "bars").is_dir():
            raise FileNotFoundError(f"no offline snapshot at {directory} (expected bars/, financials/, ...)")
        self.directory = directory

        def by_symbol(sub: str) -> list[Path]:
            folder = directory / sub
            return sorted(folder.glob("*.csv")) if folder.is_dir() else []

        macro_file = directory / "macro" / "china_macro.csv"
        self._bar_files = {p.stem: p for p in by_symbol("bars")}
        self._financials = {p.stem: reader.read_financials(p) for p in by_symbol("financials")}
        self._valuation = {p.stem: reader.read_valuation(p) for p in by_symbol("valuation")}
        self._macro_cn = reader.read_macro(macro_file, MACRO_SOURCE) if macro_file.is_file() else {}
        self._symbols = sorted(set(self._bar_files) | set(self._financials) | set(self._valuation))
        self._bars: dict[str, tuple[Bar, ...]] = {}

    def _bars_of(self, key: str) -> tuple[Bar, ...]:
        if key not in self._bars:
            self._bars[key] = reader.read_bars(self._bar_files[key])
        return self._bars[key]

    def _known(self, symbol: Symbol) -> str:
        key = str(symbol)
        if key not in self._symbols:
            raise SymbolNotFoundError(
                f"{key} is not in the offline snapshot; it has {len(self._symbols)} symbols "
                f"(GET /api/v1/research/universe lists them), e.g. {', '.join(self._symbols[:5])}",
                available_symbols=list(self._symbols),
            )
        return key

    def _entry(self, symbol: Symbol, category: str, table: dict[str, T]) -> tuple[str, T]:
        """The symbol's key and its entry in ``table``; ``DataUnavailableError`` naming who has one otherwise."""
        key = self._known(symbol)
        if key not in table:
            raise DataUnavailableError(
                f"the offline snapshot has no {category} for {key}; "
                f"{category} exist for {', '.join(sorted(table)) or 'none'}"
            )
        return key, table[key]

    async def get_price_history(self, symbol: Symbol, end: date | None = None) -> PriceHistory:
        key, _ = self._entry(symbol, "price bars", self._bar_files)
        bars = self._bars_of(key) if end is None else tuple(b for b in self._bars_of(key) if b.date <= end)
        source = reader.BARS_SOURCE.get(key, reader.DEFAULT_BARS_SOURCE)
        adjustment = "qfq" if symbol.market.is_a_share else "adjusted"
        return PriceHistory(symbol=symbol, bars=bars, source=f"{self.name}: {source}", adjustment=adjustment)

    async def get_financials(self, symbol: Symbol, limit: int) -> FinancialStatements:
        _, (periods, tags) = self._entry(symbol, "financial statements", self._financials)
        source = f"{self.name}: annual reports ({', '.join(tags)})"
        return FinancialStatements(symbol=symbol, periods=periods[-limit:], source=source, currency="CNY")

    async def get_valuation(self, symbol: Symbol) -> ValuationData:
        _, snapshots = self._entry(symbol, "valuation data", self._valuation)
        return ValuationData(symbol=symbol, snapshots=snapshots, source=f"{self.name}: XianCrag/ValuationStrategy")

    async def get_macro(self, symbol: Symbol) -> MacroData:
        self._known(symbol)
        if not symbol.market.is_a_share:
            raise DataUnavailableError(f"the offline snapshot has China macro data only, none for {symbol}")
        if not self._macro_cn:
            raise DataUnavailableError("the offline snapshot has no macro data")
        return MacroData(region="CN", series=dict(self._macro_cn), source=f"{self.name}: {MACRO_SOURCE}")

    async def get_news(self, symbol: Symbol, limit: int = 20) -> list[NewsItem]:
        self._known(symbol)
        return []

    async def available_symbols(self) -> list[str] | None:
        return list(self._symbols)

    async def universe(self) -> list[SymbolCoverage] | None:
        def span(days: list[date]) -> DateSpan | None:
            return DateSpan(days[0], days[-1], len(days)) if days else None

        return [
            SymbolCoverage(
                symbol=key,
                market=Symbol.parse(key).market.value,
                bars=span([b.date for b in self._bars_of(key)] if key in self._bar_files else []),
                financials=span([p.period_end for p in self._financials.get(key, ((), ()))[0]]),
                valuation=span(sorted(s.as_of.date() for s in self._valuation.get(key, ()))),
            )
            for key in self._symbols
        ]
