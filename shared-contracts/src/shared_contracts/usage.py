"""LLM usage on the wire: what one stage's model calls used (``LLMUsage``), a research's per-stage breakdown
with its total and cost (``ResearchUsage``), and the price table (``ModelPrice``) that turns tokens into cost.

Every research result, debate outcome and verdict carries the ``usage`` of the calls made to produce it (a
rules-engine stage: zero calls). The coordinator sums them per session; a retry's carried stages are named in
``carried`` and counted in the session's ``total`` but not in ``new`` (what this session itself spent)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

MAX_TOKEN_BUDGET = 1_000_000_000
"""The largest token budget a research may have (stored as a 32-bit integer)."""


def whole_tokens(value: Any) -> Any:
    """A JSON number without a fraction (``5`` or ``5.0``) as an int; not a string or a boolean (pydantic's lax mode
    would take ``true`` as 1). For a ``BeforeValidator`` of a token count."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValueError("must be a whole number of tokens")


TokenBudget = Annotated[Annotated[int, Field(ge=1, le=MAX_TOKEN_BUDGET)] | None, BeforeValidator(whole_tokens)]
"""A request's token budget: 1 to ``MAX_TOKEN_BUDGET`` tokens, a whole JSON number, or null."""

TOKEN_BUDGET_EXHAUSTED = "token_budget_exhausted"
"""The problem code of a stage that was not run (or stopped) because the research's token budget was spent."""


class LLMUsage(BaseModel):
    """The model calls one stage made and the tokens they used. ``estimated``: at least one call's endpoint
    reported no usage and its tokens were estimated (docs/decisions.md, "LLM usage and token budgets")."""

    model_config = ConfigDict(frozen=True)

    llm_calls: int = Field(default=0, ge=0)
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    estimated: bool = False
    model: str | None = Field(default=None, description="The model the calls were made to (null: no call).")

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: LLMUsage) -> LLMUsage:
        """The two summed; the model is kept when both name the same one (or one names none)."""
        models = {m for m in (self.model, other.model) if m is not None}
        return LLMUsage(
            llm_calls=self.llm_calls + other.llm_calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            estimated=self.estimated or other.estimated,
            model=models.pop() if len(models) == 1 else None,
        )


def total_of(usages: list[LLMUsage]) -> LLMUsage:
    total = LLMUsage()
    for usage in usages:
        total = total + usage
    return total


class ModelPrice(BaseModel):
    """A model's price per million tokens (``LLM_PRICES``), in whatever currency the table is written in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0, allow_inf_nan=False, description="Per million input (prompt) tokens.")
    output: float = Field(ge=0, allow_inf_nan=False, description="Per million output (completion) tokens.")


def cost_of(usage: LLMUsage, prices: dict[str, ModelPrice]) -> float | None:
    """What ``usage`` cost at ``prices``; None when its model has no price (zero for no call)."""
    if usage.llm_calls == 0:
        return 0.0
    price = prices.get(usage.model or "")
    if price is None:
        return None
    return round((usage.input_tokens * price.input + usage.output_tokens * price.output) / 1_000_000, 6)


class ResearchUsage(BaseModel):
    """A research's usage: per stage (each expert by name, ``debate``, ``judge``), in total, and its cost."""

    stages: dict[str, LLMUsage] = Field(description="Each stage that ran or was carried, with its usage.")
    total: LLMUsage = Field(description="Every stage summed (carried ones included).")
    new: LLMUsage = Field(description="The calls this session made itself (a retry: without the carried stages).")
    carried: list[str] = Field(
        default_factory=list, description="Stages a retry carried from its source (their calls were made there)."
    )
    cost: float | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The total's cost at LLM_PRICES (per model, per million input/output tokens); absent without "
        "a price table, or when a model that was called has no price.",
    )
    token_budget: int | None = Field(
        default=None, description="The research's token budget (RESEARCH_TOKEN_BUDGET or the request's lower one)."
    )
    budget_exhausted: list[str] = Field(
        default_factory=list, description="Stages that failed with token_budget_exhausted."
    )


def research_usage(
    stages: dict[str, LLMUsage],
    *,
    carried: list[str],
    prices: dict[str, ModelPrice] | None,
    token_budget: int | None,
    budget_exhausted: list[str],
) -> ResearchUsage:
    """The rollup of ``stages``: ``total``, ``new`` (without ``carried``) and, with ``prices``, the cost."""
    total = total_of(list(stages.values()))
    new = total_of([u for stage, u in stages.items() if stage not in carried])
    cost: float | None = None
    if prices:
        costs = [cost_of(u, prices) for u in stages.values()]
        cost = None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6)
    return ResearchUsage(
        stages=stages,
        total=total,
        new=new,
        carried=sorted(carried),
        cost=cost,
        token_budget=token_budget,
        budget_exhausted=budget_exhausted,
    )
