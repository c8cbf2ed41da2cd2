"""How every service process is started, in the image (deploy/Dockerfile CMD) and by ``make run`` (Procfile): both
through ``python -m service_kit.serve``, which runs uvicorn with the guarded HTTP protocol (408 to a late request
head), no Server header, a connection cap, short keep-alive, and forwarded addresses believed only from
FORWARDED_ALLOW_IPS (never everyone)."""

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
    """The shell command of the image's CMD (``["sh", "-c", "exec python -m service_kit.serve ..."]``)."""
    (cmd,) = [
        line[len("CMD ") :] for line in DOCKERFILE.read_text(encoding="utf-8").splitlines() if line.startswith("CMD ")
    ]
    shell, flag, command = json.loads(cmd)
    assert (shell, flag) == ("sh", "-c")
    return str(command)


def _procfile_commands() -> dict[str, str]:
    """Each Procfile process's command, by name."""
    lines = [line for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line[:1].isalpha()]
    return {name: command for name, _, command in (line.partition(": ") for line in lines)}


def _served(words: list[str], environ: dict[str, str] | None = None) -> str:
    """The uvicorn command ``python -m service_kit.serve`` runs for ``words`` (what follows ``service_kit.serve``)."""
    from service_kit.serve import SERVICE_PORTS, uvicorn_arguments

    service, rest = words[0], words[1:]
    host = rest[rest.index("--host") + 1] if "--host" in rest else "127.0.0.1"
    port = int(rest[rest.index("--port") + 1]) if "--port" in rest else SERVICE_PORTS[service]
    extra = [w for w in rest if w.startswith("--") and w not in ("--host", "--port")]
    return shlex.join(["uvicorn", *uvicorn_arguments(service, host=host, port=port, extra=extra, environ=environ)])


def _serve_words(command: str) -> list[str]:
    words = shlex.split(command.replace('"${SERVICE}"', "research").replace('"${PORT}"', "8001"))
    start = words.index("service_kit.serve")
    assert words[start - 3 : start] == ["exec", "python", "-m"], command
    return words[start + 1 :]


def test_dockerfile_cmd_runs_the_guarded_server_and_trusts_no_proxy_by_default() -> None:
    command = _image_command()
    assert command.startswith('exec python -m service_kit.serve "${SERVICE}" --host 0.0.0.0 --port "${PORT}"')
    served = _served(_serve_words(command), {"MAX_CONNECTIONS": "300"})
    for flag in SERVER_FLAGS:
        assert flag.replace('"${MAX_CONNECTIONS:-512}"', "300") in served, flag
    assert "--proxy-headers" in shlex.split(served)
    assert "--no-proxy-headers" not in served
    # uvicorn reads FORWARDED_ALLOW_IPS from the environment (default 127.0.0.1): never trust everyone
    assert "forwarded-allow-ips" not in command + served
    assert "'*'" not in command


def test_procfile_runs_the_same_server_without_proxy_headers() -> None:
    for name, command in _procfile_commands().items():
        served = _served(_serve_words(command), {})
        for flag in SERVER_FLAGS:
            assert flag.replace('"${MAX_CONNECTIONS:-512}"', "512") in served, f"Procfile {name}: {flag}"
        assert "--proxy-headers" not in shlex.split(served)
        assert "--no-proxy-headers" in served  # uvicorn's default believes X-Forwarded-For from 127.0.0.1
        assert "forwarded-allow-ips" not in command


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

    commands = _procfile_commands()
    assert set(commands) == set(SERVICE_APPS)
    for name, command in commands.items():
        words = shlex.split(_served(_serve_words(command), {}))
        assert words[1:3] == ["--factory", SERVICE_APPS[name]]
        for option, value in zip(UVICORN_OPTIONS, (*UVICORN_OPTIONS[1:], ""), strict=True):
            assert option in words, f"Procfile {name}: {option}"
            if option.startswith("--") and not value.startswith("--") and value:
                assert words[words.index(option) + 1] == value, f"Procfile {name}: {option} {value}"
