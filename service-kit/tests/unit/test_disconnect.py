"""``CancelOnDisconnectMiddleware`` in plain ASGI: a disconnect before the answer cancels the handler (and is
answered 499 for the metrics); one after the answer has started is only passed on; a request whose client stays
reads its body and gets its answer as before."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from starlette.types import Message, Receive, Scope, Send

from service_kit.disconnect import CLIENT_CLOSED_REQUEST, CancelOnDisconnectMiddleware

SCOPE: Scope = {"type": "http", "method": "POST", "path": "/work", "headers": []}
BODY: Message = {"type": "http.request", "body": b'{"symbol": "600519.SH"}', "more_body": False}


class Client:
    """The server's side of one exchange: ``receive`` answers the body, then waits until ``hang_up()``."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self._incoming: asyncio.Queue[Message] = asyncio.Queue()
        self._incoming.put_nowait(BODY)

    def hang_up(self) -> None:
        self._incoming.put_nowait({"type": "http.disconnect"})

    async def receive(self) -> Message:
        return await self._incoming.get()

    async def send(self, message: Message) -> None:
        self.sent.append(message)

    @property
    def status(self) -> int | None:
        return next((m["status"] for m in self.sent if m["type"] == "http.response.start"), None)


async def _serve(app: Callable[[Scope, Receive, Send], Awaitable[None]], client: Client) -> asyncio.Task[None]:
    return asyncio.create_task(CancelOnDisconnectMiddleware(app)(SCOPE, client.receive, client.send))


async def test_a_client_that_hangs_up_before_the_answer_cancels_the_handler() -> None:
    steps: list[str] = []
    calling = asyncio.Event()

    async def handler(scope: Scope, receive: Receive, send: Send) -> None:
        assert await receive() == BODY
        steps.append("model call started")
        calling.set()
        try:
            await asyncio.Event().wait()  # a model call that has not answered
        except asyncio.CancelledError:
            steps.append("model call cancelled")
            raise
        steps.append("answered")

    client = Client()
    served = await _serve(handler, client)
    await asyncio.wait_for(calling.wait(), 5)

    client.hang_up()
    await asyncio.wait_for(served, 5)

    assert steps == ["model call started", "model call cancelled"]
    assert client.status == CLIENT_CLOSED_REQUEST  # recorded as the client's doing; the server drops it
    assert not served.cancelled()  # the middleware ends the request normally: nothing propagates


async def test_a_hang_up_after_the_answer_started_is_passed_on_not_cancelled() -> None:
    heard: list[Message] = []
    streaming_started = asyncio.Event()

    async def streaming(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"first", "more_body": True})
        streaming_started.set()
        heard.append(await receive())  # a stream listens for the disconnect itself
        heard.append(await receive())  # and keeps hearing it
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    client = Client()
    served = await _serve(streaming, client)
    await asyncio.wait_for(streaming_started.wait(), 5)

    client.hang_up()
    await asyncio.wait_for(served, 5)

    assert heard == [{"type": "http.disconnect"}] * 2
    assert [m.get("status") for m in client.sent if m["type"] == "http.response.start"] == [200]


async def test_a_client_that_stays_gets_its_answer_and_its_body_unchanged() -> None:
    async def echo(scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": message["body"]})

    client = Client()
    served = await _serve(echo, client)
    await asyncio.wait_for(served, 5)

    assert client.status == 201
    assert client.sent[-1]["body"] == BODY["body"]


async def test_a_cancel_from_elsewhere_still_propagates() -> None:
    """The server stopping the request (shutdown) is not mistaken for the client going away."""

    async def handler(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await asyncio.Event().wait()

    client = Client()
    served = await _serve(handler, client)
    await asyncio.sleep(0.05)

    served.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await served
    assert served.cancelled()
    assert client.sent == []


async def test_reads_and_other_scopes_pass_through() -> None:
    seen: list[tuple[str, bool]] = []
    client = Client()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append((scope["type"], receive == client.receive))

    await CancelOnDisconnectMiddleware(app)({"type": "lifespan"}, client.receive, client.send)
    await CancelOnDisconnectMiddleware(app)({**SCOPE, "method": "GET"}, client.receive, client.send)

    assert seen == [("lifespan", True), ("http", True)]
