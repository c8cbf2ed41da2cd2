"""Prompt files (``system.md`` + ``user.md``) with ``{{placeholder}}`` slots, and fencing of untrusted text."""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from service_kit.llm.lookalikes import invisible, skeleton

_SLOT = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
_DELIMITER = re.compile(r"<(?:\s*<)+\s*/?\s*(?:BEGIN|END)\s*UNTRUSTED[^>\n]*(?:>(?:\s*>)*)?", re.IGNORECASE)
"""A fence marker as untrusted text may forge it: any number of ``<``, spaces anywhere, either case, with or
without its closing ``>>>`` (matched in the skeleton of the normalised text)."""
_HORIZONTAL_SPACE = re.compile(r"[^\S\n]+")


class PromptError(ValueError):
    pass


@dataclass(frozen=True)
class PromptTemplate:
    system: str
    user: str

    @classmethod
    def load(cls, directory: Path) -> PromptTemplate:
        return cls(
            system=(directory / "system.md").read_text(encoding="utf-8"),
            user=(directory / "user.md").read_text(encoding="utf-8"),
        )

    @property
    def placeholders(self) -> set[str]:
        return set(_SLOT.findall(self.user)) | set(_SLOT.findall(self.system))

    def render(self, **values: str) -> tuple[str, str]:
        """Return (system, user) with every slot filled; a missing or unused value is an error."""
        missing = self.placeholders - values.keys()
        unused = values.keys() - self.placeholders
        if missing or unused:
            raise PromptError(f"prompt slots missing {sorted(missing)}, unused values {sorted(unused)}")

        def fill(text: str) -> str:
            return _SLOT.sub(lambda m: values[m.group(1)], text)

        return fill(self.system), fill(self.user)


def normalise_untrusted(text: str) -> str:
    """``text`` as the model will read it and as markers are matched in: Unicode NFKC (full-width and other
    compatibility forms become their plain letters), invisible characters dropped (format characters such as
    zero-width spaces, joiners and bidirectional controls, every default-ignorable code point such as U+034F,
    variation selectors and Hangul fillers, the braille blank: ``lookalikes.invisible``), and every run of spaces
    other than line breaks one space (a no-break space, a tab, a carriage return), so a marker written with a
    no-break space or two spaces is matched."""
    normalised = unicodedata.normalize("NFKC", text)
    visible = "".join(ch for ch in normalised if not invisible(ch))
    return _HORIZONTAL_SPACE.sub(" ", visible)


def fence_untrusted(label: str, text: str, max_chars: int) -> str:
    """Wrap text from outside (news, expert reasoning) in delimiters the model is told not to obey, capped at
    ``max_chars``. Each fence carries a random id of its own (``fence=<16 hex>``) on its BEGIN and END lines: the
    system prompts say a block ends only at the END line with its BEGIN's id, which text inside cannot know.
    Markers are looked for in the normalised text's skeleton (``normalise_untrusted``, then
    ``lookalikes.skeleton``: a Cyrillic ``Е`` or a ``‹`` counts as its ASCII look-alike); look-alikes are
    neutralised."""
    fence_id = secrets.token_hex(8)
    normalised = normalise_untrusted(text)
    shown, origin = skeleton(normalised)
    found = [(origin[m.start()], origin[m.end() - 1] + 1) for m in _DELIMITER.finditer(shown) if m.end() > m.start()]
    # Text with no marker in its skeleton is passed as written (CJK punctuation kept); one that has any is passed
    # normalised, every marker removed, so nothing the model could read as a marker is left.
    cleaned = _without(normalised, found) if found else text
    if len(cleaned) > max_chars:
        cleaned = cleaned[:max_chars] + f"\n[truncated: {len(cleaned) - max_chars} more characters]"
    return f"<<<BEGIN UNTRUSTED {label}>>> fence={fence_id}\n{cleaned}\n<<<END UNTRUSTED {label}>>> fence={fence_id}"


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], "[removed delimiter]"]
        last = end
    return "".join(parts) + text[last:]
