"""The languages a research is written in, and how a request's ``language`` is read.

Every service writes its narrative (expert texts, data gaps, the debate, the verdict) in one of ``LANGUAGES``:
the request's ``language`` when it names one, else the service's ``REPORT_LANGUAGE``. A value that is not one of
them is a 400 ``invalid_language`` (``parse_language``), in every service."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import WithJsonSchema

from shared_contracts.errors import InvalidLanguageError

Language = Literal["zh", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
LANGUAGE_JSON_SCHEMA: dict[str, Any] = {"anyOf": [{"type": "string", "enum": list(LANGUAGES)}, {"type": "null"}]}
"""How a request documents its ``language``: zh, en, or null (the service's REPORT_LANGUAGE)."""
LANGUAGE_DESCRIPTION = (
    "The language the narrative is written in: zh or en (null or absent: the service's REPORT_LANGUAGE). "
    "Anything else is 400 invalid_language."
)


def parse_language(value: object, default: Language) -> Language:
    """``value`` as a language; ``default`` when it is None; ``InvalidLanguageError`` for anything else."""
    return default if value is None else known_language(value)


def known_language(value: object) -> Language:
    """``value`` as a language; ``InvalidLanguageError`` for anything but zh or en."""
    for language in LANGUAGES:
        if value == language:
            return language
    shown = repr(value)[:40]
    raise InvalidLanguageError(f"language must be one of {', '.join(LANGUAGES)} (got {shown})")


RequestLanguage = Annotated[str | None, WithJsonSchema(LANGUAGE_JSON_SCHEMA)]
"""A request's ``language`` field: read leniently, checked by ``parse_language`` (a 400 with its own code)."""
