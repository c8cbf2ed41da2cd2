"""One engine per report language: a service builds its use case once for each language and runs a request's
in the language it names (``shared_contracts.language``), else in its REPORT_LANGUAGE."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from shared_contracts.language import LANGUAGES, Language, parse_language

T = TypeVar("T")


@dataclass(frozen=True)
class ByLanguage(Generic[T]):
    """A ``T`` for each language, and the one a request asks for."""

    default: Language
    each: Mapping[Language, T]

    @classmethod
    def build(cls, default: Language, make: Callable[[Language], T]) -> ByLanguage[T]:
        """``make(language)`` for every language."""
        return cls(default, {language: make(language) for language in LANGUAGES})

    def language(self, asked: object = None) -> Language:
        """The language ``asked`` names, the default when None; ``InvalidLanguageError`` (400) otherwise."""
        return parse_language(asked, self.default)

    def __call__(self, asked: object = None) -> T:
        """The ``T`` of the language ``asked`` names (``language``)."""
        return self.each[self.language(asked)]

    @property
    def preferred(self) -> T:
        """The default language's ``T``."""
        return self.each[self.default]
