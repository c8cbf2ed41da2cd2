"""API keys: who a bearer key belongs to and what it may do. Only SHA-256 hashes of keys are configured.

An entry is ``client_id=sha256hex`` or ``client_id=sha256hex:scope+scope`` (scopes ``research``, the default,
``admin`` and ``service``), several separated by commas (``API_KEYS``) or one per line (``API_KEYS_FILE``,
``#`` comments allowed)::

    >>> key = new_key()
    >>> ring = KeyRing.parse(f"alice={hash_key(key)},ops={hash_key('sr_other')}:admin")
    >>> ring.client_for(key)
    Client(client_id='alice', scopes=frozenset({'research'}), acting_for=None)
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

SCOPES = ("research", "admin", "service")
DEFAULT_SCOPE = "research"
KEY_PREFIX = "sr_"
CLIENT_ID_PATTERN = re.compile(r"^[A-Za-z0-9._@-]{1,64}$")
_HASH = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Client:
    """An authenticated caller. ``acting_for``: the client a ``service`` caller (the coordinator) calls for."""

    client_id: str
    scopes: frozenset[str]
    acting_for: str | None = None

    @property
    def is_admin(self) -> bool:
        return "admin" in self.scopes

    @property
    def is_service(self) -> bool:
        return "service" in self.scopes

    @property
    def audit_id(self) -> str:
        """Whom a request is for: the client a service calls for, else the caller itself."""
        return self.acting_for or self.client_id


LOCAL_CLIENT = Client("local", frozenset({"research", "admin"}))
"""Every caller when ``AUTH_MODE=none``: one trusted local user who sees everything."""


def new_key() -> str:
    """A fresh random key (256 bits), e.g. ``sr_Jx3…``; shown once, only its hash is kept."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class KeyEntry:
    client_id: str
    key_hash: str
    scopes: frozenset[str]

    def line(self) -> str:
        scopes = "+".join(sorted(self.scopes))
        return f"{self.client_id}={self.key_hash}" + ("" if self.scopes == {DEFAULT_SCOPE} else f":{scopes}")


def is_reserved(client_id: str) -> bool:
    """``local`` (any case) is ``LOCAL_CLIENT``, the owner of sessions made without keys: no key may be it."""
    return client_id.lower() == LOCAL_CLIENT.client_id


def parse_entry(text: str) -> KeyEntry:
    """One ``client_id=sha256hex[:scope+scope]``; ``ValueError`` says what is wrong (never echoing a hash)."""
    client_id, sep, rest = text.strip().partition("=")
    if not sep or not CLIENT_ID_PATTERN.match(client_id):
        raise ValueError("each entry must be client_id=sha256hex[:scope+scope] (client_id: letters, digits, ._@-)")
    if is_reserved(client_id):
        raise ValueError(f"the client id {client_id!r} is reserved for sessions made without keys")
    key_hash, _, scope_text = rest.partition(":")
    if not _HASH.match(key_hash.strip().lower()):
        raise ValueError(f"the hash for client {client_id!r} is not 64 hexadecimal digits (SHA-256 of the key)")
    scopes = frozenset(s.strip() for s in scope_text.split("+") if s.strip()) or frozenset({DEFAULT_SCOPE})
    unknown = scopes - set(SCOPES)
    if unknown:
        raise ValueError(f"unknown scope(s) {sorted(unknown)} for client {client_id!r}; scopes: {', '.join(SCOPES)}")
    return KeyEntry(client_id, key_hash.strip().lower(), scopes)


def parse_entries(lines: Iterable[str]) -> list[KeyEntry]:
    return [parse_entry(line) for line in (raw.split("#", 1)[0].strip() for raw in lines) if line]


def read_key_file(path: Path) -> list[KeyEntry]:
    return parse_entries(path.read_text(encoding="utf-8").splitlines()) if path.exists() else []


def read_valid_entries(path: Path) -> tuple[list[KeyEntry], int]:
    """The file's valid entries and how many lines were not one (a service re-reading a file being edited
    keeps serving its valid keys, and stops honouring every key that is no longer in it)."""
    entries, invalid = [], 0
    for line in (raw.split("#", 1)[0].strip() for raw in path.read_text(encoding="utf-8").splitlines()):
        if not line:
            continue
        try:
            entries.append(parse_entry(line))
        except ValueError:
            invalid += 1
    return entries, invalid


class KeyRing:
    """Keys from ``API_KEYS`` and, when given, ``API_KEYS_FILE``, which is read again whenever it changes (a
    key revoked with ``stock-research-keys revoke`` stops working without a restart)."""

    def __init__(self, entries: Iterable[KeyEntry], key_file: Path | None = None) -> None:
        self._fixed = list(entries)
        self._file = key_file
        self._file_stamp: tuple[int, int] | None = None
        self._by_hash: dict[str, KeyEntry] = {}
        self._load(self._fixed + (read_key_file(key_file) if key_file else []))

    @classmethod
    def parse(cls, api_keys: str, key_file: Path | None = None) -> KeyRing:
        return cls(parse_entries(api_keys.split(",")), key_file)

    def __len__(self) -> int:
        self._refresh()
        return len(self._by_hash)

    def client_for(self, key: str) -> Client | None:
        self._refresh()
        entry = self._by_hash.get(hash_key(key))
        return Client(entry.client_id, entry.scopes) if entry is not None else None

    def _load(self, entries: list[KeyEntry]) -> None:
        self._by_hash = {e.key_hash: e for e in entries}
        if self._file is not None:
            self._file_stamp = _stamp(self._file)

    def _refresh(self) -> None:
        if self._file is None or _stamp(self._file) == self._file_stamp:
            return
        try:
            from_file, invalid = read_valid_entries(self._file) if self._file.exists() else ([], 0)
        except OSError:
            return  # a file being replaced: read it again on the next request
        if invalid:
            log.error("api_key_file_has_invalid_lines", file=str(self._file), invalid_lines=invalid)
        self._load(self._fixed + from_file)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
