"""Wire models of the bulk forms of the peers' endpoints: many symbols in one call, one answer per item.

A batch (``POST /api/v1/coordinator/batches``) sends its items' work to the peers in chunks rather than one call per
symbol and stage. Each bulk endpoint answers ``200`` with one item per item asked, in the order asked; an item is
either the answer the per-symbol endpoint would have given (``result``) or the problem detail it would have
answered with (``problem``: ``status``, ``code``, ``detail``, as RFC 9457). A malformed request, or a malformed
item (what the per-item endpoint answers with a 400), makes the whole call a ``400`` naming the item; what an item
cannot get (no data, too little history, a model's failure) is that item's problem, never the call's.

- ``POST /api/v1/research/experts/{expert_type}/bulk`` — ``ExpertBulkRequest`` → ``BulkAnswer`` (each ``result``
  an expert result as ``POST /api/v1/research/experts/{expert_type}`` returns it, its ``usage`` included);
- ``POST /api/v1/debate/run/bulk`` — ``DebateBulkRequest`` → ``BulkAnswer`` (each ``result`` a ``DebateOutcome``);
- ``POST /api/v1/judge/verdict/bulk`` — ``JudgeBulkRequest`` → ``BulkAnswer`` (each ``result`` a ``Verdict``).

``token_budget`` (optional) is each item's budget, as ``X-Token-Budget`` is for one call.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from shared_contracts.debate import DebateRunRequest
from shared_contracts.experts import EXPERT_OPTION_MODELS, IsoDate
from shared_contracts.json_schema import DocumentedAs
from shared_contracts.judge import JudgeInput
from shared_contracts.language import LANGUAGE_DESCRIPTION, RequestLanguage
from shared_contracts.symbols import SYMBOL_JSON_SCHEMA
from shared_contracts.usage import MAX_TOKEN_BUDGET, whole_tokens

MAX_BULK_ITEMS = 1000
"""Items one bulk call may carry (a batch's limit: it never needs more in one call)."""

ItemBudget = Annotated[
    Annotated[int, Field(ge=0, le=MAX_TOKEN_BUDGET)] | None,
    BeforeValidator(whole_tokens),
    Field(description="Tokens each item's model calls may use; absent: no budget."),
]


class ExpertBulkRequest(BaseModel):
    """One expert on many symbols as of one day, with the same options."""

    model_config = ConfigDict(extra="forbid")

    symbols: list[Annotated[str, WithJsonSchema(SYMBOL_JSON_SCHEMA)]] = Field(min_length=1, max_length=MAX_BULK_ITEMS)
    analysis_date: IsoDate | None = Field(default=None, description="ISO date every item is researched as of.")
    options: Annotated[dict[str, Any] | None, DocumentedAs(*dict.fromkeys(EXPERT_OPTION_MODELS.values()))] = Field(
        default=None, description="The expert's options, the same for every symbol."
    )
    language: RequestLanguage = Field(default=None, description=LANGUAGE_DESCRIPTION)
    token_budget: ItemBudget = None


class DebateBulkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[DebateRunRequest] = Field(min_length=1, max_length=MAX_BULK_ITEMS)
    token_budget: ItemBudget = None


class JudgeBulkRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[JudgeInput] = Field(min_length=1, max_length=MAX_BULK_ITEMS)
    token_budget: ItemBudget = None


class ItemProblem(BaseModel):
    """The problem detail the per-item endpoint would have answered with (its other members kept)."""

    model_config = ConfigDict(extra="allow")

    status: int
    code: str
    detail: str = ""


class BulkItem(BaseModel):
    """One item's answer: ``result`` or ``problem``, never both."""

    model_config = ConfigDict(extra="forbid")

    symbol: str
    result: dict[str, Any] | None = None
    problem: ItemProblem | None = None


class BulkAnswer(BaseModel):
    items: list[BulkItem]
