"""The experts' data notes (``data_gaps``, ``staleness``, the intrinsic range's ``assumptions``) in the research's
language. The analysis writes them in English; ``in_language`` gives each its Chinese sentence for a ``zh``
research (a note no pattern knows stays as written, so a new note shows up in the language sweep's test)."""

from __future__ import annotations

import re
from collections.abc import Iterable

_LABELS = {
    "revenue": "营收",
    "ROE": "ROE",
    "gross margin": "毛利率",
    "operating cash flow": "经营现金流",
    "total assets/liabilities": "资产负债",
    "payout ratio": "分红率",
}
SERIES_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "pmi_manufacturing_nbs": "manufacturing PMI",
        "cpi_yoy": "CPI YoY",
        "ppi_yoy": "PPI YoY",
        "m2_yoy": "M2 YoY",
        "lpr_1y": "1-year LPR",
        "cgb_10y_yield": "10-year government bond yield",
    },
    "zh": {
        "pmi_manufacturing_nbs": "制造业PMI",
        "cpi_yoy": "CPI同比",
        "ppi_yoy": "PPI同比",
        "m2_yoy": "M2同比",
        "lpr_1y": "1年期LPR",
        "cgb_10y_yield": "10年期国债收益率",
    },
}
"""The macro series' names in a note (an unknown series keeps its key)."""
_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(f"^{pattern}$"), zh)
    for pattern, zh in (
        (
            r"only (?P<n>\d+) bars: no MA250 and a 52-week range over (?P<m>\d+) bars",
            "仅有 {n} 根K线：无 MA250，52 周区间按 {m} 根K线计算",
        ),
        (r"only (?P<n>\d+) annual periods \(asked for (?P<limit>\d+)\)", "仅有 {n} 期年报（请求 {limit} 期）"),
        (r"no (?P<label>.+) in any period", "各期均无{label}数据"),
        (
            r"no (?P<label>revenue|ROE|gross margin|operating cash flow|total assets/liabilities|payout ratio) for "
            r"(?P<years>[\d, ]+)",
            "{years} 年无{label}数据",
        ),
        (
            r"net profit attributable to the parent is not reported; total net profit is used",
            "未披露归母净利润，使用净利润总额",
        ),
        (
            r"multiples computed here from the close and the latest public annual report: .*",
            "估值倍数由收盘价与最新公开年报计算：PE 按上一年报利润（非 TTM），股本 = 分红总额 / 每股分红；前复权收盘价"
            "会低估较早的价格",
        ),
        (r"dividend yield sources disagree: (?P<values>.+)", "各来源股息率不一致：{values}"),
        (
            r"no valuation history: the PE percentile is the source's \(window not stated\)",
            "无估值历史：PE 分位取自数据源（未说明窗口）",
        ),
        (r"no PE percentile: no valuation history", "无 PE 分位：没有估值历史"),
        (r"no PB", "无 PB 数据"),
        (
            r"no 10-year government bond yield for the earnings-yield comparison",
            "无 10 年期国债收益率，无法比较盈利收益率",
        ),
        (
            r"no intrinsic value range: needs price, a positive PE and the 10-year yield",
            "无内在价值区间：需要股价、为正的 PE 与 10 年期国债收益率",
        ),
        (r"no price bars: .*", "分析日无可用的价格K线"),
        (r"too few bars", "价格K线过少"),
        (r"no annual financials: .*", "分析日无公开的年报"),
        (r"no news from (?P<source>.+)", "数据源 {source} 无新闻"),
        (r"no (?P<name>.+) series", "无{name}序列"),
        (
            r"the latest bar is (?P<day>\S+), (?P<n>\d+) weekdays before the analysis date (?P<on>\S+): (?P<source>.+) "
            r"has nothing newer",
            "最新K线为 {day}，早于分析日 {on} {n} 个工作日：数据源 {source} 没有更新的数据",
        ),
        (
            r"the latest annual report public on (?P<on>\S+) is for (?P<end>\S+), more than (?P<months>\d+) months "
            r"earlier",
            "{on} 已公开的最新年报为 {end} 期，早于分析日超过 {months} 个月",
        ),
        (
            r"the valuation snapshot is of (?P<day>\S+), (?P<age>\d+) days before (?P<on>\S+)",
            "估值快照为 {day}，早于 {on} {age} 天",
        ),
        (
            r"macro series not updated recently on (?P<on>\S+): (?P<series>.+)",
            "截至 {on} 近期未更新的宏观序列：{series}",
        ),
        (r"price / PE\(TTM\) from the same valuation snapshot", "股价 / PE(TTM)，取自同一估值快照"),
        (
            r"price / PE on the last annual profit \(not TTM\), from the same computed snapshot",
            "股价 / 按上一年报利润计算的 PE（非 TTM），取自同一计算快照",
        ),
        (r"10-year government bond yield", "10 年期国债收益率"),
        (
            r"none: current earnings held flat forever \(a conservative floor for growing firms\)",
            "不假设增长：当前盈利永续持平（对成长型公司是保守的下限）",
        ),
    )
)


def in_language(note: str, language: str) -> str:
    """``note`` in ``language``: as written for ``en``, its Chinese sentence for ``zh`` (module doc)."""
    if language != "zh":
        return note
    for pattern, zh in _ZH:
        if found := pattern.match(note):
            names = {english: SERIES_LABELS["zh"][key] for key, english in SERIES_LABELS["en"].items()}
            values = {
                k: _SERIES_KEY.sub(_zh_series, _LABELS.get(v, names.get(v, v))) for k, v in found.groupdict().items()
            }
            return zh.format(**values)
    return note


_SERIES_KEY = re.compile("|".join(rf"\b{key}\b" for key in SERIES_LABELS["zh"]))


def _zh_series(found: re.Match[str]) -> str:
    return SERIES_LABELS["zh"][found.group(0)]


def missing_series(names: Iterable[str], language: str) -> list[str]:
    """A note per macro series the data lacks, its name in ``language`` (``SERIES_LABELS``)."""
    labels = SERIES_LABELS["en"]
    return notes_in((f"no {labels.get(name, name)} series" for name in names), language)


def notes_in(notes: Iterable[str], language: str) -> list[str]:
    """Each of ``notes`` in ``language`` (``in_language``)."""
    return [in_language(note, language) for note in notes]
