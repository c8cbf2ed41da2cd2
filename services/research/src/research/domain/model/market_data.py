"""Market data as the experts see it, whatever provider delivered it. Missing figures are None, never guessed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from research.domain.model.symbol import Symbol


@dataclass(frozen=True)
class Bar:
    date: date
    open: float
    high: float
    low: float
    close: float
    volume: float
    amount: float | None = None


@dataclass(frozen=True)
class PriceHistory:
    symbol: Symbol
    bars: tuple[Bar, ...]
    """Daily bars, oldest first."""
    source: str
    adjustment: str = "qfq"
    """How prices are adjusted: ``qfq`` (forward-adjusted), ``adjusted`` (split/dividend), ``raw``."""


@dataclass(frozen=True)
class AnnualFinancials:
    period_end: date
    revenue: float | None = None
    net_profit_parent: float | None = None
    net_profit_total: float | None = None
    revenue_yoy_pct: float | None = None
    net_profit_parent_yoy_pct: float | None = None
    roe_pct: float | None = None
    gross_margin_pct: float | None = None
    net_margin_pct: float | None = None
    operating_cash_flow: float | None = None
    total_assets: float | None = None
    total_liabilities: float | None = None
    accounts_receivable: float | None = None
    inventory: float | None = None
    dps: float | None = None
    dividend_total: float | None = None
    payout_ratio_pct: float | None = None
    year_end_close: float | None = None
    published_on: date | None = None
    """The report's real announcement date when the source has it (else the availability rules' deadline)."""


@dataclass(frozen=True)
class FinancialStatements:
    symbol: Symbol
    periods: tuple[AnnualFinancials, ...]
    """Annual periods, oldest first."""
    source: str
    currency: str = "CNY"


@dataclass(frozen=True)
class ValuationSnapshot:
    as_of: datetime
    source: str
    close: float | None = None
    pe_ttm: float | None = None
    pe_ttm_percentile: float | None = None
    pb: float | None = None
    dividend_yield_pct: float | None = None
    total_mv: float | None = None
    roe_latest_fy_pct: float | None = None
    roe_fy: int | None = None


@dataclass(frozen=True)
class ValuationPoint:
    date: date
    pe_ttm: float | None = None
    pb: float | None = None
    dividend_yield_pct: float | None = None


@dataclass(frozen=True)
class ValuationData:
    symbol: Symbol
    snapshots: tuple[ValuationSnapshot, ...]
    """Point-in-time snapshots, oldest first (providers may disagree; each keeps its source)."""
    history: tuple[ValuationPoint, ...] = ()
    """A valuation time series, oldest first, when the provider has one (the offline snapshot does not)."""
    source: str = ""


@dataclass(frozen=True)
class MacroObservation:
    date: date
    value: float


@dataclass(frozen=True)
class MacroSeries:
    indicator: str
    """e.g. ``cpi_yoy``, ``ppi_yoy``, ``m2_yoy``, ``pmi_manufacturing_nbs``, ``lpr_1y``, ``cgb_10y_yield``."""
    unit: str
    frequency: str
    observations: tuple[MacroObservation, ...]
    """Oldest first."""
    source: str


@dataclass(frozen=True)
class MacroData:
    region: str
    """``CN`` (the snapshot and AKShare) or ``US``."""
    series: dict[str, MacroSeries] = field(default_factory=dict)
    source: str = ""


@dataclass(frozen=True)
class NewsItem:
    published_at: datetime
    title: str
    summary: str
    source: str
    url: str | None = None


@dataclass(frozen=True)
class DateSpan:
    first: date
    last: date
    count: int


@dataclass(frozen=True)
class SymbolCoverage:
    """What a provider has for one symbol: bar days, annual report period ends, valuation snapshot days."""

    symbol: str
    market: str
    bars: DateSpan | None
    financials: DateSpan | None
    valuation: DateSpan | None
