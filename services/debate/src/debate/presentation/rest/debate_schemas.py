"""Request/response schemas of the debate endpoint, and the one mapping of a request to a DebateInput.

The schemas are the published wire models (``shared_contracts.debate``). ``expert_results`` values may be
raw research results, coordinator envelopes ``{status, data|error}`` or normalized summaries; the shared
projection (``shared_contracts.projection``) reads them all, and a result it cannot read is a client
mistake (400), never a 500. Each result's ``data_gaps``/``staleness`` counts become its data quality; the
failed experts are ``failed_experts`` together with every failed envelope of ``expert_results``.
"""

from __future__ import annotations

from debate.domain import exceptions as errors
from debate.domain.dtos.debate_input import EXPERT_NAME_PATTERN, MAX_EXPERTS, SYMBOL_PATTERN, DebateInput
from shared_contracts import projection
from shared_contracts.debate import DebateOutcome, DebateRunRequest
from shared_contracts.echo import ECHO_LIMIT, echo
from shared_contracts.errors import InvalidSymbolError, SymbolRequiredError
from shared_contracts.experts import stance_of
from shared_contracts.symbols import canonical_symbol

__all__ = ["DebateOutcome", "DebateRunRequest", "to_debate_input"]


def to_debate_input(request: DebateRunRequest) -> DebateInput:
    symbol = (request.symbol or "").strip()
    if not symbol:
        raise SymbolRequiredError("symbol is required")
    if not SYMBOL_PATTERN.match(symbol):
        raise InvalidSymbolError(f"symbol {echo(symbol)} is not a ticker-like code (e.g. 600519.SH, AAPL)")
    symbol = canonical_symbol(symbol)
    results = request.expert_results
    if not results:
        raise errors.ExpertResultsEmptyError("expert_results must hold at least one expert's result")
    if len(results) > MAX_EXPERTS:
        raise errors.TooManyExpertsError(f"expert_results holds {len(results)} experts; at most {MAX_EXPERTS}")
    for name in results:
        _check_name("expert name", name)
    for name, value in results.items():
        about = projection.symbol_of_result(value)
        if about is not None and canonical_symbol(about).upper() != symbol.upper():
            raise errors.SymbolMismatchError(
                f"expert_results.{name} is about {about[:40]!r}, not {symbol!r}; debate one symbol's results",
                expert=name,
            )
    try:
        summaries = projection.project_expert_results(results)
        quality = projection.project_data_quality(results)
        given = request.data_quality or {}
        quality.update(
            {name: projection.ExpertDataQuality(**q.model_dump()) for name, q in given.items() if name in results}
        )
    except projection.ProjectionError as exc:
        raise errors.InvalidExpertResultError(f"expert_results.{exc}", expert=exc.expert) from exc
    if not summaries:
        raise errors.NoUsableExpertResultError("every expert in expert_results failed; there is nothing to debate")
    for name, summary in summaries.items():
        if stance_of(summary.signal) is None:
            raise errors.UnknownSignalError(
                f"expert_results.{name}: signal {summary.signal!r} is not a known verdict "
                "(BULLISH/BEARISH/NEUTRAL, UNDERVALUED/FAIRLY_VALUED/OVERVALUED, FAVORABLE/UNFAVORABLE, "
                "POSITIVE/NEGATIVE)",
                expert=name,
            )
    failed = list(dict.fromkeys([*(request.failed_experts or []), *projection.failed_experts_of(results)]))
    for name in failed:  # once each, none of them with a result
        _check_name("failed expert name", name)
        if name in summaries:
            raise errors.InvalidExpertResultError(
                f"failed_experts names {name}, whose result in expert_results succeeded", expert=name
            )
    if len(failed) > MAX_EXPERTS:
        raise errors.TooManyExpertsError(f"failed_experts holds {len(failed)} experts; at most {MAX_EXPERTS}")
    composite = request.composite or projection.composite_of(results)
    return DebateInput(
        symbol=symbol, expert_summaries=summaries, data_quality=quality, failed_experts=failed, composite=composite
    )


def _check_name(what: str, name: str) -> None:
    if not EXPERT_NAME_PATTERN.match(name):
        raise errors.InvalidExpertResultError(
            f"{what} {echo(name)} must be letters, digits, '_' or '-' (at most 64)", expert=name[:ECHO_LIMIT]
        )
