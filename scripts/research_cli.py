"""Post a research to the running coordinator and print a readable summary; list and retry sessions.

    make research SYMBOL=600519.SH [EXPERTS=technical_analyst,valuation_modeler]
    make cli ARGS="600519.SH --skip-debate"
    make cli ARGS="--sessions [600519.SH] [--status partial]"
    make cli ARGS="--retry SESSION_ID"

(``make cli ARGS=...`` is ``uv run python scripts/research_cli.py ...`` on the uv make installed if needed.)

When the debate or the verdict is missing, the session's record says why (GET /sessions/{id}); the
summary shows it.

COORDINATOR_URL (default http://127.0.0.1:8000) points it at another coordinator, e.g. the compose gateway
http://127.0.0.1:8080. Exit code: 0 completed/partial, 1 failed or refused, 2 coordinator unreachable.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
from collections.abc import Mapping
from typing import Any

import httpx

from shared_contracts.experts import ExpertType
from shared_contracts.projection import ProjectionError, summarize_expert_result

DEFAULT_URL = os.environ.get("COORDINATOR_URL", "http://127.0.0.1:8000")
WIDTH = 100


def _short(text: Any, limit: int = 160) -> str:
    return textwrap.shorten(" ".join(str(text or "").split()), width=limit, placeholder=" ...")


def _indent(text: Any, limit: int = 400) -> str:
    return textwrap.fill(_short(text, limit), width=WIDTH, initial_indent="    ", subsequent_indent="    ")


def _level(level: Any) -> str:
    if not isinstance(level, Mapping):
        return "-"
    pct = level.get("percent_from_entry")
    price = level.get("price")
    text = f"{pct:+.1f}%" if isinstance(pct, int | float) else "?"
    if isinstance(price, int | float):
        text += f" (at {price:.2f})"
    return text + (f"  {_short(level.get('basis'), 80)}" if level.get("basis") else "")


def _engine(block: Mapping[str, Any]) -> str:
    engine = block.get("engine")
    if not isinstance(engine, Mapping):
        return ""
    text = str(engine.get("kind", "?")) + (f" {engine['model']}" if engine.get("model") else "")
    if engine.get("fallback_reason"):
        text += f", FELL BACK: {engine['fallback_reason']}"
    return f"[engine: {text}]"


def format_summary(body: Mapping[str, Any], stages: Mapping[str, Any] | None = None) -> str:
    """The coordinator's research response as a few readable lines; ``stages`` (the stored session's
    ``debate`` and ``judge`` records) says why a missing debate or verdict is missing."""
    lines = [
        f"Research {body.get('symbol', '?')}: {str(body.get('overall_status', '?')).upper()}"
        f"   session {body.get('session_id', '?')}   retry_count {body.get('retry_count', 0)}",
        "",
        "Experts",
    ]
    experts = body.get("expert_results") or {}
    for name, envelope in experts.items():
        envelope = envelope if isinstance(envelope, Mapping) else {}
        if envelope.get("status") != "success":
            lines.append(f"  FAILED  {name}")
            lines.append(_indent(envelope.get("error"), 600))  # the whole reason: it may list what exists
            continue
        try:
            summary = summarize_expert_result(name, envelope)
        except ProjectionError as exc:
            lines.append(f"  ok      {name:<20} (unreadable summary: {exc})")
            continue
        if summary is None:
            lines.append(f"  ok      {name:<20} (no data)")
            continue
        data = envelope.get("data") or {}
        lines.append(f"  ok      {name:<20} {summary.signal:<10} confidence {summary.confidence:.2f}  {_engine(data)}")
        lines.append(_indent(summary.reasoning, 220))

    debate = body.get("debate_outcome")
    lines.append("")
    if isinstance(debate, Mapping):
        lines.append(
            f"Debate   {debate.get('direction', '?')}  confidence {float(debate.get('confidence', 0)):.2f}  "
            f"{_engine(debate)}"
        )
        lines.append(_indent(debate.get("conflict_resolution"), 300))
    else:
        lines.append(f"Debate   ({_why_missing(stages, 'debate', 'skipped, or too few experts succeeded')})")

    verdict = body.get("verdict")
    lines.append("")
    if isinstance(verdict, Mapping):
        lines.append(
            f"Verdict  {verdict.get('action', '?')}  position {float(verdict.get('position_percent', 0)):.1f}%  "
            f"confidence {float(verdict.get('confidence', 0)):.2f}  horizon {verdict.get('time_horizon', '?')}  "
            f"{_engine(verdict)}"
        )
        lines.append(f"  stop loss    {_level(verdict.get('stop_loss'))}")
        lines.append(f"  take profit  {_level(verdict.get('take_profit'))}")
        if verdict.get("entry_strategy"):
            lines.append(f"  entry        {_short(verdict['entry_strategy'], 200)}")
        lines.append(_indent(verdict.get("reasoning"), 400))
        for warning in (verdict.get("risk_warnings") or [])[:5]:
            lines.append(f"  ! {_short(warning, 150)}")
    else:
        lines.append(f"Verdict  ({_why_missing(stages, 'judge', 'none')})")
    return "\n".join(lines)


def _why_missing(stages: Mapping[str, Any] | None, stage: str, otherwise: str) -> str:
    record = (stages or {}).get(stage)
    if not isinstance(record, Mapping) or record.get("status") in (None, "success"):
        return otherwise
    if record.get("error"):
        return f"{record['status']}: {_short(record['error'], 400)}"
    return str(record["status"])


def format_sessions(page: Mapping[str, Any]) -> str:
    items = page.get("items") or []
    lines = [f"{len(items)} of {page.get('total', len(items))} sessions, newest first"]
    for item in items:
        retried = f"  retry of {item['retried_from']}" if item.get("retried_from") else ""
        if item.get("stages_to_retry"):
            retried += f"  to retry: {', '.join(item['stages_to_retry'])}"
        elif item.get("retried_by"):
            retried += f"  retried by {item['retried_by']}"
        lines.append(
            f"  {str(item.get('created_at', '?'))[:19]}  {item.get('session_id', '?')}  {item.get('symbol', '?'):<10} "
            f"{item.get('status', '?'):<11} retries {item.get('retry_count', 0)}{retried}"
        )
    return "\n".join(lines)


def format_problem(status: int, body: Any) -> str:
    if isinstance(body, Mapping):
        code = f" [{body['code']}]" if body.get("code") else ""
        return f"{status} {body.get('title', '')}{code}: {body.get('detail', '')}".strip()
    return f"{status}: {_short(body, 500)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("symbol", nargs="?", help="e.g. 600519.SH, 000001.SZ, AAPL (with --sessions: a filter)")
    parser.add_argument(
        "--experts",
        default=",".join(e.value for e in ExpertType),
        help="expert names separated by commas or spaces (default: all five)",
    )
    parser.add_argument("--skip-debate", action="store_true", help="experts only: no debate, no verdict")
    parser.add_argument("--retry", metavar="SESSION_ID", help="retry a session: re-run only what failed")
    parser.add_argument("--sessions", action="store_true", help="list the latest sessions instead")
    parser.add_argument("--status", help="with --sessions: only sessions of this status (e.g. partial)")
    parser.add_argument("--limit", type=int, default=20, help="with --sessions: how many (default 20)")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"coordinator base URL (default {DEFAULT_URL})")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the answer")
    parser.add_argument("--json", action="store_true", help="print the full JSON response instead")
    args = parser.parse_args(argv)
    api = f"{args.url.rstrip('/')}/api/v1/coordinator"
    timeout = httpx.Timeout(args.timeout, connect=5.0)

    if args.sessions:
        params = {"limit": args.limit, **({"symbol": args.symbol} if args.symbol else {})}
        params.update({"status": args.status} if args.status else {})
        request = httpx.Request("GET", f"{api}/sessions", params=params)
    elif args.retry:
        request = httpx.Request("POST", f"{api}/research/{args.retry}/retry")
    elif args.symbol:
        payload = {
            "symbol": args.symbol,
            "experts": [e for e in re.split(r"[,\s]+", args.experts) if e],
            "skip_debate": args.skip_debate,
        }
        request = httpx.Request("POST", f"{api}/research", json=payload)
    else:
        parser.error("a symbol, --retry SESSION_ID or --sessions is required")

    print(f"{request.method} {request.url}", file=sys.stderr, flush=True)
    with httpx.Client(timeout=timeout) as client:
        try:
            response = client.send(request)
        except httpx.ConnectError:
            print(f"The coordinator is not reachable at {args.url}. Start the stack with `make run`.", file=sys.stderr)
            return 2
        except httpx.TimeoutException:
            print(f"No answer from {args.url} within {args.timeout:g} s.", file=sys.stderr)
            return 2
        body = _json_or_text(response)
        if args.json:
            print(json.dumps(body, ensure_ascii=False, indent=2))
        elif isinstance(body, Mapping) and "expert_results" in body:
            print(format_summary(body, _stages(client, api, body)))
        elif isinstance(body, Mapping) and "items" in body:
            print(format_sessions(body))
        else:
            print(f"Refused: {format_problem(response.status_code, body)}", file=sys.stderr)
    print(f"\nHTTP {response.status_code}   X-Request-ID {response.headers.get('x-request-id', '-')}", file=sys.stderr)
    return 0 if response.status_code == 200 else 1


def _json_or_text(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _stages(client: httpx.Client, api: str, body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The stored session's stage records, when the debate or the verdict is missing (else not needed)."""
    if body.get("debate_outcome") is not None and body.get("verdict") is not None:
        return None
    try:
        detail = _json_or_text(client.get(f"{api}/sessions/{body.get('session_id')}"))
    except httpx.HTTPError:
        return None
    return detail if isinstance(detail, Mapping) else None


if __name__ == "__main__":
    sys.exit(main())
