"""Security symbols in Tushare style (``600519.SH``, ``000001.SZ``, ``430047.BJ``), ``0700.HK``, US tickers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from research.domain.exceptions import InvalidSymbolError


class Market(StrEnum):
    SH = "SH"
    SZ = "SZ"
    BJ = "BJ"
    HK = "HK"
    US = "US"

    @property
    def is_a_share(self) -> bool:
        return self in (Market.SH, Market.SZ, Market.BJ)


_A_SHARE = re.compile(r"^(\d{6})\.(SH|SZ|BJ)$")
_HK = re.compile(r"^(\d{1,5})\.HK$")
_US = re.compile(r"^([A-Z][A-Z0-9]{0,5}(?:[.\-][A-Z])?)$")


@dataclass(frozen=True, order=True)
class Symbol:
    code: str
    """Exchange code without suffix: ``600519``, ``0700``, ``AAPL``."""
    market: Market

    @classmethod
    def parse(cls, raw: str) -> Symbol:
        text = (raw or "").strip().upper()
        if m := _A_SHARE.match(text):
            return cls(m.group(1), Market(m.group(2)))
        if m := _HK.match(text):
            return cls(m.group(1).zfill(4), Market.HK)
        if m := _US.match(text):
            return cls(m.group(1), Market.US)
        raise InvalidSymbolError(
            f"{raw!r} is not a symbol; use 600519.SH / 000001.SZ / 430047.BJ, 0700.HK, or a US ticker like AAPL"
        )

    def __str__(self) -> str:
        return self.code if self.market is Market.US else f"{self.code}.{self.market.value}"
