from __future__ import annotations

import re

import pytest

from service_kit.settings import ConfigurationError, EngineSettings, load_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANALYSIS_ENGINE", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_TIMEOUT_SECONDS", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir("/")


def test_rules_engine_by_default() -> None:
    assert load_settings(EngineSettings).uses_llm is False


def test_auto_uses_llm_when_an_endpoint_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_MODEL", "qwen")
    assert load_settings(EngineSettings).uses_llm is True


def test_llm_without_model_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_API_KEY", "k")
    with pytest.raises(ConfigurationError, match="LLM_MODEL"):
        load_settings(EngineSettings)


def test_llm_engine_without_endpoint_is_refused_naming_everything_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANALYSIS_ENGINE", "llm")
    with pytest.raises(ConfigurationError, match=r"needs LLM_BASE_URL and/or LLM_API_KEY and LLM_MODEL$"):
        load_settings(EngineSettings)


@pytest.mark.parametrize("url", ["notaurl", "ftp://x/v1", "127.0.0.1:8080/v1"])
def test_a_base_url_that_is_not_http_is_refused_at_start(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("LLM_BASE_URL", url)
    monkeypatch.setenv("LLM_MODEL", "qwen")
    with pytest.raises(
        ConfigurationError, match=re.escape(f"LLM_BASE_URL must be an http:// or https:// URL, not '{url}'")
    ):
        load_settings(EngineSettings)


def test_bad_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "soon")
    with pytest.raises(ConfigurationError, match="LLM_TIMEOUT_SECONDS"):
        load_settings(EngineSettings)
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "5")
    monkeypatch.setenv("ANALYSIS_ENGINE", "magic")
    with pytest.raises(ConfigurationError, match="ANALYSIS_ENGINE"):
        load_settings(EngineSettings)
