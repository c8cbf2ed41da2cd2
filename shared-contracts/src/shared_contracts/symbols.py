"""The symbol grammar every service accepts: Tushare-style A-shares (``600519.SH``, ``000001.SZ``,
``430047.BJ``), Hong Kong (``0700.HK``) and US tickers (``AAPL``, ``BRK.B``). Case-insensitive."""

from __future__ import annotations

import re
from typing import Literal

from shared_contracts.echo import echo

MarketCode = Literal["SH", "SZ", "BJ", "HK", "US"]

_A_SHARE = re.compile(r"^([0-9]{6})\.(SH|SZ|BJ)$")  # ASCII digits: \d also takes "６"
_HK = re.compile(r"^([0-9]{1,5})\.HK$")
_US = re.compile(r"^([A-Z][A-Z0-9]{0,5}(?:[.\-][A-Z])?)$")

SYMBOL_HELP = "use 600519.SH / 000001.SZ / 430047.BJ, 0700.HK, or a US ticker like AAPL"

_SYMBOL_BODY = (
    r"[0-9]{6}\.(?:[Ss][Hh]|[Ss][Zz]|[Bb][Jj])|[0-9]{1,5}\.[Hh][Kk]|[A-Za-z][A-Za-z0-9]{0,5}(?:[.-][A-Za-z])?"
)
SYMBOL_PATTERN = rf"^\s*(?:{_SYMBOL_BODY})\s*$"
"""The same grammar as a JSON Schema ``pattern`` (no flags there: each letter in both cases; blanks around it
are accepted and dropped): what the API documents say a symbol is."""
SYMBOL_FILTER_PATTERN = rf"^\s*(?:{_SYMBOL_BODY})?\s*$"
"""A symbol, or a blank (no filter): the query parameters that filter by symbol."""
SYMBOL_JSON_SCHEMA: dict[str, object] = {
    "type": "string",
    "pattern": SYMBOL_PATTERN,
    "description": f"A symbol, case-insensitive: {SYMBOL_HELP}.",
    "examples": ["600519.SH", "0700.HK", "AAPL"],
}


class SymbolSyntaxError(ValueError):
    pass


def parse_symbol(raw: str | None) -> tuple[str, MarketCode]:
    """(exchange code without suffix, market) — e.g. ``("0700", "HK")``; SymbolSyntaxError otherwise."""
    text = (raw or "").strip()
    if not text.isascii():  # "ſpy".upper() is "SPY": only ASCII letters and digits spell a symbol
        raise SymbolSyntaxError(f"{echo(raw)} is not a symbol; {SYMBOL_HELP}")
    text = text.upper()
    if m := _A_SHARE.match(text):
        market: MarketCode = m.group(2)  # type: ignore[assignment]
        return m.group(1), market
    if m := _HK.match(text):
        return m.group(1).zfill(4), "HK"
    if m := _US.match(text):
        return m.group(1), "US"
    raise SymbolSyntaxError(f"{echo(raw)} is not a symbol; {SYMBOL_HELP}")


def normalize_symbol(raw: str | None) -> str:
    """The canonical spelling (``600519.SH``, ``0700.HK``, ``AAPL``)."""
    code, market = parse_symbol(raw)
    return code if market == "US" else f"{code}.{market}"


def canonical_symbol(raw: str) -> str:
    """The canonical spelling of a symbol of the grammar; any other (the debate and the judge also take
    index or exchange-prefixed tickers) stripped and otherwise as given."""
    try:
        return normalize_symbol(raw)
    except SymbolSyntaxError:
        return raw.strip()
