"""Serves the console's static files at ``/console/`` with their own Content-Security-Policy: scripts, styles,
images and connections from this origin only, no inline script or style, nothing framed. ``/console`` redirects
to ``/console/``; the answers are revalidated (``no-cache``) so a new coordinator's files are seen at once."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Message, Receive, Scope, Send

STATIC_DIR = Path(__file__).resolve().parent / "static"
CONSOLE_PATH = "/console"
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class ConsoleFiles(StaticFiles):
    """``StaticFiles`` (index.html for the folder) whose answers carry the console's security headers."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
                    (b"cache-control", b"no-cache"),
                    (b"referrer-policy", b"no-referrer"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await super().__call__(scope, receive, send_with_headers)


def mount_console(app: FastAPI) -> None:
    """``/console/`` (the files) and ``/console`` (a redirect to it), outside the API document."""

    @app.get(CONSOLE_PATH, include_in_schema=False)
    async def console_root() -> RedirectResponse:
        return RedirectResponse(CONSOLE_PATH + "/", status_code=308)

    app.mount(CONSOLE_PATH + "/", ConsoleFiles(directory=STATIC_DIR, html=True), name="console")
