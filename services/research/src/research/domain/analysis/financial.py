"""Financial indicators over the last ``limit`` annual periods: growth, margins, ROE, cash-flow
quality, leverage and payout. Source figures are used as delivered; a ratio is derived only from two
reported figures of the same period (e.g. debt ratio = liabilities / assets) and is None otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from research.domain.analysis.numbers import pct_change, ratio, rnd
from research.domain.model.market_data import AnnualFinancials, FinancialStatements
from shared_contracts.errors import DataUnavailableError

FINANCIAL_INSTITUTION_DEBT_RATIO = 80.0
"""A debt ratio at or above this with no gross margin in any period reads as a bank or insurer."""


@dataclass(frozen=True)
class PeriodFigures:
    period_end: date
    revenue: float | None
    net_profit: float | None
    revenue_yoy_pct: float | None
    net_profit_yoy_pct: float | None
    gross_margin_pct: float | None
    net_margin_pct: float | None
    roe_pct: float | None
    ocf_to_net_profit: float | None
    debt_ratio_pct: float | None
    payout_ratio_pct: float | None
    dps: float | None


@dataclass(frozen=True)
class Latest:
    value: float | None
    period_end: date | None


@dataclass(frozen=True)
class FinancialFacts:
    symbol: str
    currency: str
    net_profit_basis: str
    """``parent`` (归母) when reported, else ``total`` (incl. minorities)."""
    periods: tuple[PeriodFigures, ...]
    revenue_cagr_pct: float | None
    avg_roe_pct: float | None
    financial_institution_like: bool

    @property
    def as_of(self) -> date:
        return self.periods[-1].period_end

    def latest(self, name: str) -> Latest:
        for period in reversed(self.periods):
            value = getattr(period, name)
            if value is not None:
                return Latest(value, period.period_end)
        return Latest(None, None)

    def dimensions(self) -> dict[str, dict[str, Any]]:
        """Figures per dimension (latest available value, with the period it comes from)."""

        def pick(*names: str) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name in names:
                latest = self.latest(name)
                out[name] = latest.value
                out[f"{name}_period"] = latest.period_end.isoformat() if latest.period_end else None
            return out

        return {
            "growth": {**pick("revenue_yoy_pct", "net_profit_yoy_pct"), "revenue_cagr_pct": self.revenue_cagr_pct},
            "profitability": {**pick("roe_pct", "gross_margin_pct", "net_margin_pct"), "avg_roe_pct": self.avg_roe_pct},
            "cash_flow": pick("ocf_to_net_profit"),
            "leverage": pick("debt_ratio_pct"),
            "shareholder_return": pick("payout_ratio_pct", "dps"),
        }


def _net_profit(p: AnnualFinancials, basis: str) -> float | None:
    return p.net_profit_parent if basis == "parent" else p.net_profit_total


def compute_financial_facts(statements: FinancialStatements) -> FinancialFacts:
    periods = statements.periods
    if not periods:
        raise DataUnavailableError(f"{statements.symbol}: no annual financial statements")
    basis = "parent" if any(p.net_profit_parent is not None for p in periods) else "total"
    rows: list[PeriodFigures] = []
    previous: AnnualFinancials | None = None
    for p in periods:
        profit = _net_profit(p, basis)
        prev_profit = _net_profit(previous, basis) if previous else None
        revenue_yoy = p.revenue_yoy_pct if p.revenue_yoy_pct is not None else _yoy(p.revenue, previous, "revenue")
        profit_yoy = p.net_profit_parent_yoy_pct if basis == "parent" else None
        if profit_yoy is None and prev_profit is not None and prev_profit > 0:
            profit_yoy = pct_change(profit, prev_profit)
        net_margin = p.net_margin_pct
        if net_margin is None and profit is not None and p.revenue:
            net_margin = profit / p.revenue * 100.0
        ocf_ratio = ratio(p.operating_cash_flow, profit) if profit and profit > 0 else None
        debt = ratio(p.total_liabilities, p.total_assets)
        rows.append(
            PeriodFigures(
                period_end=p.period_end,
                revenue=p.revenue,
                net_profit=profit,
                revenue_yoy_pct=rnd(revenue_yoy, 2),
                net_profit_yoy_pct=rnd(profit_yoy, 2),
                gross_margin_pct=p.gross_margin_pct,
                net_margin_pct=rnd(net_margin, 2),
                roe_pct=p.roe_pct,
                ocf_to_net_profit=rnd(ocf_ratio, 3),
                debt_ratio_pct=rnd(debt * 100.0 if debt is not None else None, 2),
                payout_ratio_pct=p.payout_ratio_pct,
                dps=p.dps,
            )
        )
        previous = p
    roes = [r.roe_pct for r in rows if r.roe_pct is not None]
    debt_ratios = [r.debt_ratio_pct for r in rows if r.debt_ratio_pct is not None]
    no_gross_margin = all(r.gross_margin_pct is None for r in rows)
    bank_like = no_gross_margin and bool(debt_ratios) and debt_ratios[-1] >= FINANCIAL_INSTITUTION_DEBT_RATIO
    return FinancialFacts(
        symbol=str(statements.symbol),
        currency=statements.currency,
        net_profit_basis=basis,
        periods=tuple(rows),
        revenue_cagr_pct=rnd(_cagr(rows), 2),
        avg_roe_pct=rnd(sum(roes) / len(roes), 2) if roes else None,
        financial_institution_like=bank_like,
    )


def _yoy(value: float | None, previous: AnnualFinancials | None, name: str) -> float | None:
    old = getattr(previous, name) if previous else None
    return pct_change(value, old) if old and old > 0 else None


def _cagr(rows: list[PeriodFigures]) -> float | None:
    first, last = rows[0], rows[-1]
    years = last.period_end.year - first.period_end.year
    if years < 1 or not first.revenue or not last.revenue or first.revenue <= 0 or last.revenue <= 0:
        return None
    return float(((last.revenue / first.revenue) ** (1.0 / years) - 1.0) * 100.0)
