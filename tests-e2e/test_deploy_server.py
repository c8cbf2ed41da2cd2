"""How every service process is started, in the image (deploy/Dockerfile CMD) and by ``make run`` (Procfile):
uvicorn with the guarded HTTP protocol (408 to a late request head), no Server header, a connection cap, short
keep-alive, and forwarded addresses believed only from FORWARDED_ALLOW_IPS (never everyone)."""

from __future__ import annotations

import json
import shlex

from deploy_manifests import ROOT

DOCKERFILE = ROOT / "deploy" / "Dockerfile"


# What every service process is started with (docs/running.md "Limits and timeouts"): the guarded protocol
# (408 to a late request head), no Server header, a connection cap, short keep-alive.
SERVER_FLAGS = (
    "--http service_kit.server:GuardedHttpProtocol",
    "--no-server-header",
    '--limit-concurrency "${MAX_CONNECTIONS:-512}"',
    "--timeout-keep-alive 5",
)


def _image_command() -> str:
    """The shell command of the image's CMD (``["sh", "-c", "exec uvicorn ..."]``)."""
    (cmd,) = [
        line[len("CMD ") :] for line in DOCKERFILE.read_text(encoding="utf-8").splitlines() if line.startswith("CMD ")
    ]
    shell, flag, command = json.loads(cmd)
    assert (shell, flag) == ("sh", "-c")
    return str(command)


def test_dockerfile_cmd_runs_the_guarded_server_and_trusts_no_proxy_by_default() -> None:
    command = _image_command()
    for flag in SERVER_FLAGS:
        assert flag in command, flag
    assert "--proxy-headers" in command
    # uvicorn reads FORWARDED_ALLOW_IPS from the environment (default 127.0.0.1): never trust everyone
    assert "forwarded-allow-ips" not in command
    assert "'*'" not in command
    words = shlex.split(command)
    assert words[:3] == ["exec", "uvicorn", "--factory"]


def test_procfile_runs_the_same_server_without_proxy_headers() -> None:
    for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or ":" not in line:
            continue
        for flag in SERVER_FLAGS:
            assert flag in line, f"Procfile {line.split(':')[0]}: {flag}"
        assert "--proxy-headers" not in line
        assert "--no-proxy-headers" in line  # uvicorn's default believes X-Forwarded-For from 127.0.0.1
        assert "forwarded-allow-ips" not in line


def test_the_python_launchers_believe_no_forwarded_header() -> None:
    from service_kit.server import UVICORN_OPTIONS

    assert "--no-proxy-headers" in UVICORN_OPTIONS
    assert "--proxy-headers" not in UVICORN_OPTIONS


def test_the_server_protocol_the_commands_name_exists() -> None:
    import importlib

    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    module, _, name = SERVER_FLAGS[0].split()[1].partition(":")
    protocol = getattr(importlib.import_module(module), name)
    assert issubclass(protocol, HttpToolsProtocol)


def test_the_procfile_runs_the_launchers_apps_with_its_options() -> None:
    """``make run`` (Procfile) and the Python launcher (``service_kit.stack.launcher``) start the same processes."""
    from service_kit.server import UVICORN_OPTIONS
    from service_kit.stack.launcher import SERVICE_APPS

    lines = [line for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line[:1].isalpha()]
    assert {line.split(":", 1)[0] for line in lines} == set(SERVICE_APPS)
    for line in lines:
        name, _, command = line.partition(": ")
        words = shlex.split(command.replace('"${MAX_CONNECTIONS:-512}"', "512"))
        start = words.index("uvicorn")
        assert words[start + 1 : start + 3] == ["--factory", SERVICE_APPS[name]]
        for option, value in zip(UVICORN_OPTIONS, (*UVICORN_OPTIONS[1:], ""), strict=True):
            assert option in words, f"Procfile {name}: {option}"
            if option.startswith("--") and not value.startswith("--") and value:
                assert words[words.index(option) + 1] == value, f"Procfile {name}: {option} {value}"
