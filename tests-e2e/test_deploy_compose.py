"""docker-compose.yml, deploy/Dockerfile and the gateway image: validated offline, cross-checked with the code.

The compose file is validated against the Compose Specification JSON schema vendored in deploy/schemas/
(source noted there), before and after interpolation, the way ``docker compose config`` would see it.
"""

from __future__ import annotations

import ipaddress
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from deploy_manifests import (
    COMPOSE_FILE,
    COMPOSE_SCHEMA,
    GATEWAY_PORT,
    HEALTH_PATHS,
    ROOT,
    SERVICE_PORTS,
    SERVICES,
    TEST_SECRETS,
    compose_environment,
    load_compose,
)

DOCKERFILE = ROOT / "deploy" / "Dockerfile"
GATEWAY_DOCKERFILE = ROOT / "deploy" / "nginx" / "Dockerfile"
LLM_HOST_ENV = {
    "LLM_BASE_URL": "https://llm.example/v1",
    "LLM_API_KEY": "sk-test",
    "LLM_MODEL": "some-model",
    "ANALYSIS_ENGINE": "llm",
    "REPORT_LANGUAGE": "en",
    "MARKET_DATA_PROVIDER": "akshare",
    "RESEARCH_EXTRAS": "akshare",
    "POSTGRES_PASSWORD": "s3cret",
    "GATEWAY_PORT": "9080",
}


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(COMPOSE_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_compose()


def _errors(validator: jsonschema.protocols.Validator, document: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


# -------------------------------------------------------------------------------------------- schema


def test_compose_file_is_valid_against_the_compose_spec(validator: jsonschema.protocols.Validator) -> None:
    raw = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    assert _errors(validator, raw) == []
    assert _errors(validator, load_compose()) == []
    assert _errors(validator, load_compose(LLM_HOST_ENV)) == []


@pytest.mark.parametrize(
    ("path", "bad_value"),
    [
        (("services", "coordinator", "depends_on", "research", "condition"), "service_ready"),
        (("services", "research", "healthcheck", "interval_seconds"), 10),
        (("services", "gateway", "ports"), "8080:8080"),
    ],
)
def test_the_vendored_schema_rejects_broken_compose_files(
    validator: jsonschema.protocols.Validator, compose: dict[str, Any], path: tuple[str, ...], bad_value: Any
) -> None:
    broken = json.loads(json.dumps(compose))
    node = broken
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = bad_value
    assert _errors(validator, broken), f"schema accepted {path}={bad_value!r}"


def test_vendored_schema_is_the_documented_file() -> None:
    import hashlib

    readme = (COMPOSE_SCHEMA.parent / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256(COMPOSE_SCHEMA.read_bytes()).hexdigest() in readme
    assert (COMPOSE_SCHEMA.parent / "LICENSE.compose-spec").is_file()


# ------------------------------------------------------------------------------------- stack shape


def test_stack_has_postgres_redis_the_four_services_and_the_gateway(compose: dict[str, Any]) -> None:
    started_by_default = {name for name, spec in compose["services"].items() if not spec.get("profiles")}
    assert started_by_default == {"postgres", "redis", *SERVICES, "gateway"}


def test_the_tracing_profile_adds_jaeger_and_the_services_export_to_it_when_told(compose: dict[str, Any]) -> None:
    jaeger = compose["services"]["jaeger"]
    assert jaeger["profiles"] == ["tracing"]
    assert jaeger["ports"] == ["127.0.0.1:16686:16686"]  # the UI on the host's loopback; OTLP on the network
    for name in SERVICES:  # passed through from the host when set there (the services' default: off)
        assert compose_environment(compose["services"][name])["OTEL_EXPORTER_OTLP_ENDPOINT"] is None


@pytest.mark.parametrize("service", SERVICES)
def test_service_is_built_from_the_shared_dockerfile_with_its_name_and_port(
    compose: dict[str, Any], service: str
) -> None:
    spec = compose["services"][service]
    build = spec["build"]
    assert build["context"] == "."
    assert build["dockerfile"] == "deploy/Dockerfile"
    assert build["args"]["SERVICE"] == service
    assert int(build["args"]["PORT"]) == SERVICE_PORTS[service]
    published = [p.rsplit(":", 2) for p in spec["ports"]]
    assert [(int(host), int(container)) for _ip, host, container in published] == [
        (SERVICE_PORTS[service], SERVICE_PORTS[service])
    ]


@pytest.mark.parametrize("service", [*SERVICES, "postgres", "redis", "gateway", "jaeger"])
def test_every_container_has_a_healthcheck(compose: dict[str, Any], service: str) -> None:
    check = compose["services"][service]["healthcheck"]
    assert check["test"][0] in ("CMD", "CMD-SHELL")
    assert not check.get("disable", False)


@pytest.mark.parametrize("service", SERVICES)
def test_service_healthcheck_polls_readyz_on_its_port(compose: dict[str, Any], service: str) -> None:
    command = " ".join(compose["services"][service]["healthcheck"]["test"][1:])
    urls = re.findall(r"http://127\.0\.0\.1:(\d+)(/\w+)", command)
    assert urls == [(str(SERVICE_PORTS[service]), "/readyz")]


def test_gateway_healthcheck_uses_a_health_path_on_the_gateway_port(compose: dict[str, Any]) -> None:
    command = " ".join(compose["services"]["gateway"]["healthcheck"]["test"][1:])
    port, path = re.findall(r"http://127\.0\.0\.1:(\d+)(/\w+)", command)[0]
    assert int(port) == GATEWAY_PORT
    assert path in HEALTH_PATHS


def test_start_order_waits_for_healthy_dependencies(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["coordinator"]["depends_on"] == {
        name: {"condition": "service_healthy"} for name in ("redis", "postgres", "research", "debate", "judge")
    }
    assert services["gateway"]["depends_on"] == {"coordinator": {"condition": "service_healthy"}}
    for name in ("research", "debate", "judge"):
        assert services[name]["depends_on"] == {"redis": {"condition": "service_healthy"}}
    for name in ("postgres", "redis"):
        assert "depends_on" not in services[name], f"{name} should start without waiting for anything"


def test_coordinator_reaches_peers_and_postgres_by_service_name(compose: dict[str, Any]) -> None:
    env = compose_environment(compose["services"]["coordinator"])
    for peer in ("research", "debate", "judge"):
        assert env[f"{peer.upper()}_SERVICE_URL"] == f"http://{peer}:{SERVICE_PORTS[peer]}"
    postgres = compose_environment(compose["services"]["postgres"])
    assert env["DATABASE_URL"] == (
        f"postgresql+asyncpg://{postgres['POSTGRES_USER']}:{postgres['POSTGRES_PASSWORD']}"
        f"@postgres:5432/{postgres['POSTGRES_DB']}"
    )


def test_database_password_comes_from_the_host_when_set() -> None:
    env = compose_environment(load_compose({"POSTGRES_PASSWORD": "s3cret"})["services"]["coordinator"])
    assert ":s3cret@postgres:5432/" in env["DATABASE_URL"]  # type: ignore[operator]
    postgres = compose_environment(load_compose({"POSTGRES_PASSWORD": "s3cret"})["services"]["postgres"])
    assert postgres["POSTGRES_PASSWORD"] == "s3cret"


@pytest.mark.parametrize("service", ["research", "debate", "judge"])
def test_llm_variables_pass_through_from_the_host(compose: dict[str, Any], service: str) -> None:
    env = compose_environment(compose["services"][service])
    for var in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL"):
        assert env[var] is None, f"{service}: {var} must be listed without a value (host pass-through)"
    assert env["ANALYSIS_ENGINE"] == "auto"
    assert env["REPORT_LANGUAGE"] == "zh"
    with_host = compose_environment(load_compose(LLM_HOST_ENV)["services"][service])
    assert with_host["ANALYSIS_ENGINE"] == "llm"
    assert with_host["REPORT_LANGUAGE"] == "en"


def test_market_data_provider_defaults_offline_and_passes_through(compose: dict[str, Any]) -> None:
    assert compose_environment(compose["services"]["research"])["MARKET_DATA_PROVIDER"] == "offline"
    research = load_compose(LLM_HOST_ENV)["services"]["research"]
    assert compose_environment(research)["MARKET_DATA_PROVIDER"] == "akshare"
    assert research["build"]["args"]["EXTRAS"] == "akshare"


def test_gateway_fronts_the_coordinator_only(compose: dict[str, Any]) -> None:
    gateway = compose["services"]["gateway"]
    assert gateway["build"]["context"] == "deploy/nginx"
    assert gateway["ports"] == [f"{GATEWAY_PORT}:{GATEWAY_PORT}"]
    assert load_compose(LLM_HOST_ENV)["services"]["gateway"]["ports"] == [f"9080:{GATEWAY_PORT}"]


# ---------------------------------------------------------------------------------- keys, Redis, proxy

REQUIRED = ("API_KEYS", "SERVICE_API_KEY", "POSTGRES_PASSWORD", "REDIS_PASSWORD")
CREDENTIAL = re.compile(r"PASSWORD|SECRET|TOKEN(?!S_PER_MINUTE)|API_KEY|_KEYS?$")  # a rate of tokens is no token
URL_WITH_PASSWORD = re.compile(r"://[^/\s:@]+:(?P<password>\$\{[^}]*\}|[^/\s@]+)@")
REQUIRED_FROM_HOST = re.compile(r"\$\{[A-Z_]+:\?[^}]*\}")


@pytest.mark.parametrize("variable", REQUIRED)
@pytest.mark.parametrize("value", [None, ""], ids=["unset", "empty"])
def test_compose_refuses_to_start_without_keys_and_password(variable: str, value: str | None) -> None:
    host = {k: v for k, v in TEST_SECRETS.items() if k != variable}
    if value is not None:
        host[variable] = value
    with pytest.raises(ValueError, match=f"required variable {variable} is missing"):
        load_compose(host, with_secrets=False)
    load_compose(TEST_SECRETS, with_secrets=False)  # all three set: it starts


def test_required_variables_use_the_refusing_syntax_everywhere() -> None:
    text = COMPOSE_FILE.read_text(encoding="utf-8")
    for variable in REQUIRED:
        uses = re.findall(rf"\$\{{{variable}(\W[^}}]*)?\}}", text)
        assert uses, f"{variable} is not used"
        assert all(use.startswith(":?") for use in uses), f"{variable}: every use must be ${{{variable}:?...}}"


def test_compose_holds_no_literal_credential() -> None:
    raw = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    for name, service in raw["services"].items():
        for variable, value in compose_environment(service).items():
            if CREDENTIAL.search(variable):
                assert value is None or REQUIRED_FROM_HOST.fullmatch(value), (
                    f"{name}: {variable} must be passed through or required from the host, not written here"
                )
            for match in URL_WITH_PASSWORD.finditer(value or ""):
                assert REQUIRED_FROM_HOST.fullmatch(match.group("password")), f"{name}: {variable} holds a password"


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_requires_api_keys_and_counts_in_redis(compose: dict[str, Any], service: str) -> None:
    env = compose_environment(compose["services"][service])
    assert env["AUTH_MODE"] == "api_key"
    assert env["API_KEYS"] == TEST_SECRETS["API_KEYS"]
    assert env["REDIS_URL"] == f"redis://:{TEST_SECRETS['REDIS_PASSWORD']}@redis:6379/0"
    assert ("SERVICE_API_KEY" in env) is (service == "coordinator"), "only the coordinator holds the service key"
    if service == "coordinator":
        assert env["SERVICE_API_KEY"] == TEST_SECRETS["SERVICE_API_KEY"]


def test_redis_keeps_nothing_and_is_not_published(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    assert "ports" not in redis
    shell, flag, command = redis["command"]
    assert (shell, flag) == ("sh", "-c")
    assert "--save '' --appendonly no" in command
    assert "requirepass" in command
    assert "$REDIS_PASSWORD" in command
    assert redis["environment"]["REDIS_PASSWORD"] == TEST_SECRETS["REDIS_PASSWORD"]
    assert redis["environment"]["REDISCLI_AUTH"] == TEST_SECRETS["REDIS_PASSWORD"]  # the healthcheck's ping
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


@pytest.mark.parametrize("service", [*SERVICES, "postgres", "redis", "gateway", "jaeger"])
def test_every_container_drops_capabilities_and_runs_read_only_within_limits(
    compose: dict[str, Any], service: str
) -> None:
    spec = compose["services"][service]
    assert spec["cap_drop"] == ["ALL"]
    assert set(spec.get("cap_add", [])) <= {"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"}
    assert spec["read_only"] is True
    assert spec["tmpfs"], "a read-only container needs a tmpfs where it writes"
    assert spec["mem_limit"]
    assert spec["cpus"]
    assert spec["pids_limit"]
    assert "no-new-privileges:true" in spec["security_opt"]


@pytest.mark.parametrize("service", ["postgres", "redis"])
def test_third_party_images_are_pinned_by_digest(compose: dict[str, Any], service: str) -> None:
    assert re.fullmatch(r"[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}", compose["services"][service]["image"])


def test_coordinator_trusts_forwarded_headers_from_the_gateway_only(compose: dict[str, Any]) -> None:
    (ipam,) = compose["networks"]["default"]["ipam"]["config"]
    subnet, dynamic = ipaddress.ip_network(ipam["subnet"]), ipaddress.ip_network(ipam["ip_range"])
    gateway = ipaddress.ip_address(compose["services"]["gateway"]["networks"]["default"]["ipv4_address"])
    assert gateway in subnet
    assert gateway not in dynamic, "a container started earlier could take the gateway's address"
    assert dynamic.subnet_of(subnet)  # type: ignore[arg-type]
    for name in SERVICES:
        env = compose_environment(compose["services"][name])
        if name == "coordinator":
            assert env["FORWARDED_ALLOW_IPS"] == str(gateway)
        else:
            assert "FORWARDED_ALLOW_IPS" not in env, f"{name} has no proxy in front"


def test_env_example_lists_the_required_variables_without_values() -> None:
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    assigned = dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))
    assert set(REQUIRED) <= set(assigned)
    assert all(value == "" for value in assigned.values()), ".env.example holds values"
    assert 'make keys ARGS="create' in "\n".join(lines)


# ---------------------------------------------------------------------------------------- Dockerfile


def _instructions(path: Path) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", path.read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]


def test_dockerfile_is_multi_stage_on_the_slim_python_of_python_version() -> None:
    """The images run the Python the tests and benchmarks run (``.python-version``)."""
    instructions = _instructions(DOCKERFILE)
    args = dict(v.partition("=")[::2] for k, v in instructions if k == "ARG")
    stages = [v for k, v in instructions if k == "FROM"]
    assert len(stages) >= 3
    runtime = (ROOT / ".python-version").read_text(encoding="utf-8").strip()
    assert re.fullmatch(rf"python:{re.escape(runtime)}-slim(-\w+)?@sha256:[0-9a-f]{{64}}", args["PYTHON_IMAGE"])
    assert stages[-1].startswith("${PYTHON_IMAGE} AS runtime")


def test_dockerfile_syncs_only_the_service_package_from_the_lock() -> None:
    runs = [v for k, v in _instructions(DOCKERFILE) if k == "RUN" and "uv sync" in v]
    assert len(runs) == 2
    for command in runs:
        for flag in ("--locked", '--package "${SERVICE}"', "--no-dev"):
            assert flag in command
    assert "--no-install-workspace" in runs[0]
    assert "--no-editable" in runs[1]
    # a cached wheel of a workspace package is keyed on its pyproject only: never reuse one
    assert "--no-cache" in runs[1]
    assert "--mount=type=cache" not in runs[1]


def test_dockerfile_copies_every_workspace_member_pyproject() -> None:
    root = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    members = sorted(
        str(path.parent.relative_to(ROOT))
        for pattern in root["tool"]["uv"]["workspace"]["members"]
        for path in ROOT.glob(f"{pattern}/pyproject.toml")
    )
    copies = {v.split()[0] for k, v in _instructions(DOCKERFILE) if k == "COPY" and not v.startswith("--from")}
    missing = [m for m in members if f"{m}/pyproject.toml" not in copies]
    assert members
    assert missing == [], "uv sync --locked needs every member's pyproject in the dependency layer"


def test_dockerfile_runs_as_non_root_with_healthcheck_and_uvicorn_factory() -> None:
    instructions = _instructions(DOCKERFILE)
    runtime = instructions[max(i for i, (k, _v) in enumerate(instructions) if k == "FROM") :]
    user = [v for k, v in runtime if k == "USER"]
    assert user
    assert user[-1].split(":")[0] not in ("0", "root")
    healthcheck = " ".join(v for k, v in runtime if k == "HEALTHCHECK")
    assert "/healthz" in healthcheck
    assert "{os.environ['PORT']}" in healthcheck
    cmd = " ".join(v for k, v in runtime if k == "CMD")
    assert re.search(r'exec python -m service_kit\.serve \\"\$\{SERVICE\}\\" --host 0\.0\.0\.0 --port', cmd)


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_has_the_factory_the_image_runs(service: str) -> None:
    import importlib

    main = importlib.import_module(f"{service}.main")
    assert callable(getattr(main, "create_app", None)), f"{service}.main:create_app is what CMD starts"


def test_dockerignore_keeps_sources_and_lock_in_the_context() -> None:
    ignored = {
        line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines() if line.strip()[:1] not in ("", "#")
    }
    assert {".venv", ".git"} <= ignored
    for needed in ("uv.lock", "pyproject.toml", "services", "shared-contracts", "deploy"):
        assert needed not in ignored


def test_gateway_image_bakes_the_nginx_config_and_runs_unprivileged() -> None:
    instructions = _instructions(GATEWAY_DOCKERFILE)
    assert instructions[0][1].startswith("nginxinc/nginx-unprivileged:")
    assert ("COPY", "nginx.conf /etc/nginx/nginx.conf") in instructions
    assert "/healthz" in " ".join(v for k, v in instructions if k == "HEALTHCHECK")
