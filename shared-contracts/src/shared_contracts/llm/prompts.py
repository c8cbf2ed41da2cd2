"""Prompt files (``system.md`` + ``user.md``) with ``{{placeholder}}`` slots, and fencing of untrusted text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_SLOT = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
_DELIMITER = re.compile(r"<<<\s*(BEGIN|END) UNTRUSTED[^>]*>>>", re.IGNORECASE)


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


def fence_untrusted(label: str, text: str, max_chars: int) -> str:
    """Wrap text from outside (news, expert reasoning) in delimiters the model is told not to obey,
    capped at ``max_chars``; delimiter look-alikes inside the text are neutralised."""
    cleaned = _DELIMITER.sub("[removed delimiter]", text)
    if len(cleaned) > max_chars:
        cleaned = cleaned[:max_chars] + f"\n[truncated: {len(text) - max_chars} more characters]"
    return f"<<<BEGIN UNTRUSTED {label}>>>\n{cleaned}\n<<<END UNTRUSTED {label}>>>"
