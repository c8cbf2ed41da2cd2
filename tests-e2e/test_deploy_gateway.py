"""The nginx gateway config (deploy/nginx/nginx.conf): static checks, and — where an ``nginx`` binary is
installed — the real nginx run with this config in front of a stand-in coordinator on loopback."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from deploy_manifests import GATEWAY_PORT, ROOT, SERVICE_PORTS

CONF = ROOT / "deploy" / "nginx" / "nginx.conf"
NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None
)
needs_nginx = pytest.mark.skipif(NGINX is None, reason="no nginx binary here (apt-get install nginx-light)")


def _conf() -> str:
    return CONF.read_text(encoding="utf-8")


def _duration_seconds(value: str) -> int:
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h)?", value).groups()  # type: ignore[union-attr]
    return int(number) * {"ms": 0, "s": 1, "m": 60, "h": 3600, None: 1}[unit]


def test_gateway_proxies_the_coordinator_api_to_the_coordinator_port() -> None:
    conf = _conf()
    assert re.search(r"upstream coordinator \{\s*server coordinator:(\d+);", conf).group(1) == str(  # type: ignore[union-attr]
        SERVICE_PORTS["coordinator"]
    )
    block = conf[conf.index("location /api/v1/coordinator/ {") :]
    block = block[: block.index("\n        }")]
    assert "proxy_pass http://coordinator;" in block  # no URI part: the path is passed unchanged
    assert _duration_seconds(re.search(r"proxy_read_timeout (\S+);", block).group(1)) >= 300  # type: ignore[union-attr]
    assert "proxy_set_header X-Request-ID $gateway_request_id;" in block
    assert f"listen {GATEWAY_PORT};" in conf


def test_request_id_is_passed_through_or_generated() -> None:
    conf = _conf()
    mapping = conf[conf.index("map $http_x_request_id $gateway_request_id") :]
    mapping = mapping[: mapping.index("\n    }")]
    assert re.search(r"\n\s*default\s+\$request_id;", mapping)
    assert re.search(r'"~\^\[A-Za-z0-9\._:-\]\{1,128\}\$"\s+\$http_x_request_id;', mapping)


def test_access_log_is_json_with_the_request_id() -> None:
    conf = _conf()
    assert re.search(r"log_format json_access escape=json", conf)
    assert "access_log /dev/stdout json_access;" in conf
    fmt = conf[conf.index("log_format json_access") : conf.index("access_log /dev/stdout")]
    template = "".join(re.findall(r"'([^']*)'", fmt))
    sample = re.sub(r"\$[a-z_0-9]+", "1", template)
    assert json.loads(sample)["request_id"] == "1"


# ------------------------------------------------------------------------------------- real nginx


class _Coordinator(BaseHTTPRequestHandler):
    """Answers like the coordinator would: echoes the X-Request-ID it got."""

    seen: list[dict[str, str]] = []  # noqa: RUF012

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        _Coordinator.seen.append({k.lower(): v for k, v in self.headers.items()} | {"path": self.path})
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Request-ID", self.headers.get("X-Request-ID", "none"))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._answer(200, {"status": "ready", "service": "coordinator"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self._answer(200, {"echo": json.loads(self.rfile.read(length) or b"{}"), "path": self.path})

    def log_message(self, *args: Any) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def upstream() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Coordinator)
    _Coordinator.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


def _local_conf(tmp_path: Path, upstream_port: int, listen_port: int) -> Path:
    """The real config, with only host-specific paths and addresses changed for a loopback run."""
    conf = _conf()
    conf = conf.replace("server coordinator:8000;", f"server 127.0.0.1:{upstream_port};")
    conf = conf.replace(f"listen {GATEWAY_PORT};", f"listen 127.0.0.1:{listen_port};")
    conf = conf.replace("/tmp/", f"{tmp_path}/")
    conf = conf.replace("access_log /dev/stdout", f"access_log {tmp_path}/access.log")
    conf = conf.replace("error_log /dev/stderr", f"error_log {tmp_path}/error.log")
    conf = "daemon off;\n" + conf
    path = tmp_path / "nginx.conf"
    path.write_text(conf, encoding="utf-8")
    return path


@needs_nginx
def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    conf = _local_conf(tmp_path, 1, _free_port())
    out = subprocess.run(
        [NGINX, "-t", "-c", str(conf), "-p", str(tmp_path), "-e", str(tmp_path / "error.log")],  # type: ignore[list-item]
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr


@contextlib.contextmanager
def running_nginx(tmp_path: Path, upstream_port: int, timeout: float = 15.0) -> Iterator[tuple[str, Path]]:
    """The real nginx with the real config (``_local_conf``) in front of ``upstream_port``, on a free loopback
    port; yields its URL and its access log, once it answers ``/healthz``."""
    port = _free_port()
    conf = _local_conf(tmp_path, upstream_port, port)
    proc = subprocess.Popen(
        [str(NGINX), "-c", str(conf), "-p", str(tmp_path), "-e", str(tmp_path / "error.log")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                httpx.get(f"{url}/healthz", timeout=0.5)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else "nginx exited"
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.05)
        yield url, tmp_path / "access.log"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def gateway(tmp_path: Path, upstream: int) -> Iterator[tuple[str, Path]]:
    with running_nginx(tmp_path, upstream) as running:
        yield running


@needs_nginx
def test_gateway_forwards_the_callers_request_id(gateway: tuple[str, Path]) -> None:
    url, access_log = gateway
    response = httpx.post(
        f"{url}/api/v1/coordinator/research", json={"symbol": "600519.SH"}, headers={"X-Request-ID": "abc-123"}
    )
    assert response.status_code == 200
    assert response.json()["path"] == "/api/v1/coordinator/research"
    assert response.headers.get_list("x-request-id") == ["abc-123"]
    assert _Coordinator.seen[-1]["x-request-id"] == "abc-123"
    time.sleep(0.2)
    entries = [json.loads(line) for line in access_log.read_text().splitlines()]
    assert entries[-1]["request_id"] == "abc-123"
    assert entries[-1]["status"] == 200
    assert entries[-1]["uri"] == "/api/v1/coordinator/research"


@pytest.mark.parametrize("header", [None, "bad id with spaces"])
@needs_nginx
def test_gateway_generates_a_request_id_when_missing_or_invalid(gateway: tuple[str, Path], header: str | None) -> None:
    url, _log = gateway
    headers = {"X-Request-ID": header} if header else {}
    response = httpx.get(f"{url}/api/v1/coordinator/sessions", headers=headers)
    sent = _Coordinator.seen[-1]["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", sent)
    assert response.headers.get_list("x-request-id") == [sent]


@needs_nginx
def test_gateway_answers_problem_details_when_the_coordinator_is_down(tmp_path: Path) -> None:
    port = _free_port()
    conf = _local_conf(tmp_path, _free_port(), port)  # nothing listens upstream
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp_path), "-e", str(tmp_path / "error.log")])  # type: ignore[list-item]
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/api/v1/coordinator/sessions", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.05)
        assert response.status_code == 502
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["code"] == "gateway_upstream_unavailable"
        assert response.headers["x-request-id"]
        other = httpx.get(f"http://127.0.0.1:{port}/elsewhere")
        assert other.status_code == 404
        assert other.json()["status"] == 404
    finally:
        proc.terminate()
        proc.wait(timeout=10)
