"""Wire models of the judge service: JudgeInput (the coordinator's debate_outcome mapping) and Verdict."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared_contracts.debate import MAX_DEBATE_EXPERTS, Contribution, Direction
from shared_contracts.engine import EngineInfo
from shared_contracts.experts import IsoDate
from shared_contracts.json_schema import InlineEnum
from shared_contracts.language import LANGUAGE_DESCRIPTION, RequestLanguage
from shared_contracts.numbers_check import NumbersCheck
from shared_contracts.standing import SignedUnit, UnitShare
from shared_contracts.usage import LLMUsage


class Action(InlineEnum):
    BUY = "BUY"
    SELL = "SELL"
    HOLD = "HOLD"


class TimeHorizon(InlineEnum):
    SHORT_TERM = "SHORT_TERM"
    MEDIUM_TERM = "MEDIUM_TERM"
    LONG_TERM = "LONG_TERM"


CONFIDENCE_SENTENCE = {
    "en": "Confidence is the probability that this call is right, fitted on in-sample months only: for BUY/SELL, "
    "that the trade (entered at the next open, closed at its stop, its target or the end of its horizon, after "
    "costs) ends with a positive return; for HOLD, that a long trade entered at the next open would not have made "
    "money over the next 20 trading days.",
    "zh": "置信度是该判断正确的概率（仅用样本内月份拟合）：买入或卖出为按次日开盘价进场、在止损、止盈或期限结束时"
    "离场、扣除成本后收益为正的概率；持有为次日开盘价做多、持有 20 个交易日不赚钱的概率。",
}
"""The one sentence the API schema, the console, the CLI, the Markdown export and the reasoning say about
``Verdict.confidence`` (docs/evaluation.md, "Verdict confidence")."""

MAX_PRICE = 1e9
"""No share trades at a billion a piece: a larger price is a client mistake, not a level to print."""

# Numbers must be JSON numbers: pydantic's lax mode would also take "0.7" and true (as 1.0).
Price = Annotated[float, Field(gt=0, le=MAX_PRICE, allow_inf_nan=False, strict=True)]


MAX_VOLATILITY_PCT = 1000.0
"""An annualised volatility above 1000 % is a unit mistake (a fraction sent as percent is the other way)."""
MAX_PORTFOLIO_VALUE = 1e15

VolatilityPct = Annotated[float, Field(gt=0, le=MAX_VOLATILITY_PCT, allow_inf_nan=False, strict=True)]
Money = Annotated[float, Field(gt=0, le=MAX_PORTFOLIO_VALUE, allow_inf_nan=False, strict=True)]

JUDGE_TICKER_PATTERN = r"[A-Za-z0-9._:^=\-]{1,32}"
"""The judge's symbol: any ticker-like code (index and exchange-prefixed tickers included)."""
SYMBOL_BLANKS = " \t\n\r\f\v"
"""The blanks dropped around a judge's symbol: ASCII ones only (a JSON Schema ``\\s`` and Python's ``str.strip()``
disagree beyond them)."""

MAX_FAILED_EXPERTS = 20
ExpertName = Annotated[str, Field(min_length=1, max_length=64)]


class KeyLevels(BaseModel):
    model_config = ConfigDict(extra="forbid")

    support: list[Price] = Field(default_factory=list)
    resistance: list[Price] = Field(default_factory=list)


class JudgeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(
        min_length=1,
        description="A ticker: 1-32 of letters, digits and . _ : ^ = - (blanks around it are dropped).",
        json_schema_extra={"pattern": f"^[ \\t\\n\\r\\f\\v]*{JUDGE_TICKER_PATTERN}[ \\t\\n\\r\\f\\v]*$"},
    )
    direction: Direction
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False, strict=True)
    bull_thesis: str
    bear_thesis: str
    risk_factors: list[str] = Field(default_factory=list)
    key_disagreements: list[str] = Field(default_factory=list)
    conflict_resolution: str = ""
    reference_price: Price | None = None
    reference_date: IsoDate | None = Field(
        default=None, description="The trading day whose close reference_price is (the technical analyst's as_of)."
    )
    key_levels: KeyLevels | None = None
    failed_experts: list[ExpertName] = Field(
        default_factory=list,
        max_length=MAX_FAILED_EXPERTS,
        description=(
            "Experts the research asked for that failed: the debate and the verdict rest on the others "
            "(the rules engine counts the missing coverage as one more risk and names it)."
        ),
    )
    atr: Price | None = Field(
        default=None,
        description=(
            "ATR(14) in price units at the reference close (the technical analyst's atr14). With "
            "reference_price it sets the stop in units of volatility: 1-4 ATR from entry."
        ),
    )
    realised_volatility_pct: VolatilityPct | None = Field(
        default=None,
        description=(
            "Annualised volatility of daily returns in percent (35.0 = 35 % a year). Shown to the LLM; "
            "without atr/reference_price it estimates the ATR (1.5 × the daily standard deviation)."
        ),
    )
    evidence_horizon: TimeHorizon | None = Field(
        default=None,
        description=(
            "Time scale of the evidence that drove the debate: technical/catalyst → SHORT_TERM, macro → "
            "MEDIUM_TERM, financial/valuation → LONG_TERM. The rules engine's horizon for a BUY/SELL when given."
        ),
    )
    intrinsic_value_low: Price | None = Field(
        default=None, description="Low end of the valuation modeler's intrinsic value range, per share."
    )
    intrinsic_value_high: Price | None = Field(
        default=None,
        description="High end of the valuation modeler's intrinsic value range, per share (not below the low end).",
    )
    portfolio_value: Money | None = Field(
        default=None,
        description=(
            "Portfolio value in the quote currency. With reference_price, a BUY/SELL is expressed in whole "
            "lots (100 shares for A-shares, 1 elsewhere): Verdict.position_shares."
        ),
    )
    score: SignedUnit | None = Field(
        default=None,
        strict=True,
        description=(
            "The stock's composite score in its reference universe (the debate outcome's score). With it the "
            "rules engine decides BUY/SELL on the stock's standing (universe_rank, else the score) and coverage."
        ),
    )
    universe_rank: UnitShare | None = Field(default=None, strict=True, description="The score's percentile (0-1).")
    standing_coverage: UnitShare | None = Field(
        default=None,
        strict=True,
        description="Share of the composite's weight that had data for this stock (below 0.5: no trade).",
    )
    market_view: Literal["FAVORABLE", "NEUTRAL", "UNFAVORABLE"] | None = Field(
        default=None,
        description=(
            "The market-wide view (the macro expert's macro_environment). It scales the position "
            "(Verdict.market_exposure), never the direction."
        ),
    )
    contributions: list[Contribution] | None = Field(
        default=None,
        max_length=MAX_DEBATE_EXPERTS,
        description="The debate's contributions (debate_outcome.contributions): what the score is made of.",
    )
    language: RequestLanguage = Field(default=None, description=LANGUAGE_DESCRIPTION)

    @model_validator(mode="after")
    def _range_in_order(self) -> JudgeInput:
        if self.universe_rank is not None and self.score is None:
            raise ValueError("universe_rank needs the score it ranks")
        low, high = self.intrinsic_value_low, self.intrinsic_value_high
        if low is not None and high is not None and low > high:
            raise ValueError("intrinsic_value_low must not be above intrinsic_value_high")
        return self


class PriceLevel(BaseModel):
    """A stop or a target. A HOLD opens no position: its levels are those a position entered now would have, and
    apply only if entering (its entry strategy says so; the console and the CLI show them so)."""

    percent_from_entry: float = Field(
        description="Signed percent from the entry price (the verdict's reference_price), e.g. -8.0 or 15.0."
    )
    price: float | None = Field(default=None, description="Absolute level when a reference price was given.")
    basis: str = Field(description="How the level was set.")


class GuardrailAdjustment(BaseModel):
    """A change the judge's guardrails made to what the engine proposed (never applied silently)."""

    rule: str = Field(description="Stable rule id, e.g. position_clamped, trade_without_position, debate_side.")
    detail: str = Field(description="What was changed, from what to what, and why.")


class Verdict(BaseModel):
    symbol: str
    action: Action
    position_percent: float = Field(ge=0.0, le=100.0, allow_inf_nan=False)
    position_shares: int | None = Field(
        default=None,
        ge=0,
        description=(
            "The position in shares, whole lots (100 for A-shares, 1 elsewhere), when the input had "
            "portfolio_value and reference_price and the action is BUY/SELL; position_percent is then "
            "recomputed from it. 0: the position's budget is below one lot. None otherwise."
        ),
    )
    confidence: float = Field(
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description=CONFIDENCE_SENTENCE["en"],
    )
    score: SignedUnit | None = Field(
        default=None,
        description=(
            "The signed conviction the action is decided on, in [-1, 1], higher = more bullish: the debate's "
            "composite of the stock's standing against its reference universe. None when no relative evidence "
            "was available (the action then follows the debate's direction and confidence: services/judge/README.md)."
        ),
    )
    universe_rank: UnitShare | None = Field(
        default=None,
        description=(
            "The stock's percentile among its reference universe on the analysis date by the same composite "
            "(0 = the weakest, 1 = the strongest); None where no universe cross-section was computed."
        ),
    )
    market_exposure: UnitShare | None = Field(
        default=None,
        description=(
            "The share of the stock-specific position the market view (macro backdrop) keeps, e.g. 0.6-1.0: "
            "position_percent already includes it. The market view scales exposure; it never sets the direction. "
            "None when the market view was not heard."
        ),
    )
    contributions: list[Contribution] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="What the score is made of: the debate's contributions per expert (they sum to score).",
    )
    reference_price: float | None = Field(
        default=None,
        description="The entry price: the close of reference_date at the market's tick precision (A-shares 0.01). "
        "stop_loss and take_profit percent_from_entry are measured from it and every text quotes it as the entry "
        "or reference price. Null when the research had no close to price it on (then a HOLD).",
    )
    reference_date: IsoDate | None = Field(
        default=None, description="The trading day whose close reference_price is (at most the analysis date)."
    )
    entry_strategy: str
    stop_loss: PriceLevel
    take_profit: PriceLevel
    time_horizon: TimeHorizon
    risk_warnings: list[str]
    reasoning: str
    engine: EngineInfo
    guardrail_adjustments: list[GuardrailAdjustment] = Field(
        default_factory=list, description="Guardrail changes to the engine's proposal; empty when none applied."
    )
    numbers_check: NumbersCheck | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="LLM verdicts: the figures of the verdict's texts traced to the judge's input; quoted stop, "
        "target and position equal to the structured ones.",
    )
    usage: LLMUsage | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The model calls made for it and their tokens (rules engine: zero calls).",
    )
