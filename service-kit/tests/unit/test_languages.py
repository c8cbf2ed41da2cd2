"""service_kit.languages.ByLanguage: one engine per language, the request's picked, the default without one."""

from __future__ import annotations

import pytest

from service_kit.languages import ByLanguage
from shared_contracts.errors import InvalidLanguageError


def test_each_language_has_its_own_engine_and_a_request_gets_the_one_it_names() -> None:
    made: list[str] = []

    def make(language: str) -> str:
        made.append(language)
        return f"engine-{language}"

    engines = ByLanguage.build("en", make)
    assert made == ["zh", "en"]  # built once each, up front
    assert (engines("zh"), engines("en"), engines(None), engines()) == (
        "engine-zh",
        "engine-en",
        "engine-en",
        "engine-en",
    )
    assert engines.preferred == "engine-en"


@pytest.mark.parametrize("asked", ["fr", "ZH", "", " en", 1, ["en"]])
def test_another_value_is_an_invalid_language_error(asked: object) -> None:
    engines = ByLanguage.build("zh", str)
    with pytest.raises(InvalidLanguageError, match="language must be one of zh, en"):
        engines(asked)
    assert InvalidLanguageError.code == "invalid_language"
