"""The words a Chinese narrative writes for the contracts' enum values (``BULLISH`` → 看多, ``HOLD`` → 持有,
``SHORT_TERM`` → 短期); an English narrative keeps the values. The console's catalogue (``enum.*``, ``action.*``
in i18n.js) uses the same words.

    >>> enum_word("HOLD", "zh"), enum_word("HOLD", "en")
    ('持有', 'HOLD')
"""

from __future__ import annotations

ZH_WORDS = {
    "BUY": "买入",
    "SELL": "卖出",
    "HOLD": "持有",
    "BULLISH": "看多",
    "BEARISH": "看空",
    "NEUTRAL": "中性",
    "UNDERVALUED": "低估",
    "FAIRLY_VALUED": "估值合理",
    "OVERVALUED": "高估",
    "FAVORABLE": "有利",
    "UNFAVORABLE": "不利",
    "POSITIVE": "正面",
    "NEGATIVE": "负面",
    "HIGH": "高",
    "MEDIUM": "中",
    "LOW": "低",
    "SHORT_TERM": "短期",
    "MEDIUM_TERM": "中期",
    "LONG_TERM": "长期",
}


def enum_word(value: str, language: str) -> str:
    """``value`` as a narrative in ``language`` writes it: its Chinese word in ``zh`` (the value itself when it has
    none), the value unchanged in any other language."""
    return ZH_WORDS.get(value, value) if language == "zh" else value
