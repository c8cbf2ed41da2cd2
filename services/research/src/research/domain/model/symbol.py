"""Security symbols in Tushare style (``600519.SH``, ``000001.SZ``, ``430047.BJ``), ``0700.HK``, US tickers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from shared_contracts.errors import InvalidSymbolError, SymbolRequiredError
from shared_contracts.symbols import SymbolSyntaxError, parse_symbol


class Market(StrEnum):
    SH = "SH"
    SZ = "SZ"
    BJ = "BJ"
    HK = "HK"
    US = "US"

    @property
    def is_a_share(self) -> bool:
        return self in (Market.SH, Market.SZ, Market.BJ)


@dataclass(frozen=True, order=True)
class Symbol:
    code: str
    """Exchange code without suffix: ``600519``, ``0700``, ``AAPL``."""
    market: Market

    @classmethod
    def parse(cls, raw: str) -> Symbol:
        if not raw.strip():
            raise SymbolRequiredError("symbol is required (e.g. 600519.SH)")
        try:
            code, market = parse_symbol(raw)
        except SymbolSyntaxError as exc:
            raise InvalidSymbolError(str(exc)) from None
        return cls(code, Market(market))

    def __str__(self) -> str:
        return self.code if self.market is Market.US else f"{self.code}.{self.market.value}"
