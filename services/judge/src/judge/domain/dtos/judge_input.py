"""JudgeInput: what the judge decides on (the coordinator's debate_outcome mapping, plus the optional
price, volatility, valuation and portfolio context the coordinator takes from the experts' results). Its fields are
the published ``shared_contracts.judge.JudgeInput``'s; it adds the domain's checks (each mistake its own coded
error, for callers that skip the wire model) and what the engines derive from it."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from judge.domain.exceptions import InvalidJudgeInputError
from judge.domain.model.enums import Direction, TimeHorizon
from judge.domain.model.risk import Volatility, volatility_from
from shared_contracts import judge as wire
from shared_contracts.debate import Contribution
from shared_contracts.errors import InvalidSymbolError, SymbolRequiredError
from shared_contracts.judge import JUDGE_TICKER_PATTERN, SYMBOL_BLANKS, KeyLevels
from shared_contracts.symbols import canonical_symbol

_SYMBOL = re.compile(f"^{JUDGE_TICKER_PATTERN}$")
MARKET_VIEWS = ("FAVORABLE", "NEUTRAL", "UNFAVORABLE")
_POSITIVE_NUMBERS = ("atr", "realised_volatility_pct", "intrinsic_value_low", "intrinsic_value_high", "portfolio_value")


@dataclass(frozen=True)
class JudgeInput:
    symbol: str
    direction: Direction
    confidence: float
    bull_thesis: str
    bear_thesis: str
    risk_factors: Sequence[str] = ()
    key_disagreements: Sequence[str] = ()
    conflict_resolution: str = ""
    reference_price: float | None = None
    key_levels: KeyLevels = field(default_factory=KeyLevels)
    """Support and resistance prices (the technical analyst's ``key_technical_levels``)."""
    reference_date: date | None = None
    """The trading day whose close ``reference_price`` is, when the caller knows it."""
    failed_experts: Sequence[str] = ()
    """Experts the research asked for that failed: what the verdict could not hear."""
    atr: float | None = None
    """ATR(14) in price units at the reference close (the technical analyst's ``atr14``)."""
    realised_volatility_pct: float | None = None
    """Annualised volatility of daily returns, in percent (35.0 = 35 % a year)."""
    evidence_horizon: TimeHorizon | None = None
    """The time scale of the evidence that carried the debate (technical/catalyst short, macro medium,
    financial/valuation long); the rules engine's horizon for a trade when given."""
    intrinsic_value_low: float | None = None
    intrinsic_value_high: float | None = None
    """The valuation modeler's intrinsic value range, per share (a take-profit candidate)."""
    portfolio_value: float | None = None
    """The portfolio's value in the quote currency: with a reference price, the position in whole lots."""
    score: float | None = None
    """The stock's composite score in its reference universe, in [-1, 1]: with it the action follows the
    stock's standing (``shared_contracts.standing.standing_side``), not the debate's confidence."""
    universe_rank: float | None = None
    """The score's percentile (0-1) among the universe on the analysis date."""
    standing_coverage: float | None = None
    """Share of the composite's weight that had data for the stock."""
    market_view: str | None = None
    """FAVORABLE / NEUTRAL / UNFAVORABLE: the market-wide view, which scales the position only."""
    contributions: Sequence[Contribution] = ()
    """The debate's contributions per expert: what the score is made of (they sum to it)."""

    def __post_init__(self) -> None:
        if not self.symbol.strip(SYMBOL_BLANKS):
            raise SymbolRequiredError("symbol is required")
        if not _SYMBOL.match(self.symbol.strip(SYMBOL_BLANKS)):
            raise InvalidSymbolError(
                f"symbol {self.symbol[:40]!r} is not a ticker (1-32 of letters, digits and . _ : ^ = -)"
            )
        if not isinstance(self.direction, Direction):
            raise InvalidJudgeInputError(f"direction must be one of {[d.value for d in Direction]}")
        if not (math.isfinite(self.confidence) and 0.0 <= self.confidence <= 1.0):
            raise InvalidJudgeInputError(f"confidence must be between 0 and 1, got {self.confidence!r}")
        if self.reference_price is not None and not (math.isfinite(self.reference_price) and self.reference_price > 0):
            raise InvalidJudgeInputError(f"reference_price must be a positive price, got {self.reference_price!r}")
        for name in _POSITIVE_NUMBERS:
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise InvalidJudgeInputError(f"{name} must be a positive number, got {value!r}")
        if self.evidence_horizon is not None and not isinstance(self.evidence_horizon, TimeHorizon):
            raise InvalidJudgeInputError(f"evidence_horizon must be one of {[h.value for h in TimeHorizon]}")
        low, high = self.intrinsic_value_low, self.intrinsic_value_high
        if low is not None and high is not None and low > high:
            raise InvalidJudgeInputError(f"intrinsic_value_low {low!r} is above intrinsic_value_high {high!r}")
        if self.score is not None and not (math.isfinite(self.score) and -1.0 <= self.score <= 1.0):
            raise InvalidJudgeInputError(f"score must be between -1 and 1, got {self.score!r}")
        for name in ("universe_rank", "standing_coverage"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise InvalidJudgeInputError(f"{name} must be between 0 and 1, got {value!r}")
        if self.universe_rank is not None and self.score is None:
            raise InvalidJudgeInputError("universe_rank needs the score it ranks")
        if self.market_view is not None and self.market_view not in MARKET_VIEWS:
            raise InvalidJudgeInputError(f"market_view must be one of {list(MARKET_VIEWS)}")

    @classmethod
    def from_wire(cls, body: wire.JudgeInput) -> JudgeInput:
        """The request body's fields as they are (but ``language``: the service judging it is that language's),
        with the symbol in its canonical form and the direction as the domain's enum."""
        return cls(
            **{
                **{name: value for name, value in dict(body).items() if name != "language"},
                "symbol": canonical_symbol(body.symbol),
                "direction": Direction(body.direction),
                "key_levels": body.key_levels or KeyLevels(),
                "contributions": tuple(body.contributions or ()),
            }
        )

    @property
    def volatility(self) -> Volatility | None:
        """One ATR in percent of the reference price (``domain.model.risk``); None when unknown."""
        return volatility_from(self.atr, self.reference_price, self.realised_volatility_pct)

    @property
    def unpriced(self) -> tuple[Literal["price", "volatility"], ...]:
        """What a BUY or SELL lacks to be acted on (empty when nothing): a reference close (the coordinator sends one
        only when it is of the analysis date or within ``shared_contracts.reference_price.REFERENCE_STALE_WEEKDAYS``
        before it) and a volatility measure (the stop and the size are set in ATR). A call lacking either is a HOLD."""
        missing: list[Literal["price", "volatility"]] = []
        if self.reference_price is None:
            missing.append("price")
        if self.volatility is None:
            missing.append("volatility")
        return tuple(missing)

    @property
    def valuation_bounds(self) -> tuple[float, ...]:
        """The given ends of the intrinsic value range (one, both or none)."""
        return tuple(v for v in (self.intrinsic_value_low, self.intrinsic_value_high) if v is not None)

    @property
    def named_risks(self) -> tuple[str, ...]:
        """Risk factors with blank and repeated entries dropped (what the rules count and list)."""
        return tuple(dict.fromkeys(r.strip() for r in self.risk_factors if r.strip()))

    @property
    def risk_count(self) -> int:
        """The named risks, plus one for missing coverage when experts failed (the rules size by it)."""
        return len(self.named_risks) + (1 if self.failed_experts else 0)

    @property
    def named_disagreements(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.strip() for d in self.key_disagreements if d.strip()))
