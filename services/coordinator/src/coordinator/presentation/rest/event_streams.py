"""What the event streams (a session's, a batch's) share: the position a reconnecting client resumes from
(``Last-Event-ID``: up to 18 ASCII digits, else 400 ``invalid_request``) and the answer to a client that has already
seen the terminal event (``204 No Content``: the signal that makes a browser's ``EventSource`` stop reconnecting).

Example::

    async def resumed(session: ..., seen: LastEventIdDep) -> ResearchSession:
        if seen is not None and session.finished and seen >= session.last_event_seq:
            raise StreamEnded
        return session
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.responses import Response

MAX_EVENT_ID_DIGITS = 18
"""Event numbers fit a signed 64-bit integer; a longer ``Last-Event-ID`` is no event of ours."""
EVENT_ID_PATTERN = rf"^ *[0-9]{{0,{MAX_EVENT_ID_DIGITS}}} *$"

ENDED_RESPONSE: dict[int | str, dict[str, str]] = {
    204: {"description": "The `Last-Event-ID` is at or past the terminal event: nothing more will come."}
}


class StreamEnded(Exception):
    """The client has seen the stream's terminal event: answered ``204 No Content``."""


async def last_event_id(
    last_event_id: Annotated[
        str,
        Header(
            description="Resume after this event (what an EventSource sends on reconnection): a number of at most "
            f"{MAX_EVENT_ID_DIGITS} digits, else 400. At or past the terminal event: 204 No Content.",
            pattern=EVENT_ID_PATTERN,
        ),
    ] = "",
) -> int | None:
    """The event number a reconnecting client last received; None when it sent none (or an empty one). Anything
    else than ASCII digits is refused by the pattern (400 ``invalid_request``) before it is read."""
    return int(last_event_id) if last_event_id.strip() else None


LastEventIdDep = Annotated[int | None, Depends(last_event_id)]


async def stream_ended_response(request: Request, exc: Exception) -> Response:
    """``StreamEnded`` → 204, no body."""
    return Response(status_code=204)
