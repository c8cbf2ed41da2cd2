"""Point in time on the shipped snapshot: each kind of data at its publication boundary, every expert's
``as_of`` never after its analysis date over the whole universe, and the universe endpoint."""

from __future__ import annotations

import itertools
import math
import statistics
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from research.application.point_in_time_data import PointInTimeData
from research.container import build_container
from research.domain.model.symbol import Symbol
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.settings import Settings
from shared_contracts.errors import DataUnavailableError, InsufficientHistoryError, SymbolNotFoundError
from shared_contracts.experts import ExpertType

MOUTAI = Symbol.parse("600519.SH")


def _container(snapshot: OfflineSnapshotProvider) -> Any:
    settings = Settings(_env_file=None, analysis_engine="rules")  # type: ignore[call-arg]
    return build_container(settings, provider=snapshot, today=lambda: date(2026, 11, 25))


async def test_reports_become_public_on_the_a_share_deadline(snapshot: OfflineSnapshotProvider) -> None:
    data = PointInTimeData(snapshot)
    before = await data.financials(MOUTAI, 5, date(2025, 4, 29))
    on_the_day = await data.financials(MOUTAI, 5, date(2025, 4, 30))
    assert before.statements.periods[-1].period_end == date(2023, 12, 31)
    assert on_the_day.statements.periods[-1].period_end == date(2024, 12, 31)
    assert on_the_day.provenance() == {"period_end": "2024-12-31", "available_from": "2025-04-30"}
    assert len(on_the_day.statements.periods) == 5


async def test_bars_snapshots_and_macro_stop_at_the_analysis_date(snapshot: OfflineSnapshotProvider) -> None:
    data = PointInTimeData(snapshot)
    history = await data.price_history(MOUTAI, date(2024, 6, 30))  # a Sunday
    assert history.bars[-1].date == date(2024, 6, 28)
    assert (await data.valuation(MOUTAI, date(2026, 6, 12))).snapshots == ()
    assert len((await data.valuation(MOUTAI, date(2026, 6, 13))).snapshots) == 1
    assert len((await data.valuation(MOUTAI, date(2026, 6, 14))).snapshots) == 2
    before, on_the_day = [await data.macro(MOUTAI, date(2025, 9, d)) for d in (14, 15)]
    assert before.series["cpi_yoy"].observations[-1].date == date(2025, 7, 1)
    assert on_the_day.series["cpi_yoy"].observations[-1].date == date(2025, 8, 1)


async def test_the_financial_auditor_reads_only_reports_public_on_its_date(snapshot: OfflineSnapshotProvider) -> None:
    result = await _container(snapshot).experts.run("financial_auditor", "601318.SH", {"limit": 3}, date(2021, 6, 30))
    assert result["as_of"] == "2020-12-31"
    assert result["analysis_date"] == "2021-06-30"
    assert [p["period_end"] for p in result["financial_indicators"]["periods"]] == [
        "2018-12-31",
        "2019-12-31",
        "2020-12-31",
    ]
    assert result["inputs_as_of"] == {"financials": {"period_end": "2020-12-31", "available_from": "2021-04-30"}}


async def test_valuation_before_any_snapshot_is_computed_from_the_close_and_public_reports(
    snapshot: OfflineSnapshotProvider,
) -> None:
    container = _container(snapshot)
    result = await container.experts.run("valuation_modeler", "600519.SH", None, date(2024, 6, 28))
    technical = await container.experts.run("technical_analyst", "600519.SH", None, date(2024, 6, 28))
    assert result["as_of"] == technical["as_of"] == "2024-06-28"
    assert result["valuation_indicators"]["close"] == technical["technical_indicators"]["close"]
    assert result["inputs_as_of"]["valuation"] == {"as_of": "2024-06-28", "computed": True}
    assert result["data_gaps"][0].startswith("估值倍数由收盘价与最新公开年报计算")  # REPORT_LANGUAGE zh
    english = await container.dispatchers("en").run("valuation_modeler", "600519.SH", None, date(2024, 6, 28))
    assert english["data_gaps"][0].startswith("multiples computed here")
    with pytest.raises(InsufficientHistoryError) as err:
        await container.experts.run("valuation_modeler", "600519.SH", None, date(2024, 4, 29))
    assert err.value.earliest_usable_date == date(2024, 4, 30)  # FY2023, the first report with a DPS


async def test_insufficient_history_names_the_earliest_usable_date(snapshot: OfflineSnapshotProvider) -> None:
    experts = _container(snapshot).experts
    with pytest.raises(InsufficientHistoryError) as technical:
        await experts.run("technical_analyst", "601318.SH", None, date(2021, 6, 30))
    assert technical.value.earliest_usable_date == date(2022, 4, 6)  # the 60th bar
    with pytest.raises(InsufficientHistoryError) as macro:
        await experts.run("macro_intelligence", "601318.SH", None, date(2019, 12, 31))
    assert macro.value.earliest_usable_date == date(2020, 1, 20)  # the first LPR fixing in the data
    with pytest.raises(InsufficientHistoryError) as financial:
        await experts.run("financial_auditor", "601318.SH", None, date(2015, 4, 29))
    assert financial.value.earliest_usable_date == date(2015, 4, 30)


DATES = [date(2021, 3, 31), date(2023, 6, 30), date(2025, 9, 30)]
ALLOWED = (DataUnavailableError, InsufficientHistoryError, SymbolNotFoundError)


async def test_as_of_is_never_after_the_analysis_date_anywhere_in_the_universe(
    snapshot: OfflineSnapshotProvider,
) -> None:
    experts = _container(snapshot).experts
    symbols = await snapshot.available_symbols()
    assert symbols is not None
    assert len(symbols) == 121
    worked: dict[str, int] = dict.fromkeys(ExpertType, 0)
    for on in DATES:
        for symbol in symbols:
            for expert in ExpertType:
                try:
                    result = await experts.run(expert.value, symbol, None, on)
                except ALLOWED:
                    continue
                assert result["analysis_date"] == on.isoformat()
                assert result["as_of"] <= on.isoformat(), (expert, symbol, on)
                worked[expert] += 1
    assert all(count > 0 for count in worked.values()), worked
    assert worked[ExpertType.TECHNICAL_ANALYST] >= 2 * 115  # every A-share with bars, at the two later dates


async def test_the_universe_lists_every_symbol_with_what_it_has(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/research/universe")
    assert response.status_code == 200
    body = response.json()
    assert body["data_provider"] == "offline-snapshot"
    assert body["open_ended"] is False
    assert body["count"] == len(body["symbols"]) == 121
    by_symbol = {s["symbol"]: s for s in body["symbols"]}
    assert by_symbol["600519.SH"]["bars"] == {"first": "2022-01-04", "last": "2025-09-30", "count": 909}
    assert by_symbol["600519.SH"]["financials"] == {"first": "2014-12-31", "last": "2025-12-31", "count": 12}
    assert by_symbol["600519.SH"]["valuation"]["count"] == 2
    assert by_symbol["000021.SZ"]["financials"] is None
    assert by_symbol["000792.SZ"]["bars"]["count"] == 1083  # SOURCES.md
    assert by_symbol["AAPL"]["market"] == "US"


async def test_a_research_as_of_a_date_and_a_conflicting_option_over_http(client: httpx.AsyncClient) -> None:
    dated = await client.post(
        "/api/v1/research/experts/macro_intelligence", json={"symbol": "600519.SH", "analysis_date": "2024-06-28"}
    )
    assert dated.status_code == 200
    assert dated.json()["analysis_date"] == "2024-06-28"
    same = await client.post(
        "/api/v1/research/experts/technical_analyst",
        json={"symbol": "600519.SH", "analysis_date": "2024-06-28", "options": {"analysis_date": "2024-06-28"}},
    )
    assert same.json()["as_of"] == "2024-06-28"
    early = await client.post(
        "/api/v1/research/experts/technical_analyst", json={"symbol": "601318.SH", "analysis_date": "2021-06-30"}
    )
    assert early.status_code == 422
    assert early.json()["code"] == "insufficient_history"
    assert early.json()["earliest_usable_date"] == "2022-04-06"


async def test_bars_between_two_dates_with_their_provenance(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/research/bars/600519.sh", params={"start": "2025-09-26", "end": "2025-09-30"})
    assert response.status_code == 200
    body = response.json()
    assert body["symbol"] == "600519.SH"
    assert body["adjustment"] == "qfq"
    assert "StockTradebyZ" in body["source"]
    assert [b["date"] for b in body["bars"]] == ["2025-09-26", "2025-09-29", "2025-09-30"]
    assert body["count"] == 3
    whole = (await client.get("/api/v1/research/bars/AAPL")).json()
    assert (whole["count"], whole["bars"][0]["date"], whole["adjustment"]) == (656, "2023-01-03", "adjusted")


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/v1/research/bars/600519.SH?start=2025-09-30&end=2025-09-01", 400, "invalid_date_range"),
        ("/api/v1/research/bars/600519.SH?start=20250901", 400, "invalid_date"),
        ("/api/v1/research/bars/600519.SH?end=2024-02-30", 400, "invalid_date"),
        ("/api/v1/research/bars/6005.XX", 400, "invalid_symbol"),
        ("/api/v1/research/bars/000002.SZ", 404, "symbol_not_found"),
    ],
)
async def test_bar_requests_that_are_client_mistakes(
    client: httpx.AsyncClient, path: str, status: int, code: str
) -> None:
    response = await client.get(path)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code


async def test_the_technical_analyst_reports_realised_volatility(snapshot: OfflineSnapshotProvider) -> None:
    """60 daily log returns, sample deviation, × √252, in percent: recomputed here from the bars."""
    result = await _container(snapshot).experts.run("technical_analyst", "600519.SH", None, date(2025, 6, 30))
    history = await PointInTimeData(snapshot).price_history(MOUTAI, date(2025, 6, 30))
    closes = [b.close for b in history.bars[-61:]]
    returns = [math.log(b / a) for a, b in itertools.pairwise(closes)]
    expected = statistics.stdev(returns) * math.sqrt(252) * 100
    assert result["technical_indicators"]["volatility_60d_pct"] == pytest.approx(expected, abs=1e-3)


async def test_an_analysis_date_after_today_is_refused(client: httpx.AsyncClient) -> None:
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    response = await client.post(
        "/api/v1/research/experts/macro_intelligence", json={"symbol": "600519.SH", "analysis_date": tomorrow}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "analysis_date_in_future"
