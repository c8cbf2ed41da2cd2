"""The numeric claims in a piece of model text (zh or en), each with its value as written, its shown precision,
its unit and, from the words before it, its direction and role.

What is a claim and what is not is decided by the rules of ``docs/decisions.md`` ("Numbers gate"), in order:

1. Full-width digits and signs are read as ASCII (``１２．５％`` is ``12.5%``).
2. Dates (``2024-03-15``, ``2024/3/15``, ``2024年3月15日``, ``2024年3月``, ``3月15日``, ``March 15, 2024``) and
   years (a four-digit 1900–2100 integer with no unit, or before ``年``) are date claims.
3. Not claims: digits that belong to a word (``MA20``, ``RSI14``, ``Q3``, ``T+1``, ``600519.SH``, ``3rd``),
   ordinals (``第3``, ``No. 2``, ``#2``) and list markers (``1.``, ``2、``, ``(3)`` opening a line or an item).
4. Windows are not measurements: an integer before a period word (``20-day``, ``20 trading days``, ``60日``,
   ``3个月``, ``5年``) is a ``window`` claim, counted apart and never flagged.
5. Counts: an integer before a counting word (zh measure words ``个 项 条 位 名 家 次 只 种 类 笔 份 大 方面``; en a
   plural noun within four words, or any word after ``1``; in ``2 positive and 1 negative catalyst`` the first
   integer is what the second is) is a ``count`` claim.
6. Everything else is a measurement: ``percent`` (``%``), ``points`` (``个百分点``, ``pp``), ``bps``, ``multiple``
   (``x``, ``倍``, ``times``), ``amount`` (a currency ``¥ 元 $ US$ HK$ 港元 美元 RMB`` or a magnitude ``万 亿 million
   bn``) or ``plain``. A range (``10–12%``, ``1.5~2倍``) is two claims with the second one's unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal, TypedDict

Kind = Literal["percent", "points", "bps", "multiple", "amount", "plain", "date", "count", "window"]
Role = Literal["stop", "take", "position"]

_FULL_WIDTH = str.maketrans("０１２３４５６７８９．％＋－", "0123456789.%+-")
"""Not the full-width comma: ``，`` is Chinese punctuation, never a thousands separator."""

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_CURRENCY_BEFORE = r"US\$|HK\$|\$|¥|￥|RMB ?|CNY ?|USD ?|HKD ?"
_UNIT = (
    r"个百分点|百分点|个基点|基点|%|pp(?![A-Za-z])|bps?(?![A-Za-z])|[xX×](?![A-Za-z])|倍| ?times(?![A-Za-z])"
    r"| ?倍? ?ATR(?![A-Za-z])"
    r"|万亿|亿|万|千|[kK](?![A-Za-z])|mn(?![A-Za-z])|bn(?![A-Za-z])|[mMB](?![A-Za-z])"
    r"| ?million(?![A-Za-z])| ?billion(?![A-Za-z])| ?thousand(?![A-Za-z])| ?trillion(?![A-Za-z])"
)
_CURRENCY_AFTER = (
    r"元|块|美元|港元|港币|人民币| ?yuan(?![A-Za-z])| ?RMB(?![A-Za-z])| ?USD(?![A-Za-z])| ?HKD(?![A-Za-z])"
)
_RANGE = r" ?(?:-|–|—|~|～|至|到| to ) ?"
_CLAIM = re.compile(
    rf"(?P<sign>[+\-−])?(?P<cur>{_CURRENCY_BEFORE})?(?P<sign2>[+\-−])?(?P<num>{_NUM})"
    rf"(?:(?P<unit1>{_UNIT})?(?P<range>{_RANGE})(?P<cur2>{_CURRENCY_BEFORE})?(?P<num2>{_NUM}))?"
    rf"(?P<unit>{_UNIT})?(?P<curafter>{_CURRENCY_AFTER})?"
)
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    )
    for m in (names,)
}
_MONTH_WORD = (
    r"(?P<mon>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ZH_DATE_MARK = re.compile("月")
_EN_MONTH_MARK = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)")
_DATES: list[tuple[re.Pattern[str] | None, re.Pattern[str]]] = [
    (None, re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")),
    (_ZH_DATE_MARK, re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2}) ?年 ?(?P<m>\d{1,2}) ?月(?: ?(?P<d>\d{1,2}) ?[日号])?")),
    (_ZH_DATE_MARK, re.compile(r"(?<![\d年])(?P<m>\d{1,2}) ?月 ?(?P<d>\d{1,2}) ?[日号]")),
    (_EN_MONTH_MARK, re.compile(rf"\b{_MONTH_WORD}\.? (?P<d>\d{{1,2}})(?:st|nd|rd|th)?,? (?P<y>(?:19|20)\d{{2}})\b")),
    (_EN_MONTH_MARK, re.compile(rf"\b(?P<d>\d{{1,2}}) {_MONTH_WORD}\.?,? (?P<y>(?:19|20)\d{{2}})\b")),
    (_EN_MONTH_MARK, re.compile(rf"\b{_MONTH_WORD}\.? (?P<y>(?:19|20)\d{{2}})\b")),
]
"""Each date pattern, after a cheap test that the text may hold it at all."""

_SCALES = {"万亿": 1e12, "亿": 1e8, "万": 1e4, "千": 1e3, "k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6}
_SCALES |= {"million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9, "trillion": 1e12}
_UNIT_KIND: dict[str, Kind] = {"%": "percent", "个百分点": "points", "百分点": "points", "pp": "points"}
_UNIT_KIND |= {"bp": "bps", "bps": "bps", "个基点": "bps", "基点": "bps"}
_UNIT_KIND |= {"x": "multiple", "×": "multiple", "倍": "multiple", "times": "multiple", "atr": "multiple"}
_UNIT_KIND |= {"倍atr": "multiple", "倍 atr": "multiple"}

_WINDOW_AFTER = re.compile(
    r"(?:-| )?(?:trading[- ]days?|days?|weeks?|months?|years?|sessions?|quarters?|bars?|periods?|日|天|周|个月|"
    r"个交易日|交易日|年|季度|个季度|期|根)(?![A-Za-z])"
)
_COUNT_AFTER_ZH = re.compile(r" ?(?:个|项|条|位|名|家|次|只|种|类|笔|份|大|方面|点理由)")
COUNT_NOUN_WORDS = 4
"""How far (in words) an en count's plural noun may be: ``2 positive and 1 negative catalysts``."""
_COORDINATED = re.compile(r" (?:[A-Za-z-]+ ){0,2}(?:and|or|to) (\d+)(?![\d.,%])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_NOT_NOUNS = frozenset(
    [
        "is",
        "was",
        "has",
        "does",
        "this",
        "thus",
        "its",
        "his",
        "hers",
        "ours",
        "yours",
        "less",
        "across",
        "plus",
        "always",
        "perhaps",
        "minus",
        "whereas",
        "times",
        "percent",
        "points",
        "yuan",
        "dollars",
        "shares",
        "lots",
        "basis",
        "bps",
    ]
)
_ORDINAL_BEFORE = re.compile(r"(?:第|No\. ?|no\. ?|#|Nr\. ?)$")
_DOTTED = re.compile(r"\.[A-Za-z]")
_LIST_MARKER = re.compile(r"(?:^|[\n;；:：])\s*[(（]?$")
_LIST_MARKER_AFTER = re.compile(r"(?:[.、)）](?!\d))")

_UP = ("上涨", "上升", "增长", "增加", "提升", "升至", "涨幅", "涨", "升", "增", "反弹")
_DOWN = ("下跌", "下降", "减少", "下滑", "降至", "跌幅", "跌", "降", "减", "萎缩")
_UP_EN = frozenset(
    [
        "up",
        "rose",
        "rise",
        "rises",
        "rising",
        "gained",
        "gain",
        "gains",
        "grew",
        "grow",
        "grows",
        "increased",
        "increase",
        "increases",
    ]
)
_DOWN_EN = frozenset(
    [
        "down",
        "fell",
        "fall",
        "falls",
        "falling",
        "dropped",
        "drop",
        "drops",
        "declined",
        "decline",
        "declines",
        "decreased",
        "decrease",
        "lost",
    ]
)
_ROLE_WORDS: tuple[tuple[Role, tuple[str, ...]], ...] = (
    ("stop", ("止损", "stop-loss", "stop loss", "stop")),
    ("take", ("止盈", "目标价", "目标位", "take-profit", "take profit", "target")),
    ("position", ("仓位", "position")),
)
QUANTITY_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "close",
        re.compile(
            r"(?:(?<![占距较比低高于])收盘价|(?<![占距较比低高于])收盘|收于|\bclosed? at|\bclose of|\bclosing price)"
            r"[\s为是约曾达在了:：]{0,4}$",
            re.I,
        ),
    ),
    (
        "pe",
        re.compile(
            r"(?:市盈率|\bPE|\bP/E)(?: ?[(（]?TTM[)）]?)?(?:[\s为是约达:：]|\bof\b|\bis\b|\bwas\b|\bat\b){0,6}$", re.I
        ),
    ),
)
"""A figure right after the name of a quantity the input names too (``收盘价 1,443.99``, ``PE of 21.9``) is
that quantity, and traces only to the input's field of that name (``tracing.QUANTITY_KEYS``)."""
_CLAUSE_END = re.compile(r"[。；;!?！？\n]|\. ")


@dataclass(frozen=True)
class Claim:
    """One figure in a field's text. ``number`` is as written (no sign, no magnitude); ``step`` its shown
    precision (0.01 for ``12.34``; 10 for ``1,230``: trailing zeros of a long integer are rounding);
    ``scale`` its magnitude (1e8 for ``亿``); ``sign`` +1/−1 when the text states a direction, else 0."""

    field: str
    start: int
    end: int
    text: str
    kind: Kind
    number: float
    step: float
    scale: float = 1.0
    sign: int = 0
    role: Role | None = None
    date: tuple[int | None, int | None, int | None] | None = None
    quantity: str | None = None

    @property
    def value(self) -> float | None:
        if self.kind == "date":
            return None
        return (-1.0 if self.sign < 0 else 1.0) * self.number * self.scale


def normalise(text: str) -> str:
    """Full-width digits, point, percent and signs as ASCII; one character for one, so spans are kept."""
    return text.translate(_FULL_WIDTH)


def _step(digits: str) -> float:
    if "." in digits:
        return 10.0 ** -len(digits.split(".")[1])
    plain = digits.replace(",", "")
    zeros = len(plain) - len(plain.rstrip("0"))
    return 10.0 ** min(zeros, max(0, len(plain) - 3))


def _number(digits: str) -> float:
    return float(digits.replace(",", ""))


def _date_claims(field: str, text: str, taken: list[tuple[int, int]]) -> list[Claim]:
    found = []
    for mark, pattern in _DATES:
        if mark is not None and not mark.search(text):
            continue
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            groups = m.groupdict()
            month = int(groups["m"]) if groups.get("m") else _MONTHS.get((groups.get("mon") or "")[:3].lower())
            year = int(groups["y"]) if groups.get("y") else None
            day = int(groups["d"]) if groups.get("d") else None
            if (month is not None and not 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
                continue
            taken.append((m.start(), m.end()))
            found.append(Claim(field, m.start(), m.end(), m.group(0), "date", 0.0, 1.0, date=(year, month, day)))
    return found


def _direction(before: str) -> int:
    tail = before[-6:]
    if tail.rstrip(" 了约近达为至：:").endswith(("涨跌", "涨跌幅", "升降")):
        return 0
    for word in _DOWN:
        if tail.rstrip(" 了约近达为至").endswith(word):
            return -1
    for word in _UP:
        if tail.rstrip(" 了约近达为至").endswith(word):
            return 1
    words = [w.lower() for w in _WORD.findall(before[-24:])][-2:]
    if words and words[-1] == "by":
        words = words[:-1]
    if words and words[-1] in _DOWN_EN:
        return -1
    if words and words[-1] in _UP_EN:
        return 1
    return 0


def _role(before: str) -> Role | None:
    clause = _CLAUSE_END.split(before[-40:])[-1].lower()
    best: tuple[int, Role] | None = None
    for role, words in _ROLE_WORDS:
        for word in words:
            at = clause.rfind(word)
            if at != -1 and (best is None or at > best[0]):
                best = (at, role)
    return best[1] if best else None


_ROLE_AFTER: tuple[tuple[Role, re.Pattern[str]], ...] = (
    ("position", re.compile(r"^ ?(?:的)?(?:仓位|position\b)", re.I)),
    ("stop", re.compile(r"^ ?(?:的)?(?:止损|stop\b)", re.I)),
    ("take", re.compile(r"^ ?(?:的)?(?:止盈|目标价|target\b|take-profit\b)", re.I)),
)


def _role_after(after: str) -> Role | None:
    """A level named right after its figure: ``100% position``, ``30%仓位``."""
    return next((role for role, words in _ROLE_AFTER if words.match(after)), None)


def _is_count(text: str, end: int, number: float) -> bool:
    after = text[end : end + 40]
    if _COUNT_AFTER_ZH.match(after):
        return True
    words = _WORD.findall(after[:40])
    if not after.startswith(" ") or not words:
        return False
    if (joined := _COORDINATED.match(after)) is not None:  # 2 positive and 1 negative catalyst
        return _is_count(text, end + joined.end(), float(joined.group(1)))
    for word in words[:COUNT_NOUN_WORDS]:
        lowered = word.lower()
        if lowered in _NOT_NOUNS:
            return False
        if number == 1 or (len(lowered) >= 4 and lowered.endswith("s") and not lowered.endswith("ss")):
            return True
    return False


def date_claims(raw: str) -> list[Claim]:
    """The dates and months of ``raw`` only (what an input's dates are read with)."""
    return _date_claims("", normalise(raw), [])


def extract_claims(field: str, raw: str) -> list[Claim]:
    """Every claim in ``raw`` (module doc), in order of position."""
    text = normalise(raw)
    taken: list[tuple[int, int]] = []
    claims = _date_claims(field, text, taken)
    for m in _CLAIM.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in taken):
            continue
        claims.extend(_measurements(field, text, m))
    return sorted((replace(c, text=raw[c.start : c.end]) for c in claims), key=lambda c: c.start)


@dataclass(frozen=True)
class _Context:
    field: str
    sign: int
    role: Role | None
    quantity: str | None

    def fields(self) -> _ContextFields:
        return {"field": self.field, "sign": self.sign, "role": self.role, "quantity": self.quantity}


class _ContextFields(TypedDict):
    field: str
    sign: int
    role: Role | None
    quantity: str | None


_CONTEXT = 48
"""How many characters around a figure its rules read (direction, role, quantity, count, window)."""


def _measurements(field: str, text: str, m: re.Match[str]) -> list[Claim]:
    start, end = m.start(), m.end()
    before, after = text[max(0, start - _CONTEXT) : start], text[end : end + _CONTEXT]
    g = m.groupdict()
    if before and (before[-1].isascii() and (before[-1].isalnum() or before[-1] in "_.")):
        return []  # part of a word or a code: MA20, RSI14, Q3, T+1, v1.2
    if not g["unit"] and not g["curafter"] and ((after[:1].isascii() and after[:1].isalpha()) or _DOTTED.match(after)):
        return []  # 3rd, 5G, 600519.SH
    if _ORDINAL_BEFORE.search(before[-4:]):
        return []
    integer = "." not in g["num"] and "," not in g["num"] and not g["cur"] and not g["num2"]
    if integer and not g["unit"] and not g["curafter"]:
        if before.endswith(("(", "（")) and after[:1] in (")", "）"):
            return []  # (2)
        if _LIST_MARKER.search(before[-3:] if start else "\n") and _LIST_MARKER_AFTER.match(after):
            return []  # 1. / 2、 opening a line or an item
    sign_char = g["sign"] or g["sign2"] or ""
    if sign_char and before[-1:].isascii() and before[-1:].isalnum():
        return []
    unit = (g["unit"] or "").strip()
    currency = g["cur"] or g["cur2"] or (g["curafter"] or "").strip()
    kind: Kind = _UNIT_KIND.get(unit.lower() if unit not in ("B", "M") else unit, "plain")
    scale = _SCALES.get(unit.lower(), 1.0) if kind == "plain" else 1.0
    if kind == "plain" and (currency or scale != 1.0):
        kind = "amount"
    number = _number(g["num"])
    if kind == "plain" and integer and not sign_char:
        if 1900 <= number <= 2100 and len(g["num"]) == 4:
            return [Claim(field, start, end, m.group(0), "date", 0.0, 1.0, date=(int(number), None, None))]
        if _WINDOW_AFTER.match(after):
            return [Claim(field, start, end, m.group(0), "window", number, 1.0)]
        if _is_count(text, end, number):
            return [Claim(field, start, end, m.group(0), "count", number, 1.0)]
    sign = -1 if sign_char in ("-", "−") else 1 if sign_char == "+" else _direction(before)
    role = _role(before) or _role_after(after)
    first_kind: Kind = kind
    if g["unit1"]:
        unit1 = g["unit1"].strip()
        first_kind = _UNIT_KIND.get(unit1.lower(), "amount" if unit1 in _SCALES else kind)
    quantity = next((name for name, words in QUANTITY_WORDS if words.search(before[-24:])), None)
    common = _Context(field, sign, role, quantity)
    if not g["num2"]:
        return [
            Claim(
                start=start,
                end=end,
                text=m.group(0),
                kind=kind,
                number=number,
                step=_step(g["num"]),
                scale=scale,
                **common.fields(),
            )
        ]
    split = m.start("range")
    second = _number(g["num2"])
    return [
        Claim(
            start=start,
            end=split,
            text=text[start:split],
            kind=first_kind,
            number=number,
            step=_step(g["num"]),
            scale=scale,
            **common.fields(),
        ),
        Claim(
            start=m.start("range") + len(g["range"]),
            end=end,
            text=text[m.start("range") + len(g["range"]) : end],
            kind=kind,
            number=second,
            step=_step(g["num2"]),
            scale=scale,
            **common.fields(),
        ),
    ]
