"""Every error any service raises has a code with one HTTP status, the same in every service, and one class:
a code is declared once in the workspace, and a class name means one thing."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

from service_kit.llm import errors as llm_errors
from shared_contracts.errors import ServiceError
from shared_contracts.problems import PROBLEM_STATUS

SERVICES = ("coordinator", "research", "debate", "judge")
SERVICE_ERRORS = [f"{svc}.domain.exceptions" for svc in SERVICES]
WORKSPACE_PACKAGES = ("shared_contracts", "service_kit", *SERVICES)


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


def _workspace_errors() -> set[type[ServiceError]]:
    """Every ``ServiceError`` subclass the workspace's packages define, every module of them imported (an error
    defined outside ``exceptions.py`` counts too) but scripts (Alembic's migrations, ``__main__``); the classes
    tests define are left out."""
    for name in WORKSPACE_PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            if ".migrations" not in module.name and not module.name.endswith("__main__"):
                importlib.import_module(module.name)
    return {c for c in _subclasses(ServiceError) if c.__module__.split(".")[0] in WORKSPACE_PACKAGES} | {ServiceError}


def test_every_code_is_declared_by_one_class() -> None:
    declared: dict[str, list[str]] = defaultdict(list)
    for cls in _workspace_errors():
        if "code" in vars(cls):
            declared[cls.code].append(f"{cls.__module__}.{cls.__qualname__}")
    twins = {code: sorted(names) for code, names in declared.items() if len(names) > 1}
    assert twins == {}
    assert declared["llm_output_invalid"] == ["shared_contracts.errors.LLMOutputParseError"]
    assert declared["symbol_not_found"] == ["shared_contracts.errors.SymbolNotFoundError"]


def test_an_error_that_is_raised_declares_its_own_code() -> None:
    """A class with no subclass is one that is raised: it declares its code rather than inherit its parent's
    (a subclass that adds meaning carries a code of its own)."""
    errors = _workspace_errors()
    inherited = sorted(
        f"{c.__module__}.{c.__qualname__}" for c in errors if not c.__subclasses__() and "code" not in vars(c)
    )
    assert inherited == []


def test_a_class_name_means_one_thing_in_the_workspace() -> None:
    """E.g. a 400 for an expert in the body (the coordinator's ``UnknownExpertError``, unknown_expert) and a 404
    for one in the path (research's ``ExpertNotFoundError``, expert_not_found) have different names."""
    names: dict[str, list[str]] = defaultdict(list)
    for cls in _workspace_errors():
        names[cls.__qualname__].append(cls.__module__)
    assert {name: modules for name, modules in names.items() if len(modules) > 1} == {}
    unknown = importlib.import_module("coordinator.domain.exceptions").UnknownExpertError
    not_found = importlib.import_module("research.domain.exceptions").ExpertNotFoundError
    assert (PROBLEM_STATUS[unknown.code], PROBLEM_STATUS[not_found.code]) == (400, 404)
