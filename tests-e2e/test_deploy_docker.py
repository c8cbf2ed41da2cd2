"""The real compose stack (build, start, wait for every healthcheck, research through the gateway) with
testcontainers' DockerCompose. Needs a Docker engine and the compose plugin; skips, saying which is missing,
where there is none. Slow (image builds): select it alone with ``pytest -m docker``."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from deploy_manifests import GATEWAY_PORT, ROOT, TEST_CLIENT_KEY, TEST_SECRETS


def _docker_missing() -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        return "no docker CLI on PATH"
    if subprocess.run([docker, "compose", "version"], capture_output=True, check=False).returncode != 0:
        return "the docker CLI has no compose plugin (`docker compose`)"
    info = subprocess.run([docker, "info", "--format", "{{.ServerVersion}}"], capture_output=True, check=False)
    if info.returncode != 0 or not info.stdout.strip():
        return "no Docker engine answers (docker info failed)"
    return None


REASON = _docker_missing()
pytestmark = [pytest.mark.docker, pytest.mark.skipif(REASON is not None, reason=f"compose stack not run: {REASON}")]


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from testcontainers.compose import DockerCompose

    # compose refuses to start without keys and a database password: test values, in an env file of our own
    env_file: Path = tmp_path_factory.mktemp("compose") / "test.env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in TEST_SECRETS.items()), encoding="utf-8")
    with DockerCompose(
        ROOT, compose_file_name="docker-compose.yml", build=True, wait=True, env_file=str(env_file)
    ) as stack:
        host = stack.get_service_host("gateway", GATEWAY_PORT) or "127.0.0.1"
        port = stack.get_service_port("gateway", GATEWAY_PORT)
        yield f"http://{host}:{port}"


def test_every_container_is_healthy_behind_the_gateway(gateway: str) -> None:
    ready = httpx.get(f"{gateway}/readyz", timeout=10)
    assert ready.status_code == 200, ready.text
    assert ready.json()["service"] == "coordinator"


def test_a_research_runs_end_to_end_through_the_gateway(gateway: str) -> None:
    response = httpx.post(
        f"{gateway}/api/v1/coordinator/research",
        json={"symbol": "600519.SH", "experts": ["technical_analyst", "valuation_modeler"]},
        headers={"X-Request-ID": "compose-e2e-1", "Authorization": f"Bearer {TEST_CLIENT_KEY}"},
        timeout=300,
    )
    assert response.status_code == 200, response.text
    assert response.headers["x-request-id"] == "compose-e2e-1"
    body = response.json()
    assert body["overall_status"] in ("completed", "partial")
    assert body["verdict"]["action"] in ("BUY", "SELL", "HOLD")
    session = httpx.get(
        f"{gateway}/api/v1/coordinator/sessions/{body['session_id']}",
        headers={"Authorization": f"Bearer {TEST_CLIENT_KEY}"},
        timeout=10,
    )
    assert session.status_code == 200  # stored in PostgreSQL


def test_an_api_call_without_a_key_is_refused(gateway: str) -> None:
    response = httpx.get(f"{gateway}/api/v1/coordinator/sessions", timeout=10)
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
