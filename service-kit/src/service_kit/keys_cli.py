"""``stock-research-keys``: create, revoke and list API keys. A key is printed once; only its hash is stored.

    stock-research-keys create alice                          # scope research
    stock-research-keys create ops --scope admin
    stock-research-keys create coordinator --scope service    # the coordinator's SERVICE_API_KEY
    stock-research-keys revoke alice
    stock-research-keys list

With ``--file`` (default ``API_KEYS_FILE``) the entry is written to that file, which the services re-read when
it changes (a revoked key stops working without a restart); without one, the ``client_id=hash`` entry is
printed for ``API_KEYS`` (e.g. a Kubernetes Secret)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from service_kit.api_keys import (
    CLIENT_ID_PATTERN,
    DEFAULT_SCOPE,
    SCOPES,
    KeyEntry,
    hash_key,
    is_reserved,
    new_key,
    read_key_file,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stock-research-keys", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--file",
        type=Path,
        default=Path(os.environ["API_KEYS_FILE"]) if os.environ.get("API_KEYS_FILE") else None,
        help="the key file the services read (API_KEYS_FILE); default: $API_KEYS_FILE",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="create a key for a client and print it once")
    create.add_argument("client_id")
    create.add_argument("--scope", action="append", choices=SCOPES, help=f"repeatable; default {DEFAULT_SCOPE}")
    revoke = commands.add_parser("revoke", help="remove every key of a client from the file")
    revoke.add_argument("client_id")
    commands.add_parser("list", help="the clients in the file and their scopes")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    key_file: Path | None = args.file
    try:
        if args.command == "create":
            return _create(args.client_id, frozenset(args.scope or [DEFAULT_SCOPE]), key_file)
        if key_file is None:
            print("revoke and list work on a key file: give --file or set API_KEYS_FILE", file=sys.stderr)
            return 2
        entries = read_key_file(key_file)
        if args.command == "revoke":
            kept = [e for e in entries if e.client_id != args.client_id]
            if len(kept) == len(entries):
                print(f"no key for client {args.client_id!r} in {key_file}", file=sys.stderr)
                return 1
            _write(key_file, kept)
            print(f"revoked {len(entries) - len(kept)} key(s) of {args.client_id}")
            return 0
        for entry in entries:
            print(f"{entry.client_id}\t{'+'.join(sorted(entry.scopes))}")
        return 0
    except (OSError, ValueError) as exc:
        print(f"stock-research-keys: {exc}", file=sys.stderr)
        return 1


def _create(client_id: str, scopes: frozenset[str], key_file: Path | None) -> int:
    if not CLIENT_ID_PATTERN.match(client_id):
        print("client_id: 1-64 letters, digits or ._@-", file=sys.stderr)
        return 2
    if is_reserved(client_id):
        print(f"client_id {client_id!r} is reserved (the owner of sessions made without keys)", file=sys.stderr)
        return 2
    key = new_key()
    entry = KeyEntry(client_id, hash_key(key), scopes)
    if key_file is not None:
        _write(key_file, [*read_key_file(key_file), entry])
        print(f"added {client_id} to {key_file}", file=sys.stderr)
    else:
        print(f"API_KEYS entry (add it, comma-separated): {entry.line()}", file=sys.stderr)
    print("the key, shown only now:", file=sys.stderr)
    print(key)
    return 0


def _write(path: Path, entries: list[KeyEntry]) -> None:
    """Replace the file atomically, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(path.name + ".tmp")
    fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("# client_id=sha256(key)[:scopes] — managed by stock-research-keys\n")
        out.writelines(entry.line() + "\n" for entry in entries)
    os.replace(staged, path)


if __name__ == "__main__":
    raise SystemExit(main())
