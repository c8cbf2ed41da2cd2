"""Valuation indicators: PE/PB/dividend yield where the data has them, their percentile against the
symbol's own history (or the source's stated percentile when no history exists), the earnings yield
against the 10-year government bond yield, and an earnings-power value range with stated assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, Literal

from research.domain.analysis.numbers import percentile_rank, rnd
from research.domain.model.market_data import (
    AnnualFinancials,
    MacroData,
    MacroObservation,
    ValuationData,
    ValuationSnapshot,
)
from shared_contracts.errors import DataUnavailableError

EQUITY_RISK_PREMIUM_RANGE = (0.03, 0.05)
"""Required return = 10y yield + ERP; a 3-5 % premium bounds the earnings-power value."""
SOURCE_DISAGREEMENT = 0.2
"""Dividend yields from two sources more than 20 % apart are reported as a disagreement."""


@dataclass(frozen=True)
class IntrinsicValueRange:
    low: float
    high: float
    method: str
    assumptions: dict[str, Any]


@dataclass(frozen=True)
class ValuationFacts:
    symbol: str
    as_of: date
    close: float | None
    pe_ttm: float | None
    pb: float | None
    dividend_yield_pct: float | None
    dividend_yields_by_source: dict[str, float]
    total_mv: float | None
    pe_ttm_percentile: float | None
    pe_percentile_basis: str | None
    """``own_history (n points)`` when computed here, ``source (window not stated)`` when reported by the source."""
    pb_percentile: float | None
    earnings_yield_pct: float | None
    bond_yield_10y_pct: float | None
    bond_yield_date: date | None
    yield_spread_pts: float | None
    intrinsic_value: IntrinsicValueRange | None
    sources: tuple[str, ...]
    gaps: tuple[str, ...] = field(default=())
    pe_earnings: PeEarnings = "ttm"
    """The earnings ``pe_ttm`` divides by: ``ttm`` (a source's trailing twelve months) or ``last_annual`` (the
    last annual report's profit, when the multiples were computed here: ``computed_snapshot``)."""


PeEarnings = Literal["ttm", "last_annual"]


def _primary(snapshots: tuple[ValuationSnapshot, ...]) -> ValuationSnapshot | None:
    with_pe = [s for s in snapshots if s.pe_ttm is not None]
    return with_pe[-1] if with_pe else (snapshots[-1] if snapshots else None)


def bond_yield_on(macro: MacroData | None, on: date) -> MacroObservation | None:
    """The latest 10-year government bond yield observation on or before ``on``."""
    if macro is None:
        return None
    for name, series in macro.series.items():
        if name.endswith("10y_yield"):
            earlier = [o for o in series.observations if o.date <= on]
            return earlier[-1] if earlier else None
    return None


def compute_valuation_facts(data: ValuationData, macro: MacroData | None) -> ValuationFacts:
    primary = _primary(data.snapshots)
    latest_point = data.history[-1] if data.history else None
    if primary is not None:
        as_of = primary.as_of.date()
    elif latest_point is not None:
        as_of = latest_point.date
    else:
        raise DataUnavailableError(f"{data.symbol}: no valuation data")
    gaps: list[str] = []
    pe = primary.pe_ttm if primary and primary.pe_ttm is not None else (latest_point.pe_ttm if latest_point else None)
    pb = primary.pb if primary and primary.pb is not None else (latest_point.pb if latest_point else None)
    yields = {s.source: s.dividend_yield_pct for s in data.snapshots if s.dividend_yield_pct is not None}
    dividend_yield = primary.dividend_yield_pct if primary else None
    if dividend_yield is None and latest_point is not None:
        dividend_yield = latest_point.dividend_yield_pct
    if dividend_yield is None and yields:
        dividend_yield = list(yields.values())[-1]
    if pe is None and pb is None and dividend_yield is None:
        raise DataUnavailableError(f"{data.symbol}: the valuation data has no PE, PB or dividend yield")
    if len(yields) > 1 and max(yields.values()) - min(yields.values()) > SOURCE_DISAGREEMENT * max(yields.values()):
        gaps.append("dividend yield sources disagree: " + ", ".join(f"{src} {value}%" for src, value in yields.items()))

    pe_hist = [p.pe_ttm for p in data.history if p.pe_ttm is not None and p.pe_ttm > 0]
    pb_hist = [p.pb for p in data.history if p.pb is not None and p.pb > 0]
    pe_pct, basis = None, None
    if pe is not None and pe_hist:
        pe_pct, basis = percentile_rank(pe, pe_hist), f"own_history ({len(pe_hist)} points)"
    elif primary is not None and primary.pe_ttm_percentile is not None:
        pe_pct, basis = primary.pe_ttm_percentile, "source (window not stated)"
        gaps.append("no valuation history: the PE percentile is the source's (window not stated)")
    else:
        gaps.append("no PE percentile: no valuation history")
    if pb is None:
        gaps.append("no PB")

    bond = bond_yield_on(macro, as_of)
    if bond is None:
        gaps.append("no 10-year government bond yield for the earnings-yield comparison")
    earnings_yield = 100.0 / pe if pe is not None and pe > 0 else None
    close = primary.close if primary else None
    pe_earnings: PeEarnings = "last_annual" if primary is not None and primary.source == COMPUTED_SOURCE else "ttm"
    intrinsic = _earnings_power_value(close, pe, bond.value if bond else None, pe_earnings)
    if intrinsic is None:
        gaps.append("no intrinsic value range: needs price, a positive PE and the 10-year yield")
    return ValuationFacts(
        symbol=str(data.symbol),
        as_of=as_of,
        close=close,
        pe_ttm=pe,
        pb=pb,
        dividend_yield_pct=dividend_yield,
        dividend_yields_by_source=yields,
        total_mv=next((s.total_mv for s in reversed(data.snapshots) if s.total_mv is not None), None),
        pe_ttm_percentile=rnd(pe_pct, 2),
        pe_percentile_basis=basis,
        pb_percentile=rnd(percentile_rank(pb, pb_hist), 2) if pb is not None else None,
        earnings_yield_pct=rnd(earnings_yield, 3),
        bond_yield_10y_pct=bond.value if bond else None,
        bond_yield_date=bond.date if bond else None,
        yield_spread_pts=rnd(earnings_yield - bond.value, 3) if earnings_yield is not None and bond else None,
        intrinsic_value=intrinsic,
        sources=tuple(s.source for s in data.snapshots) or (data.source,),
        gaps=tuple(gaps),
        pe_earnings=pe_earnings,
    )


def _earnings_power_value(
    close: float | None, pe: float | None, bond_pct: float | None, pe_earnings: PeEarnings = "ttm"
) -> IntrinsicValueRange | None:
    """No-growth earnings-power value: EPS / (10y yield + ERP), ERP in EQUITY_RISK_PREMIUM_RANGE; EPS = price / PE,
    on the earnings the PE uses (``pe_earnings``)."""
    if close is None or pe is None or pe <= 0 or bond_pct is None:
        return None
    eps = close / pe
    erp_low, erp_high = EQUITY_RISK_PREMIUM_RANGE
    r_high, r_low = bond_pct / 100.0 + erp_high, bond_pct / 100.0 + erp_low
    return IntrinsicValueRange(
        low=round(eps / r_high, 2),
        high=round(eps / r_low, 2),
        method="earnings_power_value",
        assumptions={
            "eps_ttm": round(eps, 4),
            "eps_derivation": "price / PE(TTM) from the same valuation snapshot"
            if pe_earnings == "ttm"
            else "price / PE on the last annual profit (not TTM), from the same computed snapshot",
            "required_return_pct": [round(r_low * 100, 3), round(r_high * 100, 3)],
            "equity_risk_premium_pct": [erp_low * 100, erp_high * 100],
            "risk_free": "10-year government bond yield",
            "growth": "none: current earnings held flat forever (a conservative floor for growing firms)",
        },
    )


COMPUTED_SOURCE = "computed point in time: close of the day and the latest public annual report"


def computed_snapshot(close_day: date, close: float, periods: tuple[AnnualFinancials, ...]) -> ValuationSnapshot | None:
    """Multiples of the day from its close and the annual reports public that day (``periods``, oldest first):
    dividend yield = DPS / close; shares = dividend total / DPS of the same report; PE (last annual report,
    not TTM) = close × shares / net profit attributable to the parent. None when no report has a DPS."""
    with_dps = [p for p in periods if p.dps is not None and p.dps > 0]
    if not with_dps or close <= 0:
        return None
    latest = with_dps[-1]
    assert latest.dps is not None
    shares = latest.dividend_total / latest.dps if latest.dividend_total else None
    profit = periods[-1].net_profit_parent
    pe = close * shares / profit if shares and profit and profit > 0 and periods[-1] is latest else None
    return ValuationSnapshot(
        as_of=datetime.combine(close_day, time()),
        source=COMPUTED_SOURCE,
        close=close,
        pe_ttm=rnd(pe, 2),
        dividend_yield_pct=rnd(latest.dps / close * 100.0, 3),
        total_mv=rnd(close * shares, 0) if shares else None,
    )
