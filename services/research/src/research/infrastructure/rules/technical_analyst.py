"""Rules engine of the technical analyst (six equally weighted rules, see README "Rules engine")."""

from __future__ import annotations

from research.domain.analysis.technical import TechnicalFacts
from research.domain.model.verdicts import AgentAnswer, TechnicalVerdict
from research.domain.ports.agents import ExpertAgent
from research.infrastructure.rules.scoring import Language, RulesAgent, Scorecard, joined, no_risk_seen, num, tr
from shared_contracts.experts import Signal

OVERBOUGHT, OVERSOLD = 70.0, 30.0
VOLUME_CONFIRM = 1.5
HIGH_VOLATILITY_ATR_PCT = 3.0
NEAR_LEVEL_PCT = 2.0


def _above(a: float | None, b: float | None) -> int | None:
    if a is None or b is None:
        return None
    return 1 if a > b else -1 if a < b else 0


def score_technical(f: TechnicalFacts, lang: Language) -> Scorecard:
    card = Scorecard(lang)
    s = _above(f.close, f.ma20)
    card.add(
        "close_vs_ma20",
        s,
        {"close": f.close, "ma20": f.ma20},
        f"收盘价 {num(f.close)} {'高于' if s == 1 else '低于或等于'} MA20 {num(f.ma20)}",
        f"close {num(f.close)} is {'above' if s == 1 else 'not above'} MA20 {num(f.ma20)}",
    )
    s = _above(f.ma20, f.ma60)
    card.add(
        "ma20_vs_ma60",
        s,
        {"ma20": f.ma20, "ma60": f.ma60},
        f"MA20 {num(f.ma20)} {'高于' if s == 1 else '低于或等于'} MA60 {num(f.ma60)}",
        f"MA20 {num(f.ma20)} is {'above' if s == 1 else 'not above'} MA60 {num(f.ma60)}",
    )
    cross = ""
    if f.macd_hist is not None and f.macd_hist_prev is not None and (f.macd_hist > 0) != (f.macd_hist_prev > 0):
        golden = f.macd_hist > 0
        cross = tr(
            lang, f"（刚出现{'金叉' if golden else '死叉'}）", f" (a fresh {'golden' if golden else 'death'} cross)"
        )
    card.add(
        "macd_histogram",
        _above(f.macd_hist, 0.0),
        {"macd_hist": f.macd_hist, "macd_hist_prev": f.macd_hist_prev},
        f"MACD 柱 {num(f.macd_hist, 3)}（DIF {num(f.macd_dif, 3)}，DEA {num(f.macd_dea, 3)}）{cross}",
        f"MACD histogram {num(f.macd_hist, 3)} (DIF {num(f.macd_dif, 3)}, DEA {num(f.macd_dea, 3)}){cross}",
    )
    card.add(
        "rsi14",
        None if f.rsi14 is None else -1 if f.rsi14 >= OVERBOUGHT else 1 if f.rsi14 <= OVERSOLD else 0,
        {"rsi14": f.rsi14},
        f"RSI14 为 {num(f.rsi14, 1)}（≥70 超买，≤30 超卖）",
        f"RSI14 is {num(f.rsi14, 1)} (≥70 overbought, ≤30 oversold)",
    )
    b = f.boll_percent_b
    card.add(
        "bollinger_percent_b",
        None if b is None else -1 if b > 1 else 1 if b < 0 else 0,
        {"percent_b": b},
        f"布林带 %b {num(b)}（上轨 {num(f.boll_upper)}，下轨 {num(f.boll_lower)}）",
        f"Bollinger %b {num(b)} (upper {num(f.boll_upper)}, lower {num(f.boll_lower)})",
    )
    vr, chg = f.volume_ratio, f.change_1d_pct
    card.add(
        "volume_confirmation",
        None if vr is None or chg is None else (0 if vr < VOLUME_CONFIRM else 1 if chg > 0 else -1 if chg < 0 else 0),
        {"volume_ratio": vr, "change_1d_pct": chg},
        f"量比 {num(vr)}，当日涨跌 {num(chg)}%",
        f"volume ratio {num(vr)} with a {num(chg)}% day",
    )
    return card


def risk_text(f: TechnicalFacts, lang: Language) -> str:
    """Investment risks only (volatility, RSI extremes, nearby resistance). The 2×ATR stop is a level
    (``key_technical_levels.atr_stop``) and the price adjustment a data note (``caveats``): neither is a risk."""
    risks = []
    if f.atr_pct is not None and f.atr_pct >= HIGH_VOLATILITY_ATR_PCT:
        zh, en = (
            f"波动较大：ATR14 占收盘价 {num(f.atr_pct)}%",
            f"high volatility: ATR14 is {num(f.atr_pct)}% of the close",
        )
        risks.append(tr(lang, zh, en))
    rsi = num(f.rsi14, 1)
    if f.rsi14 is not None and f.rsi14 >= OVERBOUGHT:
        risks.append(tr(lang, f"RSI14 {rsi} 处于超买区，存在回调风险", f"RSI14 {rsi} is overbought, a pullback risk"))
    if f.rsi14 is not None and f.rsi14 <= OVERSOLD:
        zh, en = f"RSI14 {rsi} 处于超卖区，趋势可能延续", f"RSI14 {rsi} is oversold, and the downtrend may persist"
        risks.append(tr(lang, zh, en))
    if f.levels.resistance and (f.levels.resistance[0] / f.close - 1) * 100 <= NEAR_LEVEL_PCT:
        level, near = num(f.levels.resistance[0]), f"{NEAR_LEVEL_PCT:.0f}%"
        risks.append(
            tr(lang, f"上方阻力 {level} 距收盘价不足 {near}", f"resistance {level} is within {near} of the close")
        )
    return joined(lang, risks)


class RulesTechnicalAnalystAgent(RulesAgent, ExpertAgent[TechnicalFacts, TechnicalVerdict]):
    async def analyse(self, facts: TechnicalFacts) -> AgentAnswer[TechnicalVerdict]:
        card = score_technical(facts, self._lang)
        signal = card.pick(Signal.BULLISH, Signal.BEARISH, Signal.NEUTRAL)
        verdict = TechnicalVerdict(
            signal=signal,
            confidence=card.confidence,
            summary_reasoning=card.summary(
                f"{facts.symbol} 截至 {facts.as_of} 技术面{card.pick('偏多', '偏空', '中性')}",
                f"{facts.symbol} as of {facts.as_of} is technically {signal.value.lower()}",
            ),
            risk_warning=risk_text(facts, self._lang) or no_risk_seen(self._lang),
        )
        caveats = ["prices are forward-adjusted (qfq)"] if facts.adjustment == "qfq" else []
        return card.answer(verdict, facts, caveats)
