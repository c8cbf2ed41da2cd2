"""Configuration wiring cross-checked with the code: compose, Kubernetes and the Procfile set exactly the
variables the services read (pydantic-settings classes discovered at test time), every required one is set,
and the values they set load into the services' settings without error.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
from deploy_manifests import (
    ROOT,
    SERVICES,
    by_kind,
    compose_environment,
    container_env,
    discover_settings,
    is_read,
    kubectl_kustomize,
    load_compose,
    load_service_settings,
    nested_delimiters,
    settings_vars,
    with_operator_secret,
)

# ARCHITECTURE.md "Configuration": what each deployment must set, whatever the defaults in code are.
# Deployed services authenticate (API keys) and share their rate-limit counters (Redis).
SECURED = {"AUTH_MODE", "API_KEYS", "REDIS_URL"}
CONTRACT = {
    "coordinator": {
        "DATABASE_URL",
        "RESEARCH_SERVICE_URL",
        "DEBATE_SERVICE_URL",
        "JUDGE_SERVICE_URL",
        "LOG_LEVEL",
        "SERVICE_API_KEY",
        *SECURED,
    },
    "research": {
        "ANALYSIS_ENGINE",
        "REPORT_LANGUAGE",
        "LLM_BASE_URL",
        "LLM_API_KEY",
        "LLM_MODEL",
        "MARKET_DATA_PROVIDER",
        *SECURED,
    },
    "debate": {"ANALYSIS_ENGINE", "REPORT_LANGUAGE", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", *SECURED},
    "judge": {"ANALYSIS_ENGINE", "REPORT_LANGUAGE", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", *SECURED},
}
# Read by the server process, not by the service's settings: uvicorn (--proxy-headers reads
# FORWARDED_ALLOW_IPS from the environment) and the image's command (--limit-concurrency "${MAX_CONNECTIONS}").
SERVER_VARIABLES = {"FORWARDED_ALLOW_IPS", "MAX_CONNECTIONS"}
# Variables only a live host sets (secrets, LLM endpoint); in k8s they come from optional refs.
OPTIONAL_IN_K8S = {"LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL"}
HOST_WITH_LLM = {"LLM_BASE_URL": "https://llm.example/v1", "LLM_API_KEY": "sk-test", "LLM_MODEL": "m"}


@pytest.fixture(scope="module")
def settings_classes() -> dict[str, list[type]]:
    return {service: discover_settings(service) for service in SERVICES}


def _classes(settings_classes: dict[str, list[type]], service: str) -> list[type]:
    classes = settings_classes[service]
    if not classes:
        pytest.skip(
            f"{service}: no pydantic-settings class found (create_app(settings: ...) in {service}.main, or a "
            f"BaseSettings subclass in {service}.settings/config/container/main) - the service is not written yet"
        )
    return classes


@pytest.fixture(scope="module")
def k8s() -> list[dict[str, Any]]:
    """The overlay as deployed, with the Secret an operator creates by hand (test values)."""
    return with_operator_secret(kubectl_kustomize())


def _k8s_env(docs: list[dict[str, Any]], service: str) -> dict[str, str]:
    deployment = by_kind(docs, "Deployment")[service]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container_env(container, by_kind(docs, "ConfigMap"), by_kind(docs, "Secret"))


def _k8s_declared(docs: list[dict[str, Any]], service: str) -> set[str]:
    (container,) = by_kind(docs, "Deployment")[service]["spec"]["template"]["spec"]["containers"]
    return {var["name"] for var in container.get("env", [])}


def _procfile_env(service: str) -> dict[str, str]:
    """Variables a Procfile line assigns before ``exec uvicorn``; ``${VAR:-default}`` read as the default."""
    for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{service}:"):
            env = {}
            for word in shlex.split(line.split(":", 1)[1]):
                match = re.fullmatch(r"([A-Z_][A-Z0-9_]*)=(.*)", word)
                if not match:
                    break
                env[match.group(1)] = re.sub(r"\$\{[A-Z_]+:-(.*)\}", r"\1", match.group(2))
            return env
    raise AssertionError(f"Procfile has no {service} line")


# --------------------------------------------------------------- contract (independent of the code)


@pytest.mark.parametrize("service", SERVICES)
def test_compose_sets_what_the_architecture_asks_for(service: str) -> None:
    env = compose_environment(load_compose()["services"][service])
    assert CONTRACT[service] - set(env) == set()


@pytest.mark.parametrize("service", SERVICES)
def test_k8s_sets_what_the_architecture_asks_for(k8s: list[dict[str, Any]], service: str) -> None:
    assert CONTRACT[service] - _k8s_declared(k8s, service) == set()
    assert CONTRACT[service] - OPTIONAL_IN_K8S - set(_k8s_env(k8s, service)) == set()


# --------------------------------------------------------------------------- cross-check with code


@pytest.mark.parametrize("service", SERVICES)
def test_settings_are_discoverable(settings_classes: dict[str, list[type]], service: str) -> None:
    classes = _classes(settings_classes, service)
    assert settings_vars(classes), f"{service}: settings class without fields?"


@pytest.mark.parametrize("service", SERVICES)
def test_compose_sets_every_required_variable(settings_classes: dict[str, list[type]], service: str) -> None:
    read = settings_vars(_classes(settings_classes, service))
    env = compose_environment(load_compose()["services"][service])
    missing = {v.name for v in read.values() if v.required and env.get(v.name) is None}
    assert missing == set(), f"docker-compose.yml: {service} needs {sorted(missing)}"


@pytest.mark.parametrize("service", SERVICES)
def test_compose_sets_only_variables_the_service_reads(settings_classes: dict[str, list[type]], service: str) -> None:
    classes = _classes(settings_classes, service)
    read, delimiters = settings_vars(classes), nested_delimiters(classes)
    env = compose_environment(load_compose()["services"][service])
    unknown = sorted(name for name in set(env) - SERVER_VARIABLES if not is_read(name, read, delimiters))
    assert unknown == [], f"docker-compose.yml sets {unknown} on {service}, which reads none of them (typo?)"


@pytest.mark.parametrize("host", [{}, HOST_WITH_LLM], ids=["no-host-env", "llm-host-env"])
@pytest.mark.parametrize("service", SERVICES)
def test_compose_environment_loads_into_the_settings(
    settings_classes: dict[str, list[type]], service: str, host: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    classes = _classes(settings_classes, service)
    declared = compose_environment(load_compose(host)["services"][service])
    # a variable listed without a value takes the host's value, or stays unset
    env = {k: v if v is not None else host[k] for k, v in declared.items() if v is not None or k in host}
    for loaded in load_service_settings(classes, env, monkeypatch):
        if "llm_base_url" in type(loaded).model_fields:
            assert loaded.uses_llm is bool(host)


@pytest.mark.parametrize("service", SERVICES)
def test_k8s_sets_every_required_variable(
    settings_classes: dict[str, list[type]], k8s: list[dict[str, Any]], service: str
) -> None:
    read = settings_vars(_classes(settings_classes, service))
    env = _k8s_env(k8s, service)
    missing = {v.name for v in read.values() if v.required and v.name not in env}
    assert missing == set(), f"k8s: {service} needs {sorted(missing)} in its env (ConfigMap or Secret)"


@pytest.mark.parametrize("service", SERVICES)
def test_k8s_sets_only_variables_the_service_reads(
    settings_classes: dict[str, list[type]], k8s: list[dict[str, Any]], service: str
) -> None:
    classes = _classes(settings_classes, service)
    read, delimiters = settings_vars(classes), nested_delimiters(classes)
    declared = _k8s_declared(k8s, service) | set(_k8s_env(k8s, service))
    unknown = sorted(n for n in declared - SERVER_VARIABLES if not is_read(n, read, delimiters))
    assert unknown == [], f"k8s sets {unknown} on {service}, which reads none of them (typo?)"


@pytest.mark.parametrize("service", SERVICES)
def test_k8s_environment_loads_into_the_settings(
    settings_classes: dict[str, list[type]], k8s: list[dict[str, Any]], service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_service_settings(_classes(settings_classes, service), _k8s_env(k8s, service), monkeypatch)


def test_every_configmap_key_is_read_by_some_service(
    settings_classes: dict[str, list[type]], k8s: list[dict[str, Any]]
) -> None:
    readers = {s: settings_vars(_classes(settings_classes, s)) for s in SERVICES}
    data = by_kind(k8s, "ConfigMap")["stock-research-config"]["data"]
    unread = sorted(k for k in set(data) - SERVER_VARIABLES if not any(k in read for read in readers.values()))
    assert unread == []


@pytest.mark.parametrize("service", SERVICES)
def test_procfile_environment_is_read_and_loads(
    settings_classes: dict[str, list[type]], service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    classes = _classes(settings_classes, service)
    env = _procfile_env(service)
    read = settings_vars(classes)
    assert sorted(n for n in env if n not in read) == []
    settings = load_service_settings(classes, env, monkeypatch)
    if service == "coordinator":
        assert settings[0].database_url.startswith("sqlite+aiosqlite:///./data/")
