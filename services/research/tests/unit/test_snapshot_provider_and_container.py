"""The offline snapshot adapter, settings validation and the composition root."""

from __future__ import annotations

import importlib.util
import shutil
from datetime import date
from pathlib import Path

import pytest
from research_fakes import FakeMarketDataProvider, answering

from research.container import build_container, build_provider
from research.domain.model.symbol import Symbol
from research.infrastructure.agents.llm_agent import LLMExpertAgent
from research.infrastructure.data.snapshot_provider import DEFAULT_SNAPSHOT_DIR, OfflineSnapshotProvider
from research.settings import Settings
from service_kit.settings import ConfigurationError, load_settings
from shared_contracts.errors import DataUnavailableError, SymbolNotFoundError


async def test_snapshot_lists_its_symbols_and_row_counts(snapshot: OfflineSnapshotProvider) -> None:
    symbols = await snapshot.available_symbols()
    assert symbols is not None
    assert len(symbols) == 121
    assert symbols[:2] == ["000001.SZ", "000021.SZ"]
    assert symbols[-2:] == ["AAPL", "MSFT"]
    moutai = await snapshot.get_price_history(Symbol.parse("600519.SH"))
    assert len(moutai.bars) == 909  # SOURCES.md: 909 rows each
    assert (moutai.bars[0].date, moutai.bars[-1].date) == (date(2022, 1, 4), date(2025, 9, 30))
    assert moutai.adjustment == "qfq"
    aapl = await snapshot.get_price_history(Symbol.parse("AAPL"), end=date(2023, 1, 31))
    assert aapl.bars[-1].date == date(2023, 1, 31)
    assert aapl.adjustment == "adjusted"
    statements = await snapshot.get_financials(Symbol.parse("601318.SH"), 2)
    assert [p.period_end.year for p in statements.periods] == [2024, 2025]


async def test_snapshot_errors_are_clear(snapshot: OfflineSnapshotProvider) -> None:
    with pytest.raises(SymbolNotFoundError) as err:
        await snapshot.get_price_history(Symbol.parse("0700.HK"))
    assert err.value.available_symbols == await snapshot.available_symbols()
    with pytest.raises(DataUnavailableError, match=r"no valuation data for 000001\.SZ"):
        await snapshot.get_valuation(Symbol.parse("000001.SZ"))
    with pytest.raises(DataUnavailableError, match="China macro data only"):
        await snapshot.get_macro(Symbol.parse("MSFT"))
    assert await snapshot.get_news(Symbol.parse("600519.SH")) == []


def test_shipped_snapshot_carries_its_provenance() -> None:
    sources = (DEFAULT_SNAPSHOT_DIR / "SOURCES.md").read_text(encoding="utf-8")
    assert sources.startswith("<!-- PROVENANCE:")
    assert "market-snapshot" in sources.splitlines()[0]
    for folder in ("bars", "financials", "valuation", "macro"):
        assert any((DEFAULT_SNAPSHOT_DIR / folder).glob("*.csv"))


async def test_another_snapshot_dir_can_be_configured(tmp_path: Path) -> None:
    shutil.copytree(DEFAULT_SNAPSHOT_DIR / "bars", tmp_path / "bars")
    (tmp_path / "bars" / "AAPL.csv").unlink()
    provider = build_provider(Settings(_env_file=None, snapshot_dir=tmp_path))  # type: ignore[call-arg]
    assert isinstance(provider, OfflineSnapshotProvider)
    assert provider.directory == tmp_path
    symbols = await provider.available_symbols()
    assert symbols is not None
    assert len(symbols) == 120
    assert "AAPL" not in symbols


def test_bad_configuration_names_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MARKET_DATA_PROVIDER", "bloomberg")
    with pytest.raises(ConfigurationError, match="MARKET_DATA_PROVIDER"):
        load_settings(Settings)
    monkeypatch.setenv("MARKET_DATA_PROVIDER", "offline")
    monkeypatch.setenv("SNAPSHOT_DIR", str(tmp_path))
    with pytest.raises(ConfigurationError, match="SNAPSHOT_DIR"):
        load_settings(Settings)
    monkeypatch.delenv("SNAPSHOT_DIR")
    monkeypatch.setenv("DATA_TIMEOUT_SECONDS", "0")
    with pytest.raises(ConfigurationError, match="DATA_TIMEOUT_SECONDS"):
        load_settings(Settings)


@pytest.mark.skipif(importlib.util.find_spec("akshare") is not None, reason="akshare is installed here")
def test_live_provider_without_its_extra_fails_at_start_naming_the_variable() -> None:
    settings = Settings(_env_file=None, market_data_provider="akshare")  # type: ignore[call-arg]
    with pytest.raises(ConfigurationError, match="MARKET_DATA_PROVIDER=akshare"):
        build_provider(settings)


def test_engine_choice_follows_settings() -> None:
    provider = FakeMarketDataProvider()
    rules = build_container(Settings(_env_file=None, analysis_engine="auto"), provider=provider)  # type: ignore[call-arg]
    assert rules.engine.kind == "rules"
    assert rules.chat is None
    llm_settings = Settings(  # type: ignore[call-arg]
        _env_file=None, analysis_engine="auto", llm_base_url="http://llm.test/v1", llm_model="m"
    )
    chat = answering("{}").chat(model="m")
    llm = build_container(llm_settings, provider=provider, chat=chat)
    assert llm.engine.model_dump() == {"kind": "llm", "model": "m", "fallback_reason": None}
    assert isinstance(llm.experts.technical._agent, LLMExpertAgent)
    # LLM_FALLBACK_TO_RULES: test_llm_engine.py::test_fallback_to_rules_is_visible
