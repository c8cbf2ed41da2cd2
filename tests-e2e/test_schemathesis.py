"""Property-based API tests: schemathesis, every check on, against each of the four services started as real
processes with API keys on (``AUTH_MODE=api_key``), each driven from its own ``/openapi.json``.

Schemathesis generates requests from the document — valid ones, which must be accepted, and invalid ones, which
must be refused — and checks every answer against it: no 5xx, only documented statuses, content types, headers
and bodies, 405 with ``Allow`` for an undocumented method, and the API key enforced (``ignored_auth`` sends each
request again without the key, and with a wrong one). The run is bounded (``MAX_EXAMPLES`` per operation, a
fixed ``SEED``) and must find nothing. Configuration: ``schemathesis.toml`` beside this file; the rules between
fields JSON Schema cannot state are kept by the valid cases through ``schemathesis_hooks.py``.

Alone: ``uv run pytest tests-e2e/test_schemathesis.py`` (``-k coordinator`` for one service).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service_kit.api_keys import hash_key, new_key
from service_kit.stack.launcher import Stack, running_stack

pytestmark = pytest.mark.e2e

E2E_DIR = Path(__file__).resolve().parent
CONFIG = E2E_DIR / "schemathesis.toml"
HOOKS = E2E_DIR / "schemathesis_hooks.py"
SERVICES = ("research", "debate", "judge", "coordinator")

MAX_EXAMPLES = 25
"""Test cases per operation in the fuzzing phase (the coverage phase adds its own, one per boundary)."""
SEED = 20261125
REQUEST_TIMEOUT = 30.0
RUN_TIMEOUT = 300.0
"""One service's run: the coordinator's 36 operations take about 2 min on two quiet cores, 3 on busy ones."""

CLIENT_KEY = new_key()
"""The fuzzing client's key (scope ``research``; the peers accept it too)."""
SERVICE_KEY = new_key()
"""The coordinator's key to its peers (scope ``service``)."""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir: Path = tmp_path_factory.mktemp("schemathesis")
    common = {
        "AUTH_MODE": "api_key",
        "API_KEYS": f"fuzzer={hash_key(CLIENT_KEY)},coordinator={hash_key(SERVICE_KEY)}:service",
        # Generous limits: the run measures behaviour, not throttling (test_e2e_faults and the unit tests do that).
        "RATE_LIMIT_WRITES": "100000/minute",
        "RATE_LIMIT_READS": "100000/minute",
        "RESEARCH_DAILY_QUOTA": "0",
    }
    with running_stack(
        workdir, common_env=common, per_service_env={"coordinator": {"SERVICE_API_KEY": SERVICE_KEY}}
    ) as s:
        yield s


def schemathesis_command(url: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{url}/openapi.json",
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {CLIENT_KEY}",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        str(SEED),
        "--request-timeout",
        str(REQUEST_TIMEOUT),
    ]


@pytest.mark.parametrize("service", SERVICES)
def test_schemathesis_finds_nothing(stack: Stack, service: str, tmp_path: Path) -> None:
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)}
    result = subprocess.run(
        schemathesis_command(stack[service].url),
        cwd=tmp_path,  # its .schemathesis/ (replays of failures) stays out of the repository
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, (
        f"schemathesis found problems in {service} (exit {result.returncode}):\n{output}\n"
        f"--- {service} log: its last errors ---\n{errors_logged(stack, service)}"
    )


def errors_logged(stack: Stack, service: str, count: int = 10) -> str:
    """The last ``count`` error lines of the service's log (a 500's traceback is there)."""
    lines = stack[service].log_path.read_text(errors="replace").splitlines()
    return "\n".join([line for line in lines if '"level": "error"' in line or "Traceback" in line][-count:])
