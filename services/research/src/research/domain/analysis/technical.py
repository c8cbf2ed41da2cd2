"""Technical indicators of a price history as of a trading day (TA-Lib for the standard ones).

Conventions: simple moving averages; MACD(12, 26, 9) with TA-Lib's histogram ``dif - dea`` (not the
2x variant some Chinese terminals show); RSI(14) and ATR(14) with Wilder smoothing; Bollinger(20, 2σ,
population σ); volume ratio = the day's volume / the mean volume of the 5 sessions before it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import numpy as np
import talib

from research.domain.analysis.numbers import pct_change, rnd
from research.domain.model.market_data import PriceHistory
from shared_contracts.errors import InsufficientHistoryError

MIN_BARS = 60
"""MA60 is the longest indicator every result carries; MACD needs 34 bars, Bollinger 20."""
YEAR_BARS = 250


@dataclass(frozen=True)
class KeyLevels:
    support: tuple[float, ...]
    """Candidate supports below the close, nearest first (20/60-day lows, MA20/MA60, lower band)."""
    resistance: tuple[float, ...]
    """Candidate resistances above the close, nearest first (20/60-day highs, MA20/MA60, upper band)."""
    high_20d: float
    low_20d: float
    high_60d: float
    low_60d: float
    atr_stop: float | None
    """close - 2 x ATR(14), a volatility-based stop reference."""


@dataclass(frozen=True)
class TechnicalFacts:
    symbol: str
    as_of: date
    bars_used: int
    adjustment: str
    close: float
    change_1d_pct: float | None
    change_20d_pct: float | None
    ma5: float | None
    ma10: float | None
    ma20: float | None
    ma60: float | None
    ma120: float | None
    ma250: float | None
    macd_dif: float | None
    macd_dea: float | None
    macd_hist: float | None
    macd_hist_prev: float | None
    rsi14: float | None
    boll_upper: float | None
    boll_middle: float | None
    boll_lower: float | None
    boll_percent_b: float | None
    atr14: float | None
    atr_pct: float | None
    volatility_60d_pct: float | None
    """Realised volatility: the standard deviation of the last 60 daily log returns, annualised (× √252), in %."""
    volume_ratio: float | None
    high_52w: float
    low_52w: float
    window_52w_bars: int
    levels: KeyLevels


VOLATILITY_BARS = 60
TRADING_DAYS_PER_YEAR = 252


def _realised_volatility(close: np.ndarray, bars: int) -> float | None:
    """Annualised standard deviation of the last ``bars`` daily log returns, in percent."""
    if len(close) <= bars or np.any(close[-bars - 1 :] <= 0):
        return None
    returns = np.diff(np.log(close[-bars - 1 :]))
    return rnd(float(np.std(returns, ddof=1)) * math.sqrt(TRADING_DAYS_PER_YEAR) * 100.0)


def _last(series: np.ndarray, back: int = 1) -> float | None:
    return rnd(float(series[-back])) if len(series) >= back else None


def compute_technical_facts(history: PriceHistory, analysis_date: date | None) -> TechnicalFacts:
    """Indicators on the last trading day on or before ``analysis_date`` (the latest bar when None)."""
    bars = [b for b in history.bars if analysis_date is None or b.date <= analysis_date]
    when = analysis_date.isoformat() if analysis_date else "the latest bar"
    if len(bars) < MIN_BARS:
        raise InsufficientHistoryError(
            f"{history.symbol}: {len(bars)} trading days on or before {when}; the technical analysis needs "
            f"at least {MIN_BARS}"
        )
    close = np.array([b.close for b in bars], dtype=float)
    high = np.array([b.high for b in bars], dtype=float)
    low = np.array([b.low for b in bars], dtype=float)
    volume = np.array([b.volume for b in bars], dtype=float)
    last_close = float(close[-1])

    def sma(period: int) -> float | None:
        return _last(talib.SMA(close, timeperiod=period)) if len(close) >= period else None

    dif, dea, hist = talib.MACD(close, fastperiod=12, slowperiod=26, signalperiod=9)
    upper, middle, lower = talib.BBANDS(close, timeperiod=20, nbdevup=2.0, nbdevdn=2.0)
    atr = _last(talib.ATR(high, low, close, timeperiod=14))
    band = float(upper[-1] - lower[-1])
    prior_volume = float(volume[-6:-1].mean())
    year = slice(-YEAR_BARS, None)
    ma20, ma60 = sma(20), sma(60)
    levels = _key_levels(last_close, high, low, (ma20, ma60, _last(upper), _last(lower)), atr)
    return TechnicalFacts(
        symbol=str(history.symbol),
        as_of=bars[-1].date,
        bars_used=len(bars),
        adjustment=history.adjustment,
        close=last_close,
        change_1d_pct=rnd(pct_change(last_close, float(close[-2]))),
        change_20d_pct=rnd(pct_change(last_close, float(close[-21]))),
        ma5=sma(5),
        ma10=sma(10),
        ma20=ma20,
        ma60=ma60,
        ma120=sma(120),
        ma250=sma(250),
        macd_dif=_last(dif),
        macd_dea=_last(dea),
        macd_hist=_last(hist),
        macd_hist_prev=_last(hist, 2),
        rsi14=_last(talib.RSI(close, timeperiod=14)),
        boll_upper=_last(upper),
        boll_middle=_last(middle),
        boll_lower=_last(lower),
        boll_percent_b=rnd((last_close - float(lower[-1])) / band) if band > 0 else None,
        atr14=atr,
        atr_pct=rnd(atr / last_close * 100.0) if atr is not None else None,
        volatility_60d_pct=_realised_volatility(close, VOLATILITY_BARS),
        volume_ratio=rnd(float(volume[-1]) / prior_volume) if prior_volume > 0 else None,
        high_52w=float(high[year].max()),
        low_52w=float(low[year].min()),
        window_52w_bars=len(high[year]),
        levels=levels,
    )


def _key_levels(
    close: float, high: np.ndarray, low: np.ndarray, averages_and_bands: tuple[float | None, ...], atr: float | None
) -> KeyLevels:
    h20, l20 = float(high[-20:].max()), float(low[-20:].min())
    h60, l60 = float(high[-60:].max()), float(low[-60:].min())
    candidates = {round(v, 4) for v in (h20, l20, h60, l60, *averages_and_bands) if v is not None}
    return KeyLevels(
        support=tuple(sorted((v for v in candidates if v < close), reverse=True)),
        resistance=tuple(sorted(v for v in candidates if v > close)),
        high_20d=h20,
        low_20d=l20,
        high_60d=h60,
        low_60d=l60,
        atr_stop=rnd(close - 2.0 * atr) if atr is not None else None,
    )
