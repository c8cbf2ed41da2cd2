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

from coordinator.presentation.console.site import CONTENT_SECURITY_POLICY as CONSOLE_POLICY

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


def test_the_event_stream_is_streamed_unbuffered_with_a_long_read_timeout_of_its_own() -> None:
    blocks = _blocks(_conf())
    events = blocks["~ ^/api/v1/coordinator/sessions/[^/]+/events$"]
    assert "proxy_buffering off;" in events
    assert "proxy_cache off;" in events
    timeout = _duration_seconds(re.search(r"proxy_read_timeout (\S+);", events).group(1))  # type: ignore[union-attr]
    api = _duration_seconds(re.search(r"proxy_read_timeout (\S+);", blocks["/api/v1/coordinator/"]).group(1))  # type: ignore[union-attr]
    assert timeout >= 3600 > api  # long for the stream alone
    assert 'proxy_set_header X-Client-Id "";' in events


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


def _blocks(conf: str) -> dict[str, str]:
    """Each ``location`` of the server: its name (``= /healthz``, ``/api/v1/coordinator/``, ``@rate_limited``)
    -> its body (locations here are not nested)."""
    return {m.group(1).strip(): m.group(2) for m in re.finditer(r"\n\s*location\s+([^{]+)\{(.*?)\n\s*\}", conf, re.S)}


def _problems(conf: str) -> dict[int, tuple[str, dict[str, Any]]]:
    """Status -> (location, parsed body) of every problem the gateway answers itself."""
    found = {}
    for name, body in _blocks(conf).items():
        match = re.search(r"return (\d{3}) '([^']*)';", body)
        if match and "application/problem+json" in body:
            found[int(match.group(1))] = (name, json.loads(match.group(2)))
    return found


def test_requests_and_connections_are_limited_per_client_address() -> None:
    conf = _conf()
    zone = re.search(r"limit_req_zone\s+\$binary_remote_addr\s+zone=(\w+):\d+m\s+rate=(\d+)r/s;", conf)
    assert zone is not None
    assert int(zone.group(2)) == 10
    burst = re.search(rf"limit_req zone={zone.group(1)} burst=(\d+) nodelay;", conf)
    assert burst is not None
    assert 10 <= int(burst.group(1)) <= 50
    conn_zone = re.search(r"limit_conn_zone\s+\$binary_remote_addr\s+zone=(\w+):\d+m;", conf)
    assert conn_zone is not None
    assert re.search(rf"limit_conn {conn_zone.group(1)} 20;", conf)
    assert "limit_req_status 429;" in conf
    assert "limit_conn_status 429;" in conf
    # at server level, so every location (the API, readiness, the 404 catch-all) is limited
    server = conf[conf.index("server {") :]
    assert server.index("limit_req zone=") < server.index("location")


def test_a_refused_request_is_a_429_problem_with_retry_after() -> None:
    conf = _conf()
    assert "error_page 429 = @rate_limited;" in conf
    name, problem = _problems(conf)[429]
    assert name == "@rate_limited"
    assert problem["status"] == 429
    assert problem["code"] == "rate_limited"
    assert problem["title"] == "Too Many Requests"
    assert re.search(r"add_header Retry-After 1 always;", _blocks(conf)["@rate_limited"])


def test_every_problem_the_gateway_answers_is_rfc9457_json() -> None:
    problems = _problems(_conf())
    assert {404, 413, 429, 502, 504} <= set(problems)
    for status, (name, problem) in problems.items():
        assert problem["status"] == status, name
        assert {"type", "title", "status", "detail", "code"} <= set(problem), name
    assert problems[413][1]["code"] == "request_too_large"  # the services' code for the same refusal


def test_slow_clients_are_cut_off() -> None:
    conf = _conf()
    http_level = conf[: conf.index("upstream coordinator {")]  # the upstream has its own keepalive_timeout
    expected = {
        "client_header_timeout": 10,
        "client_body_timeout": 30,
        "send_timeout": 30,
        "keepalive_timeout": 15,
    }
    for directive, seconds in expected.items():
        values = re.findall(rf"^\s*{directive} (\S+);", http_level, re.M)
        assert [_duration_seconds(v) for v in values] == [seconds], directive
    assert "client_max_body_size 1m;" in conf


def test_idle_upstream_connections_close_before_the_services_close_them() -> None:
    conf = _conf()
    upstream = conf[conf.index("upstream coordinator {") :]
    upstream = upstream[: upstream.index("}")]
    gateway_idle = _duration_seconds(re.search(r"keepalive_timeout (\S+);", upstream).group(1))  # type: ignore[union-attr]
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    service_idle = int(re.search(r"--timeout-keep-alive (\d+)", dockerfile).group(1))  # type: ignore[union-attr]
    assert gateway_idle < service_idle


def test_forwarded_headers_are_set_from_the_peer_address_never_appended() -> None:
    conf = _conf()
    assert "$proxy_add_x_forwarded_for" not in conf
    for name, body in _blocks(conf).items():
        if "proxy_pass" not in body:
            continue
        assert "proxy_set_header X-Forwarded-For $remote_addr;" in body, name
        assert "proxy_set_header X-Real-IP $remote_addr;" in body, name
        assert 'proxy_set_header Forwarded "";' in body, name
        assert 'proxy_set_header X-Client-Id "";' in body, name  # only a service key names a client
        assert "Authorization" not in re.sub(r"#.*", "", body), f"{name}: the API key must pass through"


def test_every_answer_carries_the_security_headers() -> None:
    conf = _conf()
    assert "server_tokens off;" in conf
    for name, body in _blocks(conf).items():
        assert "add_header X-Content-Type-Options nosniff always;" in body, name
        assert "add_header X-Frame-Options DENY always;" in body, name
        assert "add_header Cache-Control no-store always;" in body, name
        if "proxy_pass" in body:  # the coordinator's own copies are replaced, not doubled
            for header in ("X-Content-Type-Options", "X-Frame-Options", "Cache-Control"):
                assert f"proxy_hide_header {header};" in body, f"{name}: {header}"
    api = _blocks(conf)["/api/v1/coordinator/"]
    assert "add_header Content-Security-Policy \"default-src 'none'; frame-ancestors 'none'\" always;" in api


def test_the_console_is_routed_to_the_coordinator_with_the_coordinators_own_policy() -> None:
    console = _blocks(_conf())["/console"]
    assert "proxy_pass http://coordinator;" in console  # the path unchanged: /console/... on the coordinator
    assert "proxy_hide_header Content-Security-Policy;" in console
    assert f'add_header Content-Security-Policy "{CONSOLE_POLICY}" always;' in console


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
        if self.path.endswith("/with-headers"):  # a coordinator answer with its own security headers
            _Coordinator.seen.append({k.lower(): v for k, v in self.headers.items()} | {"path": self.path})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(b"{}")
            return
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


@needs_nginx
def test_gateway_answers_429_problems_to_an_address_that_floods_it(gateway: tuple[str, Path]) -> None:
    url, _log = gateway
    with httpx.Client(timeout=5) as client:
        answers = [client.get(f"{url}/api/v1/coordinator/sessions") for _ in range(60)]
    statuses = [a.status_code for a in answers]
    assert statuses[:20] == [200] * 20  # the burst passes undelayed
    refused = [a for a in answers if a.status_code == 429]
    assert refused, statuses
    assert set(statuses) == {200, 429}
    answer = refused[0]
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.headers["retry-after"] == "1"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["x-request-id"]
    assert answer.json() == {
        "type": "about:blank",
        "title": "Too Many Requests",
        "status": 429,
        "detail": "Too many requests or connections from this address; retry later.",
        "code": "rate_limited",
    }
    assert len(_Coordinator.seen) == statuses.count(200), "a refused request reached the coordinator"


@needs_nginx
def test_gateway_overwrites_forwarded_headers_and_passes_the_api_key(gateway: tuple[str, Path]) -> None:
    url, _log = gateway
    response = httpx.get(
        f"{url}/api/v1/coordinator/sessions",
        headers={
            "Authorization": "Bearer sr_client-key",
            "X-Forwarded-For": "203.0.113.9",
            "X-Real-IP": "203.0.113.9",
            "Forwarded": "for=203.0.113.9",
            "X-Client-Id": "someone-else",
        },
    )
    assert response.status_code == 200
    seen = _Coordinator.seen[-1]
    assert seen["x-forwarded-for"] == "127.0.0.1"
    assert seen["x-real-ip"] == "127.0.0.1"
    assert "forwarded" not in seen
    assert "x-client-id" not in seen
    assert seen["authorization"] == "Bearer sr_client-key"


@needs_nginx
def test_gateway_answers_carry_security_headers_once(gateway: tuple[str, Path]) -> None:
    url, _log = gateway
    for path in ("/api/v1/coordinator/with-headers", "/api/v1/coordinator/sessions", "/healthz", "/nowhere"):
        response = httpx.get(f"{url}{path}")
        assert response.headers.get_list("x-content-type-options") == ["nosniff"], path
        assert response.headers.get_list("cache-control") == ["no-store"], path
        assert response.headers.get_list("x-frame-options") == ["DENY"], path
        assert response.headers.get("server") in (None, "nginx"), "no version in the Server header"


@needs_nginx
def test_gateway_refuses_a_large_body_with_a_problem(gateway: tuple[str, Path]) -> None:
    url, _log = gateway
    response = httpx.post(f"{url}/api/v1/coordinator/research", content=b"x" * (1024 * 1024 + 1))
    assert response.status_code == 413
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "request_too_large"
    assert _Coordinator.seen == []


@needs_nginx
def test_gateway_passes_the_console_to_the_coordinator_with_one_policy(gateway: tuple[str, Path]) -> None:
    url, _log = gateway
    response = httpx.get(f"{url}/console/js/app.js")
    assert response.status_code == 200
    assert _Coordinator.seen[-1]["path"] == "/console/js/app.js"
    assert response.headers.get_list("content-security-policy") == [CONSOLE_POLICY]
    assert response.headers.get_list("x-frame-options") == ["DENY"]
