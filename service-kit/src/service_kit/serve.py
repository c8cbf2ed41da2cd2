"""Start one service the way every deployment starts it:

    python -m service_kit.serve <service> [--host H] [--port N] [--print] [uvicorn options ...]

runs uvicorn on ``<service>.main:create_app`` with the server options of ``UVICORN_OPTIONS``: the guarded HTTP
protocol (request-head size, header-line and read-time limits: ``service_kit.server``), no ``server`` header,
``--limit-concurrency`` of ``MAX_CONNECTIONS`` (default 512), idle keep-alive closed after 5 s and no forwarded
header believed. The Procfile (``make run``), the image's CMD (deploy/Dockerfile) and ``make serve`` all call it.

``<service>`` is coordinator, research, debate or judge; ``--port`` defaults to its port of the local stack (8000
to 8003), ``--host`` to 127.0.0.1. Other uvicorn options are passed on after these; ``--proxy-headers`` (the image,
behind its gateway) replaces ``--no-proxy-headers``. ``--print`` prints the uvicorn command and starts nothing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence

from uvicorn.main import main as uvicorn_main

from service_kit.server import UVICORN_OPTIONS

SERVICE_PORTS = {"coordinator": 8000, "research": 8001, "debate": 8002, "judge": 8003}
"""Each service's port on one machine (``make run``, the README); the image takes its own from ``PORT``."""
PROXY_OPTIONS = ("--proxy-headers", "--no-proxy-headers")


def uvicorn_arguments(
    service: str, *, host: str, port: int, extra: Sequence[str] = (), environ: dict[str, str] | None = None
) -> list[str]:
    """uvicorn's arguments (without the program name) for ``service``: its factory, the address, the options of
    ``UVICORN_OPTIONS`` with ``MAX_CONNECTIONS`` as the concurrency limit, then ``extra``; a proxy option in
    ``extra`` replaces the default one."""
    environ = dict(os.environ) if environ is None else environ
    options = list(UVICORN_OPTIONS)
    limit = options.index("--limit-concurrency") + 1
    options[limit] = str(_positive(environ.get("MAX_CONNECTIONS", "").strip() or options[limit], "MAX_CONNECTIONS"))
    if any(option in PROXY_OPTIONS for option in extra):
        options = [option for option in options if option not in PROXY_OPTIONS]
    return ["--factory", f"{service}.main:create_app", "--host", host, "--port", str(port), *options, *extra]


def _positive(value: str, name: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"{name} must be a whole number above 0, got {value!r}")
    return int(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, then print the uvicorn command (``--print``) or run uvicorn in this process."""
    parser = argparse.ArgumentParser(
        prog="python -m service_kit.serve",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("service", choices=sorted(SERVICE_PORTS))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", default=None, help="default: the service's port of the local stack (8000-8003)")
    parser.add_argument("--print", action="store_true", help="print the uvicorn command instead of running it")
    args, extra = parser.parse_known_args(argv)
    port = SERVICE_PORTS[args.service] if args.port in (None, "") else _positive(str(args.port), "--port")
    arguments = uvicorn_arguments(args.service, host=args.host, port=port, extra=extra)
    if args.print:
        print(shlex.join(["uvicorn", *arguments]))
        return 0
    return int(uvicorn_main.main(args=arguments, prog_name="uvicorn", standalone_mode=True) or 0)


if __name__ == "__main__":
    sys.exit(main())
