"""How much of a client's input an error message shows: at most ``ECHO_LIMIT`` characters of any value.

``echo(value)`` is the ``repr`` to put in a message (``f"{echo(raw)} is not a symbol"``): a longer string is cut and
says how long it was. ``bounded_echoes(text)`` is the backstop every problem detail goes through (service-kit's
``problem_members``): a run of more than ``ECHO_LIMIT`` characters without a space — a value some message quoted
whole — is cut the same way.

Example::

    echo("A" * 900_000)  # "'AAAA…AAAA'… (900,000 characters)", 200 of them shown
"""

from __future__ import annotations

import re

ECHO_LIMIT = 200
_LONG_RUN = re.compile(rf"\S{{{ECHO_LIMIT + 1},}}")


def echo(value: object, limit: int = ECHO_LIMIT) -> str:
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    shown = repr(value)
    return shown if len(shown) <= limit else f"{shown[:limit]}… ({len(shown):,} characters)"


def bounded_echoes(text: str) -> str:
    if len(text) <= ECHO_LIMIT:
        return text
    return _LONG_RUN.sub(lambda m: f"{m.group()[:ECHO_LIMIT]}… ({len(m.group()):,} characters)", text)
