"""Financial, valuation and macro indicators against hand-checked figures from the snapshot."""

from __future__ import annotations

from datetime import date

import pytest

from research.domain.analysis.financial import compute_financial_facts
from research.domain.analysis.macro import compute_macro_facts, summarise_series
from research.domain.analysis.valuation import compute_valuation_facts
from research.domain.model.market_data import MacroData, MacroObservation, MacroSeries, ValuationData
from research.domain.model.symbol import Symbol
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from shared_contracts.errors import DataUnavailableError

MOUTAI = Symbol.parse("600519.SH")


async def test_moutai_financial_ratios(snapshot: OfflineSnapshotProvider) -> None:
    facts = compute_financial_facts(await snapshot.get_financials(MOUTAI, 5))
    assert [p.period_end.year for p in facts.periods] == [2021, 2022, 2023, 2024, 2025]
    fy2024 = facts.periods[3]
    # 56,933,264,798.10 / 298,944,579,918.70 = 19.045 %
    assert fy2024.debt_ratio_pct == pytest.approx(19.04, abs=0.01)
    # OCF 92,463,692,168.43 / parent net profit 86,228,146,421.62 = 1.0723
    assert fy2024.ocf_to_net_profit == pytest.approx(1.072, abs=0.001)
    assert fy2024.roe_pct == 36.02  # as reported
    # revenue 109,464e6 (2021) → 172,054e6 (2025): (172054/109464)^(1/4) - 1 = 11.97 %
    assert facts.revenue_cagr_pct == pytest.approx(11.97, abs=0.01)
    assert facts.net_profit_basis == "parent"
    assert not facts.financial_institution_like
    assert facts.latest("ocf_to_net_profit").period_end == date(2024, 12, 31)  # 2025 has no OCF


async def test_bank_without_parent_profit_uses_total_and_is_read_as_financial_institution(
    snapshot: OfflineSnapshotProvider,
) -> None:
    facts = compute_financial_facts(await snapshot.get_financials(Symbol.parse("000001.SZ"), 3))
    assert facts.net_profit_basis == "total"
    assert facts.financial_institution_like  # debt ratio ~90.7 %, no gross margin
    last = facts.periods[-1]
    # net profit total 42,633e6 vs 44,508e6 → -4.21 %; revenue 131,442e6 vs 146,695e6 → -10.40 %
    assert last.net_profit_yoy_pct == pytest.approx(-4.21, abs=0.01)
    assert last.revenue_yoy_pct == pytest.approx(-10.40, abs=0.01)
    assert last.roe_pct is None


async def test_moutai_valuation_earnings_power_value(snapshot: OfflineSnapshotProvider) -> None:
    facts = compute_valuation_facts(await snapshot.get_valuation(MOUTAI), await snapshot.get_macro(MOUTAI))
    assert facts.as_of == date(2026, 6, 13)
    assert (facts.close, facts.pe_ttm, facts.dividend_yield_pct) == (1291.91, 19.52, 4.0)
    # 10-year yield on or before 2026-06-13: 2026-05-31 month-end 1.72 %
    assert (facts.bond_yield_10y_pct, facts.bond_yield_date) == (1.72, date(2026, 5, 31))
    assert facts.earnings_yield_pct == pytest.approx(5.123, abs=1e-3)  # 100 / 19.52
    assert facts.yield_spread_pts == pytest.approx(3.403, abs=1e-3)
    iv = facts.intrinsic_value
    assert iv is not None
    # EPS = 1291.91 / 19.52 = 66.184; r = 1.72 % + 5 % / + 3 % → 66.184 / 0.0672 = 984.88, / 0.0472 = 1402.21
    assert (iv.low, iv.high) == (pytest.approx(984.88, abs=0.01), pytest.approx(1402.21, abs=0.01))
    assert facts.pe_percentile_basis == "source (window not stated)"
    assert facts.pb is None


async def test_source_disagreement_is_reported(snapshot: OfflineSnapshotProvider) -> None:
    facts = compute_valuation_facts(await snapshot.get_valuation(Symbol.parse("601318.SH")), None)
    assert facts.dividend_yields_by_source == {"xc_stock_pool": 8.63, "xc_shareholder": 5.4}
    assert any("disagree" in g for g in facts.gaps)
    assert facts.intrinsic_value is None  # no 10-year yield given
    assert facts.yield_spread_pts is None


def test_valuation_own_history_percentile_is_preferred() -> None:
    from research.domain.model.market_data import ValuationPoint, ValuationSnapshot

    history = tuple(ValuationPoint(date(2024, 1, i + 1), pe_ttm=float(pe)) for i, pe in enumerate(range(10, 30)))
    data = ValuationData(
        symbol=MOUTAI,
        snapshots=(ValuationSnapshot(as_of=__import__("datetime").datetime(2024, 2, 1), source="s", pe_ttm=14.0),),
        history=history,
    )
    facts = compute_valuation_facts(data, None)
    assert facts.pe_ttm_percentile == 25.0  # 10..14 are ≤ 14: 5 of 20
    assert facts.pe_percentile_basis == "own_history (20 points)"


def test_empty_valuation_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError):
        compute_valuation_facts(ValuationData(symbol=MOUTAI, snapshots=()), None)


def _series(name: str, points: list[tuple[date, float]]) -> MacroSeries:
    return MacroSeries(name, "pct", "monthly", tuple(MacroObservation(d, v) for d, v in points), "test")


def test_macro_trend_over_six_and_twelve_months() -> None:
    points = [(date(2025, m, 1), 1.0) for m in range(1, 13)] + [(date(2026, 1, 1), 1.5)]
    summary = summarise_series(_series("cpi_yoy", points))
    assert summary is not None
    assert (summary.latest, summary.change_6m, summary.change_12m, summary.trend_6m) == (1.5, 0.5, 0.5, "rising")
    flat = summarise_series(_series("pmi_manufacturing_nbs", [(date(2025, 1, 1), 50.0), (date(2025, 7, 1), 50.1)]))
    assert flat is not None
    assert flat.trend_6m == "flat"


async def test_snapshot_macro_levels(snapshot: OfflineSnapshotProvider) -> None:
    facts = compute_macro_facts(await snapshot.get_macro(MOUTAI))
    bond = facts.series["cgb_10y_yield"]
    assert (bond.latest, bond.latest_date) == (1.715, date(2026, 7, 31))
    assert facts.series["lpr_1y"].latest_date == date(2026, 8, 20)
    assert facts.missing_core == ()


def test_macro_without_core_series_is_data_unavailable() -> None:
    with pytest.raises(DataUnavailableError):
        compute_macro_facts(MacroData(region="US", series={"gdp": _series("gdp", [(date(2025, 1, 1), 2.0)])}))


def test_us_macro_with_only_the_treasury_yield_is_usable() -> None:
    points = [(date(2025, m, 1), 4.5) for m in range(1, 13)] + [(date(2026, 1, 2), 4.1)]
    facts = compute_macro_facts(MacroData(region="US", series={"ust_10y_yield": _series("ust_10y_yield", points)}))
    assert facts.as_of == date(2026, 1, 2)
    assert "cgb_10y_yield" not in facts.missing_core  # the Treasury fills the 10-year slot
    assert set(facts.missing_core) == {"pmi_manufacturing_nbs", "cpi_yoy", "ppi_yoy", "m2_yoy", "lpr_1y"}
