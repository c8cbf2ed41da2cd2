"""What an error or a log line may say: secrets masked (``redact_secrets``), and a connection failure
described without the host or URL its exception message names (``describe_connection_failure``).

``redact_secrets`` masks, with ``[REDACTED]``:

- provider keys in the ``sk-…`` style and our own API keys (``sr_`` and 20+ url-safe base64 characters);
- JSON Web Tokens (``eyJ….….…``);
- the credentials of ``Bearer <token>`` and of an ``Authorization:`` / ``authorization=`` value;
- the value assigned to an ``api_key`` (``api-key``, ``apikey``, ``X-Api-Key``), ``secret_key``, ``access_token``,
  ``password``, ``secret`` or ``credentials`` word, whatever its length (``api_key=…``, ``"api_key": "…"``);
- a long token (16+ hex or base64 characters, letters and digits) within 30 characters after a ``key``,
  ``token``, ``secret`` or ``password`` word (``Incorrect key provided: 9f86d081884c7d65…``);
- the password of a URL's ``user:password@``;
- every secret value the process was configured with, whatever its shape (``remember_secrets``: the LLM key,
  the service key, the database and Redis passwords), as written and URL-encoded.

It runs on every string of every log line and on every problem detail, so it is cheap: a text that holds
none of the words and markers these begin with (``key``, ``token``, ``bearer``, ``sk-``, ``://``, …) is
returned after one search for them (about 1 µs for a short line); each rule runs only when its words are there.
"""

from __future__ import annotations

import errno
import re
import socket
import ssl
from collections.abc import Iterable, Iterator
from urllib.parse import quote, unquote, urlsplit

REDACTED = "[REDACTED]"

_TOKEN = r"a-z0-9+/_-"
"""The characters of a token: hex, base64 and url-safe base64 (padding apart; a bearer token adds ``.=~``)."""
_VALUE_END = r"\s\"'`,;&<>(){}\[\]"
"""Where an assigned value ends: whitespace, a quote, a separator or a bracket."""
_ASSIGNMENT = r"[\"']?\s*[:=]\s*[\"']?"
_KEY_WORDS = ("key", "token", "secret", "passw", "credential")

# (fragments one of which a match holds, pattern in lower case). A pattern's group ``kept`` is kept, the rest
# of its match masked. A rule runs only when one of its fragments is in the text; the rules run in this order
# (an Authorization header's Bearer token is masked with the header, an assigned key before the long-token rule).
_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    # a URL's user:password@ (the user is kept)
    (("://",), r"(?P<kept>://[^\s/:@]{1,128}:)[^\s/@]{1,256}(?=@)"),
    # Authorization: Bearer xyz, "authorization": "Basic xyz" (the scheme goes with the credentials)
    (
        ("authorization",),
        rf"(?P<kept>authorization{_ASSIGNMENT})(?:(?:bearer|basic|token|digest)\s+)?[^{_VALUE_END}]+",
    ),
    # Bearer xyz anywhere else
    (("bearer",), rf"(?P<kept>bearer\s+)[.=~{_TOKEN}]{{4,}}"),
    # api_key=xyz, "api-key": "xyz", X-Api-Key: xyz, password=xyz, client_secret: xyz (whatever its length)
    (
        _KEY_WORDS,
        r"(?P<kept>(?:api[_-]?key|(?:secret|access|private|auth)[_-]?key"
        r"|(?:access|refresh|auth|id|session)[_-]?token|passw(?:or)?d|secret|credential)s?"
        rf"{_ASSIGNMENT})[^{_VALUE_END}]+",
    ),
    # sk-… (OpenAI and compatible providers), sr_… (our own API keys), JWTs
    # (each begins with its first letter, then checks that no token character comes before it)
    (("sk-",), r"s(?<![a-z0-9_-]s)k-[a-z0-9][a-z0-9_-]{7,}"),
    (("sr_",), r"s(?<![a-z0-9_-]s)r_[a-z0-9_-]{20,}"),
    (("eyj",), r"e(?<![a-z0-9_-]e)yj[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}\.[a-z0-9_-]*"),
    # a long token of letters and digits within 30 characters after a key / token / secret / password word
    # (the lookaheads look for a digit and a letter in its first 64 characters)
    (
        _KEY_WORDS,
        r"(?P<kept>(?:key|token|secret|passw(?:or)?d|credential)s?\b[^\n]{0,30}?)"
        rf"(?<![{_TOKEN}])(?=[{_TOKEN}]{{0,64}}?[0-9])(?=[{_TOKEN}]{{0,64}}?[a-z])[{_TOKEN}]{{16,}}={{0,2}}",
    ),
)
_COMPILED = tuple((triggers, re.compile(pattern), re.compile(pattern, re.IGNORECASE)) for triggers, pattern in _RULES)
"""Each pattern twice: matched against the text in lower case (several times faster than a case-insensitive
match), or, when the lower case of the text is not as long (a few non-ASCII letters), against the text
case-insensitively."""
_ANY_TRIGGER = re.compile("|".join(re.escape(t) for t in dict.fromkeys(t for ts, _ in _RULES for t in ts)))


MIN_SECRET_CHARS = 6
"""A configured value shorter than this is not searched for (it would mask ordinary words)."""
_configured: set[str] = set()
_configured_pattern: re.Pattern[str] | None = None


def remember_secrets(values: Iterable[str | None]) -> None:
    """Add the secret values this process holds to what ``redact_secrets`` masks wherever they appear (its
    configuration: one set per process, like its logging). Empty and very short values are ignored."""
    global _configured_pattern
    for value in values:
        if value and len(value.strip()) >= MIN_SECRET_CHARS:
            _configured.update({value, quote(value, safe="")})
    if _configured:
        alternatives = sorted(_configured, key=len, reverse=True)  # the longest first: no partial masking
        _configured_pattern = re.compile("|".join(re.escape(value) for value in alternatives))


def url_password(url: str | None) -> str | None:
    """The password of a URL's ``user:password@`` (a database or Redis URL), decoded; None without one."""
    if not url:
        return None
    try:
        password = urlsplit(url).password
    except ValueError:
        return None
    return unquote(password) if password else None


def redact_secrets(text: str) -> str:
    """``text`` with every key-like substring, and every configured secret, replaced by ``[REDACTED]`` (see
    the module's docstring)."""
    if _configured_pattern is not None:
        text = _configured_pattern.sub(REDACTED, text)
    lowered = text.lower()
    if _ANY_TRIGGER.search(lowered) is None:
        return text
    for triggers, lower_case, any_case in _COMPILED:
        if any(trigger in lowered for trigger in triggers):
            text = _masked(text, lower_case.finditer(lowered) if len(lowered) == len(text) else any_case.finditer(text))
            lowered = text.lower()
    return text


def error_text(exc: BaseException) -> str:
    """An exception as one may store or show it: its message with secrets masked, else its class name."""
    return redact_secrets(str(exc)) or type(exc).__name__


def _masked(text: str, matches: Iterator[re.Match[str]]) -> str:
    pieces: list[str] = []
    done = 0
    for match in matches:
        kept = match.end("kept") if "kept" in match.re.groupindex and match.start("kept") != -1 else match.start()
        pieces += (text[done:kept], REDACTED)
        done = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


_ERRNO_REASONS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ECONNRESET: "connection reset",
    errno.ECONNABORTED: "connection aborted",
    errno.EHOSTUNREACH: "host unreachable",
    errno.ENETUNREACH: "network unreachable",
    errno.ETIMEDOUT: "connection timed out",
    errno.EPIPE: "connection closed",
}


def describe_connection_failure(exc: BaseException) -> str:
    """What went wrong with a connection, e.g. ``connection refused (ConnectionRefusedError)``: a fixed phrase
    for the innermost exception along ``__cause__`` / ``__context__`` that says (refused, reset, DNS, TLS, timed
    out) and its class, else ``connection failed`` and the class of ``exc``. Exception messages are never used:
    an HTTP client's names the host and port (``Cannot connect to host research:8001 …``)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 16 and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    for error in reversed(chain):  # the innermost first: it says most precisely what happened
        reason = _reason_of(error)
        if reason is not None:
            return f"{reason} ({type(error).__name__})"
    return f"connection failed ({type(exc).__name__})"


def _reason_of(error: BaseException) -> str | None:
    if isinstance(error, socket.gaierror):
        return "the host name did not resolve"
    if isinstance(error, ssl.SSLError | ssl.CertificateError):
        return "the TLS handshake failed"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, OSError) and error.errno in _ERRNO_REASONS:
        return _ERRNO_REASONS[error.errno]
    if "Disconnected" in type(error).__name__:  # aiohttp's ServerDisconnectedError
        return "the server closed the connection"
    return None
