"""A labelled corpus of model answers for the numbers gate: the facts of the offline snapshot (what the experts'
prompts carry), written into realistic zh and en sentences with the figures correct in their usual spellings,
and wrong figures planted among them (another day's close, another stock's PE, a wrong unit, an invented
percentage, a stop that differs from the structured one, a flipped sign, another day's date).

A planted figure is wrong as written: its value is no figure of the input at its shown precision (as given, or
×100). A draw that is (another day's close that rounds to one of the day's levels, an "invented" percentage
that happens to be one of the input's) is drawn again; ``Corpus.redrawn`` counts them.

``build_corpus()`` returns the answers; each knows the span and label of every figure it holds."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from research.container import ResearchContainer
from shared_contracts.errors import ServiceError

SYMBOLS = ["600519.SH", "000001.SZ", "300750.SZ", "601318.SH", "000858.SZ", "600036.SH", "002594.SZ", "601012.SH"]
DATES = [date(2023, 6, 30), date(2024, 6, 28), date(2025, 3, 31)]
WRONG = (
    "other_day_close",
    "swapped_pe",
    "wrong_unit",
    "invented_percent",
    "stop_mismatch",
    "flipped_sign",
    "other_date",
)
_FULL_WIDTH = str.maketrans("0123456789.%", "０１２３４５６７８９．％")


@dataclass(frozen=True)
class Figure:
    field: str
    start: int
    end: int
    wrong: bool
    category: str


@dataclass
class Answer:
    """Texts by field, the labelled figures in them, the facts they were written from, the structured levels."""

    language: str
    sources: list[str]
    texts: dict[str, str] = field(default_factory=dict)
    figures: list[Figure] = field(default_factory=list)
    levels: dict[str, list[float]] | None = None

    def write(self, name: str, *parts: str | tuple[str, bool, str]) -> None:
        """Append to field ``name``: plain strings, or (figure text, wrong, category)."""
        text = self.texts.get(name, "")
        for part in parts:
            if isinstance(part, str):
                text += part
                continue
            shown, wrong, category = part
            self.figures.append(Figure(name, len(text), len(text) + len(shown), wrong, category))
            text += shown
        self.texts[name] = text


def ok(text: str, category: str) -> tuple[str, bool, str]:
    return (text, False, category)


def bad(text: str, category: str) -> tuple[str, bool, str]:
    return (text, True, category)


def full_width(text: str) -> str:
    return text.translate(_FULL_WIDTH)


async def _facts(container: ResearchContainer, expert: str, symbol: str, on: date) -> dict[str, Any] | None:
    try:
        result = await container.experts.run(expert, symbol, analysis_date=on)
    except ServiceError:
        return None
    facts: dict[str, Any] = result["input"]
    return facts


def _price(value: float, rng: random.Random, zh: bool) -> str:
    style = rng.randrange(4)
    if style == 0:
        return f"{value:,.2f} 元" if zh else f"¥{value:,.2f}"
    if style == 1:
        return f"¥{value:.2f}" if zh else f"{value:,.2f} yuan"
    if style == 2:
        return full_width(f"{value:.2f}") + "元" if zh else f"RMB {value:,.2f}"
    return f"{value:,.1f}"


REDRAWN: dict[str, int] = {}


def _leaves(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [abs(float(value))]
    if isinstance(value, dict):
        return [x for item in value.values() for x in _leaves(item)]
    if isinstance(value, list):
        return [x for item in value for x in _leaves(item)]
    return []


def absent(value: float, step: float, facts: dict[str, Any]) -> bool:
    """Whether ``value`` written at precision ``step`` is none of the facts' figures (as given or ×100)."""
    return all(abs(value - v) > step / 2 and abs(value - 100 * v) > step / 2 for v in _leaves(facts))


def _invented_percent(rng: random.Random, facts: dict[str, Any]) -> str:
    while True:
        value = round(rng.uniform(2, 60), 1)
        if absent(value, 0.1, facts):
            return f"{value:.1f}%"
        REDRAWN["invented_percent"] = REDRAWN.get("invented_percent", 0) + 1


async def build_corpus(container: ResearchContainer, seed: int = 39) -> list[Answer]:
    rng = random.Random(seed)
    answers: list[Answer] = []
    pes: dict[date, dict[str, float]] = {}
    for on in DATES:
        for symbol in SYMBOLS:
            valuation = await _facts(container, "valuation_modeler", symbol, on)
            if valuation and valuation.get("pe_ttm"):
                pes.setdefault(on, {})[symbol] = valuation["pe_ttm"]
    for language in ("zh", "en"):
        zh = language == "zh"
        for on in DATES:
            for symbol in SYMBOLS:
                tech = await _facts(container, "technical_analyst", symbol, on)
                closes = [
                    await _facts(container, "technical_analyst", symbol, on - timedelta(days=d)) for d in (35, 7, 63)
                ]
                earlier = [c["close"] for c in closes if c and tech and absent(round(c["close"], 2), 0.01, tech)]
                REDRAWN["other_day_close"] = REDRAWN.get("other_day_close", 0) + (
                    1 if closes[0] and not earlier[:1] else 0
                )
                if tech and earlier:
                    answers.append(_technical(tech, earlier[0], rng, zh))
                valuation = await _facts(container, "valuation_modeler", symbol, on)
                others = [
                    pe
                    for s, pe in pes.get(on, {}).items()
                    if s != symbol and valuation and absent(round(pe, 1), 0.1, valuation)
                ]
                if valuation and valuation.get("pe_ttm") and others:
                    answers.append(_valuation(valuation, rng.choice(others), rng, zh))
                financial = await _facts(container, "financial_auditor", symbol, on)
                if financial and financial.get("periods"):
                    answers.append(_financial(financial, rng, zh))
                if tech:
                    answers.append(_verdict(tech, rng, zh))
    return answers


def _sources(*facts: dict[str, Any]) -> list[str]:
    import json

    return [json.dumps(f, ensure_ascii=False, sort_keys=True) for f in facts]


def _planted_price(value: float, rng: random.Random, zh: bool) -> str:
    """A price in a two-decimal spelling."""
    return [f"{value:,.2f} 元" if zh else f"¥{value:,.2f}", f"¥{value:.2f}", f"{value:,.2f}"][rng.randrange(3)]


def _range_52w(a: Answer, t: dict[str, Any], head: str, joint: str, tail: str) -> None:
    low, high = ok(f"{t['low_52w']:,.2f}", "range_low"), ok(f"{t['high_52w']:,.2f}", "range_high")
    a.write("summary_reasoning", head, low, joint, high, tail)


def _technical(t: dict[str, Any], earlier_close: float, rng: random.Random, zh: bool) -> Answer:
    a = Answer("zh" if zh else "en", _sources(t))
    INPUT = t  # noqa: N806
    close, chg = t["close"], t["change_1d_pct"]
    as_of = date.fromisoformat(t["as_of"])
    if zh:
        a.write(
            "summary_reasoning", "截至 ", ok(t["as_of"], "date_iso"), "，收盘价 ", ok(_price(close, rng, zh), "price")
        )
        a.write(
            "summary_reasoning", "，", "当日下跌 " if chg < 0 else "当日上涨 ", ok(f"{abs(chg):.2f}%", "signed_change")
        )
        if t.get("ma20"):
            a.write("summary_reasoning", "；MA20 为 ", ok(f"{t['ma20']:,.2f}", "indicator"))
        if t.get("rsi14") is not None:
            a.write("summary_reasoning", "，RSI14 约 ", ok(f"{t['rsi14']:.0f}", "indicator_rounded"))
        if t.get("boll_percent_b") is not None:
            a.write(
                "summary_reasoning", "，布林带 %b 位于 ", ok(f"{t['boll_percent_b'] * 100:.0f}%", "fraction_as_percent")
            )
        a.write("summary_reasoning", "。近 ", ok("3", "count"), " 个信号偏", "多" if chg > 0 else "空", "。")
        _range_52w(a, t, "52 周区间 ", "–", " 元；")
        a.write("summary_reasoning", ok(f"{as_of.year}年{as_of.month}月{as_of.day}日", "date_zh"), "成交量比为 ")
        a.write("summary_reasoning", ok(full_width(f"{t['volume_ratio']:.2f}"), "full_width"), "。")
        a.write(
            "summary_reasoning", "此前收盘价曾为 ", bad(_planted_price(earlier_close, rng, zh), "other_day_close"), "。"
        )
        a.write("risk_warning", "ATR14 占收盘价 ", ok(f"{t['atr_pct']:.2f}%", "percent"), "；回撤风险约 ")
        a.write("risk_warning", bad(_invented_percent(rng, INPUT), "invented_percent"), "。")
        flipped = f"{abs(chg):.2f}%"
        a.write("risk_warning", "注意：当日" + ("上涨 " if chg < 0 else "下跌 "), bad(flipped, "flipped_sign"), "。")
        wrong_day = as_of - timedelta(days=rng.choice([1, 7, 30]))
        a.write("risk_warning", "数据截至 ", bad(wrong_day.isoformat(), "other_date"), "。")
    else:
        a.write("summary_reasoning", "As of ", ok(as_of.strftime("%B %-d, %Y"), "date_en"), ", the stock closed at ")
        a.write("summary_reasoning", ok(_price(close, rng, zh), "price"), (", down " if chg < 0 else ", up "))
        a.write("summary_reasoning", ok(f"{abs(chg):.2f}%", "signed_change"), " on the day")
        if t.get("ma20"):
            a.write("summary_reasoning", "; MA20 is ", ok(f"{t['ma20']:,.2f}", "indicator"))
        if t.get("rsi14") is not None:
            a.write("summary_reasoning", ", RSI14 near ", ok(f"{t['rsi14']:.1f}", "indicator"))
        if t.get("boll_percent_b") is not None:
            a.write("summary_reasoning", ", Bollinger %b at ", ok(f"{t['boll_percent_b']:.2f}", "indicator"))
        a.write("summary_reasoning", ". ", ok("2", "count"), " of the ", ok("6", "count"), " rules point the same way.")
        _range_52w(a, t, " The 52-week range is ", " to ", f" (data of {t['as_of']}).")
        a.write(
            "summary_reasoning",
            " A month ago it closed at ",
            bad(_planted_price(earlier_close, rng, zh), "other_day_close"),
        )
        a.write("risk_warning", "ATR14 is ", ok(f"{t['atr_pct']:.1f}%", "percent"), " of the close; a drawdown of ")
        a.write("risk_warning", bad(_invented_percent(rng, INPUT), "invented_percent"), " is plausible; it ")
        a.write("risk_warning", "rose " if chg < 0 else "fell ", bad(f"{abs(chg):.2f}%", "flipped_sign"), " today")
        wrong_day = as_of - timedelta(days=rng.choice([1, 7, 30]))
        a.write("risk_warning", " (figures of ", bad(wrong_day.isoformat(), "other_date"), ").")
    return a


def _valuation(v: dict[str, Any], other_pe: float, rng: random.Random, zh: bool) -> Answer:
    a = Answer("zh" if zh else "en", _sources(v))
    INPUT = v  # noqa: N806
    pe, mv = v["pe_ttm"], v.get("total_mv")
    if zh:
        a.write(
            "reasoning_summary",
            "市盈率(TTM) ",
            ok(f"{pe:.2f}倍", "multiple"),
            "，约 ",
            ok(f"{pe:.0f} 倍", "multiple_rounded"),
        )
        if v.get("dividend_yield_pct") is not None:
            a.write("reasoning_summary", "，股息率 ", ok(f"{v['dividend_yield_pct']:.1f}%", "percent"))
        if mv:
            a.write("reasoning_summary", "，总市值 ", ok(f"{mv / 1e8:,.0f}亿元", "magnitude_yi"))
            a.write(
                "reasoning_summary",
                "（约 ",
                ok(f"{mv / 1e12:.2f}万亿元", "magnitude_wanyi")
                if mv >= 1e12
                else ok(f"{mv / 1e4:,.0f}万元", "magnitude_wan"),
                "）",
            )
        a.write("reasoning_summary", "。可比公司 PE 为 ", bad(f"{other_pe:.2f}倍", "swapped_pe"), "。")
        if mv:
            a.write("risk_factors[0]", "市值 ", bad(f"{mv / 1e8:,.1f}万元", "wrong_unit"), " 对应的估值偏高")
        a.write("risk_factors[1]", "盈利可能下滑 ", bad(_invented_percent(rng, INPUT), "invented_percent"))
    else:
        a.write("reasoning_summary", "The stock trades at ", ok(f"{pe:.1f}x", "multiple"), " trailing earnings (PE ")
        a.write("reasoning_summary", ok(f"{pe:.2f}", "plain"), ")")
        if v.get("dividend_yield_pct") is not None:
            a.write(
                "reasoning_summary", " with a ", ok(f"{v['dividend_yield_pct']:.2f}%", "percent"), " dividend yield"
            )
        if mv:
            a.write("reasoning_summary", " and a market value of ¥", ok(f"{mv / 1e9:,.1f} billion", "magnitude_en"))
        a.write("reasoning_summary", ". Its peer trades at ", bad(f"{other_pe:.1f}x", "swapped_pe"), ".")
        if mv:
            a.write(
                "risk_factors[0]",
                "a market value of ¥",
                bad(f"{mv / 1e6:,.1f} billion", "wrong_unit"),
                " prices in growth",
            )
        a.write("risk_factors[1]", "margins could fall by ", bad(_invented_percent(rng, INPUT), "invented_percent"))
    return a


def _financial(f: dict[str, Any], rng: random.Random, zh: bool) -> Answer:
    """One sentence sequence; each fragment in zh or en."""
    a = Answer("zh" if zh else "en", _sources(f))
    last = f["periods"][-1]
    year = last["period_end"][:4]
    revenue, growth, roe = last.get("revenue"), last.get("net_profit_yoy_pct"), last.get("roe_pct")

    def t(zh_text: str, en_text: str) -> str:
        return zh_text if zh else en_text

    a.write("summary_reasoning", t("", "In FY"), ok(t(f"{year}年", year), "year"), t("营收 ", " revenue was "))
    if revenue:
        shown = t(f"{revenue / 1e8:,.1f}亿元", f"¥{revenue / 1e9:,.1f}bn")
        a.write("summary_reasoning", ok(shown, t("magnitude_yi", "magnitude_en")), t("，", " and "))
    if growth is not None:
        direction = t("下降 ", "fell ") if growth < 0 else t("增长 ", "grew ")
        change = ok(f"{abs(growth):.1f}%", "signed_change")
        a.write("summary_reasoning", t("净利润同比", "net profit ") + direction, change)
    if roe is not None:
        a.write("summary_reasoning", t("，ROE ", ", with ROE at "), ok(t(f"{roe:.1f}%", f"{roe:.2f}%"), "percent"))
    first, second = t("5", "3"), t("3", "5")
    a.write("summary_reasoning", t("；", "; "), ok(first, "count"), t(" 个维度中 ", " of "), ok(second, "count"))
    a.write("summary_reasoning", t(" 个正面。", " dimensions are positive."))
    if revenue:
        wrong = t(f"{revenue / 1e8:,.1f}万元", f"{revenue / 1e6:,.1f}bn")
        a.write("risk_warning", t("营收 ", "revenue of ¥"), bad(wrong, "wrong_unit"), t(" 增速放缓", " may slow"))
    invented = bad(_invented_percent(rng, f), "invented_percent")
    a.write("risk_warning", t("，应收账款占比升至 ", "; receivables rose to "), invented, t("", " of sales"))
    return a


def _verdict(facts: dict[str, Any], rng: random.Random, zh: bool) -> Answer:
    """A verdict's texts: the stop and target quoted as the structured levels (and one stop that is not)."""
    a = Answer("zh" if zh else "en", _sources(facts))
    close = facts["close"]
    stop_pct, take_pct = round(rng.uniform(3, 9), 2), round(rng.uniform(8, 25), 2)
    stop, take = round(close * (1 - stop_pct / 100), 2), round(close * (1 + take_pct / 100), 2)
    a.levels = {"stop": [stop_pct, stop], "take": [take_pct, take], "position": [12.5]}
    wrong_stop = round(stop * rng.choice([0.95, 0.97, 1.03]), 2)

    def t(zh_text: str, en_text: str) -> str:
        return zh_text if zh else en_text

    price = ok(_price(close, rng, zh), "price")
    a.write(
        "entry_strategy",
        t("以收盘价 ", "Buy near the "),
        price,
        t(" 附近分批建仓，仓位 ", " close with a position of "),
    )
    a.write("entry_strategy", ok("12.5%", "position"), t("，止损 ", "; stop-loss at "))
    a.write("entry_strategy", ok(t(f"{stop:,.2f} 元", f"{stop:,.2f}"), "stop"), t("（", " ("))
    a.write("entry_strategy", ok(t(f"{stop_pct:.2f}%", f"{stop_pct:.1f}%"), "stop_percent"), t("），", " below entry)"))
    a.write(
        "entry_strategy", t("止盈 ", ", take-profit at "), ok(t(f"{take:,.2f}", f"¥{take:,.2f}"), "take"), t("。", ".")
    )
    a.write(
        "reasoning",
        t("若跌破止损位 ", "Exit if the price breaks the stop at "),
        bad(f"{wrong_stop:,.2f}", "stop_mismatch"),
    )
    a.write("reasoning", t(" 则离场。", "."))
    return a


@dataclass
class Score:
    """Per category: figures, and how many the gate flagged; plus flagged claims no label covers."""

    figures: dict[str, int] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)
    unlabelled_flags: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def rate(self, wrong: bool) -> tuple[int, int]:
        names = [c for c in self.figures if (c in WRONG) == wrong]
        return sum(self.flagged.get(c, 0) for c in names), sum(self.figures[c] for c in names)


def score(answers: list[Answer]) -> Score:
    from service_kit.llm.numbers.gate import check_texts
    from service_kit.llm.numbers.sources import sources_from

    result = Score()
    for answer in answers:
        found = check_texts(answer.texts, sources_from(answer.sources), answer.levels)  # type: ignore[arg-type]
        flagged_spans = [(c.field, c.start, c.end) for c in found.unverified]
        covered = set()
        for fig in answer.figures:
            result.figures[fig.category] = result.figures.get(fig.category, 0) + 1
            hits = [s for s in flagged_spans if s[0] == fig.field and s[1] < fig.end and fig.start < s[2]]
            covered.update(hits)
            if hits:
                result.flagged[fig.category] = result.flagged.get(fig.category, 0) + 1
            if bool(hits) != fig.wrong:
                result.misses.append(
                    f"{fig.category}: {answer.texts[fig.field][fig.start : fig.end]!r} in {answer.texts[fig.field]!r}"
                )
        result.unlabelled_flags += [
            f"{answer.texts[f][s:e]!r} in {answer.texts[f]!r}" for f, s, e in flagged_spans if (f, s, e) not in covered
        ]
    return result
