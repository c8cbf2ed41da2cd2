"""Every error any service raises has a code with one HTTP status, the same in every service."""

from __future__ import annotations

import importlib

from service_kit.llm import errors as llm_errors
from shared_contracts.errors import ServiceError
from shared_contracts.problems import PROBLEM_STATUS

SERVICE_ERRORS = [f"{svc}.domain.exceptions" for svc in ("coordinator", "research", "debate", "judge")]


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_every_error_code_has_its_one_status() -> None:
    for module in SERVICE_ERRORS:
        importlib.import_module(module)
    classes = _subclasses(ServiceError)
    assert llm_errors.LLMTimeoutError in classes
    assert {c.__module__ for c in classes} >= set(SERVICE_ERRORS)
    missing = sorted(f"{c.__module__}.{c.__qualname__}: {c.code}" for c in classes if c.code not in PROBLEM_STATUS)
    assert missing == []


def test_a_client_mistake_is_never_a_5xx_and_an_upstream_failure_never_a_4xx() -> None:
    assert PROBLEM_STATUS["symbol_required"] == PROBLEM_STATUS["invalid_symbol"] == 400
    assert PROBLEM_STATUS["llm_output_invalid"] == 500  # the debate spec's status, in every service
    assert {PROBLEM_STATUS[c] for c in ("llm_unavailable", "peer_unavailable", "session_store_unavailable")} == {503}
