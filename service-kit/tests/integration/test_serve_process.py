"""``python -m service_kit.serve``: the one way a service is started (Procfile, image, README) runs uvicorn with the
guarded protocol's request-head limits, the concurrency limit of ``MAX_CONNECTIONS`` and the proxy option asked for."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service_kit.serve import main, uvicorn_arguments


def test_the_arguments_carry_every_server_option_and_max_connections() -> None:
    words = uvicorn_arguments(
        "judge", host="0.0.0.0", port=9, extra=["--proxy-headers"], environ={"MAX_CONNECTIONS": "7"}
    )
    assert words[:6] == ["--factory", "judge.main:create_app", "--host", "0.0.0.0", "--port", "9"]
    assert words[words.index("--http") + 1] == "service_kit.server:GuardedHttpProtocol"
    assert words[words.index("--limit-concurrency") + 1] == "7"
    assert words[words.index("--timeout-keep-alive") + 1] == "5"
    assert "--no-server-header" in words
    assert "--proxy-headers" in words
    assert "--no-proxy-headers" not in words  # the asked-for option replaces the default one
    local = uvicorn_arguments("judge", host="127.0.0.1", port=8003, environ={})
    assert "--no-proxy-headers" in local
    assert local[local.index("--limit-concurrency") + 1] == "512"


def test_a_bad_max_connections_or_service_stops_before_serving(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="MAX_CONNECTIONS must be a whole number above 0"):
        uvicorn_arguments("judge", host="h", port=1, environ={"MAX_CONNECTIONS": "lots"})
    with pytest.raises(SystemExit):
        main(["nosuch"])
    assert "invalid choice: 'nosuch'" in capsys.readouterr().err


def test_print_shows_the_command_with_the_services_default_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["research", "--print"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed[:7] == ["uvicorn", "--factory", "research.main:create_app", "--host", "127.0.0.1", "--port", "8001"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def judge(tmp_path: Path) -> Iterator[int]:
    """The judge started with ``python -m service_kit.serve`` on a free port; its port."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "ANALYSIS_ENGINE"))}
    env |= {"MAX_REQUEST_HEADER_LINES": "20", "LOG_LEVEL": "WARNING"}
    log = (tmp_path / "judge.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "service_kit.serve", "judge", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, (tmp_path / "judge.log").read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()


def test_a_service_started_so_refuses_a_request_head_over_its_limits(judge: int) -> None:
    healthy = httpx.get(f"http://127.0.0.1:{judge}/healthz", timeout=5)
    assert healthy.status_code == 200
    assert "server" not in healthy.headers  # --no-server-header
    headers = {f"x-filler-{i}": "1" for i in range(40)}  # more lines than MAX_REQUEST_HEADER_LINES (20)
    refused = httpx.get(f"http://127.0.0.1:{judge}/healthz", headers=headers, timeout=5)
    assert refused.status_code == 431
    assert refused.json()["code"] == "request_head_too_large"
