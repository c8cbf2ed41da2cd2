"""What untrusted text looks like to a reader, for finding fence markers written with look-alike characters.

``invisible(ch)``: a character that shows nothing — a format character (category Cf), any Unicode
default-ignorable code point (combining grapheme joiner U+034F, variation selectors U+FE00–FE0F, Hangul fillers
U+115F/U+1160/U+3164/U+FFA0, tags U+E0000–E0FFF, …) or the braille blank U+2800.

``skeleton(text)``: the text with each character replaced by the plain ASCII it can pass for — accents and other
combining marks dropped (``É`` → ``E``), Cyrillic, Greek, Cherokee, Lisu and small-capital letters that look like
the letters of ``BEGIN``/``END UNTRUSTED`` mapped to them (``Е`` → ``E``), and angle-bracket look-alikes to ``<``
and ``>`` (``‹`` → ``<``, ``«`` → ``<<``) — with, for each character of the skeleton, the index of the character
of ``text`` it comes from. Apply it to NFKC-normalised text: full-width and mathematical letters are NFKC's.

Example::

    shown, origin = skeleton("<<‹ЕND")   # "<<<END", [0, 1, 2, 3, 4, 5]
"""

from __future__ import annotations

import functools
import unicodedata

_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt)."""
_BLANKS = frozenset({0x2800})
"""Characters outside those ranges that are drawn as nothing."""

_LOOKALIKES: dict[str, str] = {
    **dict.fromkeys("ΒВвʙᏴᗷꓐβ", "B"),
    **dict.fromkeys("ΕЕеᴇᎬⴹꓰ", "E"),
    **dict.fromkeys("ԌᏀɢᏻꓖɡ", "G"),
    **dict.fromkeys("ΙІіӀӏɪιǀꓲıl1|", "I"),
    **dict.fromkeys("ΝɴⲚꓠ", "N"),
    **dict.fromkeys("Ꭰᗪᴅꓓԁ", "D"),
    **dict.fromkeys("Սᑌᴜυսꓴʋ∪⋃", "U"),
    **dict.fromkeys("ΤТтᴛᎢτꓔ⊤⟙", "T"),
    **dict.fromkeys("ʀᎡᏒᖇꓣ", "R"),
    **dict.fromkeys("ЅѕՏᏚꜱꓢ", "S"),
    **dict.fromkeys("‹ᐸ˂〈⟨❮", "<"),
    **dict.fromkeys("›ᐳ˃〉⟩❯", ">"),
    "«": "<<",
    "≪": "<<",
    "⋘": "<<<",
    "»": ">>",
    "≫": ">>",
    "⋙": ">>>",
}
_ASCII_LOOKALIKES = str.maketrans({k: v for k, v in _LOOKALIKES.items() if k.isascii()})
_MARKS = frozenset({"Mn", "Me"})


def invisible(ch: str) -> bool:
    code = ord(ch)
    if code in _BLANKS or unicodedata.category(ch) == "Cf":
        return True
    return any(low <= code <= high for low, high in _DEFAULT_IGNORABLE)


def skeleton(text: str) -> tuple[str, list[int]]:
    if text.isascii():  # the common case, one character for one
        return text.translate(_ASCII_LOOKALIKES), list(range(len(text)))
    shown: list[str] = []
    origin: list[int] = []
    for index, ch in enumerate(text):
        plain = _plain(ch)
        shown.append(plain)
        if len(plain) == 1:
            origin.append(index)
        elif plain:
            origin.extend([index] * len(plain))
    return "".join(shown), origin


@functools.lru_cache(maxsize=4096)
def _plain(ch: str) -> str:
    parts = unicodedata.normalize("NFD", ch)
    return "".join(_LOOKALIKES.get(p, p) for p in parts if unicodedata.category(p) not in _MARKS and not invisible(p))
