"""The bulk form of a per-item endpoint (``shared_contracts.bulk``): every item answered in the order asked, each
with the result the per-item endpoint would have returned or the problem detail it would have answered with.

Example::

    answer = await answer_each(body.symbols, run_one, str, path=request.url.path)

``answer`` is the per-item endpoint's own function (metering included), so both routes answer alike. The items run
concurrently as tasks, each in its own copy of the context (its own usage meter).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import structlog

from service_kit.problems import INTERNAL_ERROR_DETAIL, problem_members, service_error_problem
from shared_contracts.bulk import BulkAnswer, BulkItem, ItemProblem
from shared_contracts.errors import ServiceError
from shared_contracts.problems import status_of_code

T = TypeVar("T")
log = structlog.get_logger(__name__)


async def answer_each(
    items: Sequence[T],
    answer: Callable[[T], Awaitable[dict[str, Any]]],
    symbol_of: Callable[[T], str],
    *,
    path: str,
    check: Callable[[T], object] | None = None,
) -> BulkAnswer:
    """One ``BulkItem`` per item, in order: ``answer(item)``, or the problem of the error it raised (``path``:
    the bulk route's, for the log). ``check`` is the per-item endpoint's own check of a request's shape, run on
    every item before any is answered: an item it refuses with a 400 makes the whole call that 400, naming the
    item (a malformed item is the caller's mistake; what an item cannot get — data, history, a model's answer — is
    that item's problem)."""
    for position, item in enumerate(items):
        if check is None:
            break
        try:
            check(item)
        except ServiceError as exc:
            if status_of_code(exc.code) == 400:
                exc.args = (f"items[{position}]: {exc}",)
            raise
    answered = await asyncio.gather(*(_item(symbol_of(item), answer(item), path) for item in items))
    return BulkAnswer(items=list(answered))


async def _item(symbol: str, call: Awaitable[dict[str, Any]], path: str) -> BulkItem:
    try:
        return BulkItem(symbol=symbol, result=await call)
    except ServiceError as exc:
        return BulkItem(symbol=symbol, problem=ItemProblem.model_validate(service_error_problem(exc, path)))
    except Exception as exc:  # one item's fault is that item's 500, as the per-item endpoint answers it
        log.error("unhandled_error", path=path, symbol=symbol, error=repr(exc), exc_info=exc)
        return BulkItem(
            symbol=symbol,
            problem=ItemProblem.model_validate(problem_members(500, "internal_error", INTERNAL_ERROR_DETAIL)),
        )
