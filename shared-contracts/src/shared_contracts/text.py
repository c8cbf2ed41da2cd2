"""Narrative text helpers every service's rules engine writes with: shortening to whole sentences and prices
at the instrument's precision.

``shorten`` never cuts inside a sentence: a text longer than its limit keeps its leading whole sentences (each
ending in ``.`` ``!`` ``?`` ``;`` followed by a space or the end, or a Chinese ``。！？；``), and a text whose first
sentence is already longer than the limit keeps that sentence whole. Nothing is cut mid-sentence and no ellipsis
is added. ``format_price`` writes a price with as
many decimals as the reference price it stands beside (two to four), so a level and the close it is measured
from read alike (``1492.31``, never ``1492.3141`` next to it)."""

from __future__ import annotations

import math
import re

_SENTENCE_END = re.compile(r"[;.!?](?=\s|$)|[；。！？]")
MIN_PRICE_DECIMALS, MAX_PRICE_DECIMALS = 2, 4


def one_line(text: str) -> str:
    """``text`` with every run of whitespace a single space, trimmed."""
    return " ".join(text.split())


def shorten(text: str, limit: int) -> str:
    """``text`` on one line: whole when it fits in ``limit`` characters, else its leading whole sentences that fit
    (at least the first one, however long; a sentence end inside a quotation or brackets does not count). A last
    sentence ended by ``;`` or ``；`` ends with a full stop."""
    flat = one_line(text)
    if len(flat) <= limit:
        return flat
    ends = [m.end() for m in _SENTENCE_END.finditer(flat) if _closed(flat[: m.end()])]
    fitting = [end for end in ends if end <= limit]
    cut = fitting[-1] if fitting else (ends[0] if ends else len(flat))
    kept = flat[:cut].rstrip()
    if kept.endswith("；"):
        return kept[:-1] + "。"
    return kept[:-1] + "." if kept.endswith(";") else kept


_PAIRS = (("「", "」"), ("『", "』"), ("“", "”"), ("（", "）"), ("(", ")"))


def _closed(prefix: str) -> bool:
    """Whether every quote and bracket opened in ``prefix`` is closed in it (a sentence end inside a quotation is
    not a place to cut)."""
    balanced = all(prefix.count(opening) <= prefix.count(closing) for opening, closing in _PAIRS)
    return balanced and prefix.count('"') % 2 == 0


def price_decimals(reference: float | None) -> int:
    """The decimals the reference price is quoted with (two to four; two without a usable reference)."""
    if reference is None or not math.isfinite(reference):
        return MIN_PRICE_DECIMALS
    written = f"{reference:.{MAX_PRICE_DECIMALS}f}".rstrip("0")
    decimals = len(written.partition(".")[2])
    return min(max(decimals, MIN_PRICE_DECIMALS), MAX_PRICE_DECIMALS)


A_SHARE_MARKETS = ("SH", "SZ", "BJ")


def tick_decimals(symbol: str, price: float) -> int:
    """The decimals of the market's price tick: A-shares 0.01; Hong Kong 0.001 below HK$0.25, else 0.01 or
    coarser (two decimals shown); US 0.0001 below $1, else 0.01."""
    market = symbol.strip().upper().rpartition(".")[2] if "." in symbol else ""
    if market in A_SHARE_MARKETS:
        return 2
    if market == "HK":
        return 3 if price < 0.25 else 2
    return 4 if price < 1.0 else 2


def at_tick(symbol: str, price: float) -> float:
    """``price`` rounded to the market's tick precision (``tick_decimals``): the number a verdict quotes."""
    return round(price, tick_decimals(symbol, price))


def format_price(value: float, reference: float | None = None) -> str:
    """``value`` at the precision of ``reference`` (``price_decimals``), no thousands separator."""
    return f"{value:.{price_decimals(reference)}f}"


NO_SPECIFIC_RISK = {
    "zh": "未发现需要单独提示的具体风险（这不代表没有风险）",
    "en": "no specific risk seen (that does not mean there is none)",
}
"""What an expert's risk field says when its analysis saw no specific risk: a field is never left empty."""


def is_no_risk_statement(text: str) -> bool:
    """Whether ``text`` is the ``NO_SPECIFIC_RISK`` sentence (in either language): not a risk to count."""
    return one_line(text).strip("。.;； ") in {s.strip("。.;； ") for s in NO_SPECIFIC_RISK.values()}
