"""Post a research to the running coordinator and print a readable summary; list and retry sessions;
list the symbols the research service's data covers.

    make research SYMBOL=600519.SH [EXPERTS=technical_analyst,valuation_modeler] [DATE=2024-06-28]
    make cli ARGS="600519.SH --skip-debate"
    make cli ARGS="600519.SH --analysis-date 2024-06-28"
    make cli ARGS="--sessions [600519.SH] [--status partial]"
    make cli ARGS="--retry SESSION_ID"
    make cli ARGS="600519.SH --detach"            submit, print the session id and its URLs, return at once
    make cli ARGS="--follow SESSION_ID"            re-attach: live progress, then the summary
    make cli ARGS="--cancel SESSION_ID"
    make cli ARGS="--universe"
    make cli ARGS="--batch 600519.SH,000001.SZ,300750.SZ --analysis-date 2025-06-30"   rank a list
    make cli ARGS="--watchlist 'Core holdings' [--analysis-date 2025-06-30]"          run a watchlist now

(``make cli ARGS=...`` is ``uv run python scripts/research_cli.py ...`` on the uv make installed if needed.)

--analysis-date YYYY-MM-DD makes the whole research (every expert, the debate, the verdict) as of that day,
from the data public then. Without it the CLI (and make research) chooses the last trading day the data has for the
symbol (GET /api/v1/coordinator/universe, its bars' last day; a live provider: the last weekday up to today) and says
which day it chose before it sends the research; the API itself, asked without a date, uses today. The summary
shows the analysis date, each expert's as_of and its inputs' dates, and a "⚠ stale" line for each expert whose
inputs were old on that day. A symbol without data (404 symbol_not_found) or a date before its data can support
an analysis (422 insufficient_history, with the earliest usable date) is printed as an error.

--universe lists what the research service's data covers: each symbol's market, daily bars (first and last
day, count), annual financials (report period ends) and valuation snapshots; a live provider is open-ended.

A research (and a retry) is submitted as a job (Prefer: respond-async) and followed on its event stream:
one line per expert, the debate and the verdict as each starts and ends, with its duration (on stderr), then
the summary. Ctrl-C stops following, not the research: --follow SESSION_ID re-attaches.

Under the debate's direction, one line says what its score is made of: each voting expert's contribution (its
weight × its factor family's score), the score they add up to, and who does not vote (`contributions  technical
+0.154 · financial +0.047 · valuation −0.042 = score +0.159 (macro, catalyst: no vote)`).

When the debate or the verdict is missing, the session's record says why (GET /sessions/{id}); the
summary shows it. Experts that failed with the same error share one line. A failure the research service answered
with 404 or 422 (no such symbol or data, too little history on that date) is permanent: it is marked so and not
offered for retry (the session read's `retryable`, when it has one, decides); a retry the coordinator refuses
(409) is printed with what to do instead. A refusal that says when to come back (429, 503) shows its Retry-After.

--language zh|en is the language the experts, the debate and the judge write in (default: REPORT_LANGUAGE, else
zh). The summary prints every text whole: action, position, confidence as a percentage, the entry price (the
reference close), stop and target with their price and distance from entry (a HOLD opens no position: they apply
only if entering), the score and the universe rank as a percentile, each explained.

--cancel SESSION_ID first says what cancelling does, then sends it: a queued or running session ends cancelled
(202), one already cancelled is answered the same (202), one that ended otherwise is refused (409 session_finished).

--batch SYMBOLS researches a comma-separated list as one batch (POST /api/v1/coordinator/batches), prints its
progress as items end (stderr), then the ranked table (without --analysis-date: as of the newest last trading day
the data has for the symbols): each symbol's action, score, universe rank, position and
confidence, best first, and its session id (readable and retryable like any session). Up to 1,000 symbols.

--watchlist NAME runs your watchlist of that name now (POST /api/v1/coordinator/watchlists/{id}/run; without
--analysis-date, as of the last trading day the data has), follows it and prints the same ranked table. A name
you have no watchlist of is an error that lists the names you have.

--sessions lists each session's creation time, id, symbol, analysis date, status and verdict action.

COORDINATOR_URL (default http://127.0.0.1:8000) points it at another coordinator, e.g. the compose gateway
http://127.0.0.1:8080; STOCK_RESEARCH_API_KEY is the API key sent (Authorization: Bearer) where the services
run with AUTH_MODE=api_key; RESEARCH_URL (default http://127.0.0.1:8001) at another research service (--universe).
Exit code: 0 completed/partial, 1 failed or refused, 2 usage error or service unreachable. `make research` and
`make cli` print a refusal without make's own "Error" line and exit 0 (the last line says "exit status N");
with STRICT=1 they exit 2 on a refusal, for scripts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import unicodedata
from collections.abc import Mapping
from typing import Any, TypeGuard

import httpx

from service_kit.stack.analysis_day import default_analysis_date
from shared_contracts.experts import ExpertType, is_iso_date
from shared_contracts.judge import CONFIDENCE_SENTENCE
from shared_contracts.projection import ProjectionError, summarize_expert_result

DEFAULT_URL = os.environ.get("COORDINATOR_URL", "http://127.0.0.1:8000")
DEFAULT_RESEARCH_URL = os.environ.get("RESEARCH_URL", "http://127.0.0.1:8001")
WIDTH = 100


def _words(text: Any) -> str:
    """``text`` on one line, whole (whitespace runs made one space; nothing is cut)."""
    return " ".join(str(text or "").split())


WIDE = (
    "\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3"
    "\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
)
"""The ranges of wide characters (CJK, Hangul, full-width forms): a line may break between two of them."""
CLOSING = "，。、；：？！）」』】〉》”’％"
"""Wide punctuation that never starts a line: it stays with the character before it."""
_TOKENS = re.compile(f"[{WIDE}][{CLOSING}]*|[^\\s{WIDE}]+[{CLOSING}]*| +")


def _columns(text: str) -> int:
    """The terminal columns ``text`` takes (a wide character, CJK or full-width, takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fill(text: Any, width: int = WIDTH, initial_indent: str = "", subsequent_indent: str = "") -> str:
    """``text`` whole, wrapped at ``width`` terminal columns like ``textwrap.fill``, but counting a wide (CJK)
    character as two columns and breaking between two of them too: lines break at a space (dropped there) or
    between wide characters, never inside a word; the first line starts with ``initial_indent``, the others with
    ``subsequent_indent``."""
    lines: list[str] = []
    line, used, fresh, gap = initial_indent, _columns(initial_indent), True, ""
    for token in _TOKENS.findall(re.sub(r"\s", " ", str(text or ""))):
        if token.isspace():
            if fresh and not lines:  # the paragraph's own indentation is kept
                line, used = line + token, used + len(token)
            else:
                gap = token
            continue
        if not fresh and used + len(gap) + _columns(token) > width:
            lines.append(line)
            line, used, gap = subsequent_indent, _columns(subsequent_indent), ""
        line, used, fresh, gap = line + gap + token, used + len(gap) + _columns(token), False, ""
    lines.append(line)
    return "\n".join(part.rstrip() for part in lines)


def _indent(text: Any) -> str:
    """``text`` whole, wrapped at the screen width, indented under its heading."""
    return fill(_words(text), width=WIDTH, initial_indent="    ", subsequent_indent="    ")


def _engine(block: Mapping[str, Any]) -> str:
    engine = block.get("engine")
    if not isinstance(engine, Mapping):
        return ""
    text = str(engine.get("kind", "?")) + (f" {engine['model']}" if engine.get("model") else "")
    if engine.get("fallback_reason"):
        text += f", FELL BACK: {engine['fallback_reason']}"
    return f"[engine: {text}]"


def format_summary(body: Mapping[str, Any], stages: Mapping[str, Any] | None = None, *, chosen: str = "") -> str:
    """The coordinator's research response as a few readable lines; ``stages`` (the stored session's
    ``debate`` and ``judge`` records) says why a missing debate or verdict is missing; ``chosen``: why the CLI chose
    the analysis date (no --analysis-date was given), said beside it."""
    experts = body.get("expert_results") or {}
    date = _analysis_date(body)
    lines = [
        f"Research {body.get('symbol', '?')}: {str(body.get('overall_status', '?')).upper()}"
        f"   session {body.get('session_id', '?')}   retry_count {body.get('retry_count', 0)}",
        f"Analysis date {date or '(not reported)'}" + (f" ({chosen}; no --analysis-date given)" if chosen else ""),
        *_staleness_lines(experts),
        "",
        "Experts",
    ]
    failures = _failure_groups(experts)
    if not experts:
        lines.append(f"  ({_ended_early(body) or 'no expert result'})")
    for name, envelope in experts.items():
        envelope = envelope if isinstance(envelope, Mapping) else {}
        if envelope.get("status") != "success":
            lines.extend(_failure_lines(name, failures, experts))
            continue
        data = _data(envelope)
        as_of = f"as of {data['as_of']}  " if data.get("as_of") else ""
        try:
            summary = summarize_expert_result(name, envelope)
        except ProjectionError as exc:
            lines.append(f"  ok      {name:<20} {as_of}(unreadable summary: {exc})")
            continue
        if summary is None:
            lines.append(f"  ok      {name:<20} {as_of}(no data)")
            continue
        headline = f"  ok      {name:<20} {summary.signal:<10} confidence {summary.confidence:.2f}  {as_of}"
        lines.append((headline + _engine(data)).rstrip())
        lines.append(_indent(summary.reasoning))
        if data.get("inputs_as_of"):
            lines.append(_wrap(f"inputs: {_compact(data['inputs_as_of'])}"))

    debate = body.get("debate_outcome")
    lines.append("")
    if isinstance(debate, Mapping):
        lines.append(
            f"Debate   {debate.get('direction', '?')}  confidence {float(debate.get('confidence', 0)):.2f}  "
            f"{_engine(debate)}"
        )
        contributions = format_contributions(debate)
        if contributions:
            lines.append(f"  contributions  {contributions}")
        lines.append(_indent(debate.get("conflict_resolution")))
    else:
        otherwise = _ended_early(body) or "skipped, or too few experts succeeded"
        lines.append(f"Debate   ({_why_missing(stages, 'debate', otherwise)})")

    verdict = body.get("verdict")
    lines.append("")
    if isinstance(verdict, Mapping):
        lines.extend(verdict_lines(verdict))
    else:
        lines.append(f"Verdict  ({_why_missing(stages, 'judge', _ended_early(body) or 'none')})")
    lines.extend(_numbers_lines(body.get("numbers_check")))
    lines.extend(_retry_lines(body, stages))
    return "\n".join(lines)


LABEL = 17
"""The width of the verdict's labels: every value starts in the same column."""
HORIZONS = {"SHORT_TERM": "short term", "MEDIUM_TERM": "medium term", "LONG_TERM": "long term"}


def _field(label: str, value: str) -> str:
    """``  label          value``, the value whole and wrapped under itself."""
    return fill(_words(value), width=WIDTH, initial_indent=f"  {label:<{LABEL - 2}}", subsequent_indent=" " * LABEL)


def _percentile(share: float) -> str:
    """0.607 → ``61st percentile``."""
    rank = round(share * 100)
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix} percentile"


def _price(value: Any) -> str:
    """A price at the tick of the markets served (0.01)."""
    return f"{float(value):.2f}"


def _level(level: Any) -> str:
    """A stop or target in words: its price (when known), its distance from the entry price, how it was set."""
    if not isinstance(level, Mapping):
        return "not set"
    pct, price = level.get("percent_from_entry"), level.get("price")
    parts = [_price(price)] if _number(price) else []
    parts += [f"{_signed_percent(float(pct))} from entry"] if _number(pct) else []
    text = ", ".join(parts) or "not set"
    return text + (f": {_words(level.get('basis'))}" if level.get("basis") else "")


def _share(value: float) -> str:
    """0.61 → ``61 %``."""
    return f"{round(float(value) * 100)} %"


def _signed_percent(value: float) -> str:
    return ("+" if value > 0 else MINUS if value < 0 else "") + f"{abs(value):.1f} %"


def verdict_lines(verdict: Mapping[str, Any]) -> list[str]:
    """The verdict as aligned lines: action and horizon, position, confidence as a percentage (with what it means),
    the entry price, stop and target (a HOLD opens nothing: they apply only if entering), score and universe rank
    explained, the entry plan, the reasoning and every risk warning, whole."""
    action = str(verdict.get("action") or "no action")
    horizon = verdict.get("time_horizon")
    lines = [f"Verdict  {_engine(verdict)}".rstrip()]
    lines.append(_field("action", action + (f", {HORIZONS.get(str(horizon), str(horizon))}" if horizon else "")))
    if _number(verdict.get("position_percent")):
        position = f"{float(verdict['position_percent']):.1f} % of the portfolio"
        if _number(verdict.get("position_shares")):
            position += f" ({int(verdict['position_shares'])} shares)"
        lines.append(_field("position", position))
    if _number(verdict.get("confidence")):
        said = _share(verdict["confidence"])  # a calibrated probability only where the stock has a standing (score)
        lines.append(
            _field("confidence", said + (f". {CONFIDENCE_SENTENCE['en']}" if _number(verdict.get("score")) else ""))
        )
    entry = verdict.get("reference_price")
    if _number(entry):
        day = verdict.get("reference_date")
        lines.append(
            _field("entry price", _price(entry) + (f", the close of {day}" if day else ", the reference close"))
        )
    stop, target = verdict.get("stop_loss"), verdict.get("take_profit")
    if action == "HOLD":
        for label, level in (("stop loss", stop), ("take profit", target)):
            said = "none: a HOLD opens no position"
            if isinstance(level, Mapping) and level.get("percent_from_entry") is not None:
                said += f"; only if entering: {_level(level)}"
            lines.append(_field(label, said))
    else:
        lines.append(_field("stop loss", _level(stop)))
        lines.append(_field("take profit", _level(target)))
    if _number(verdict.get("market_exposure")):
        kept = f"{_share(verdict['market_exposure'])} of the stock's own position kept by the market view"
        lines.append(_field("market", kept + " (already in the position)"))
    if _number(verdict.get("score")):
        lines.append(
            _field(
                "score",
                f"{_signed(float(verdict['score']))} on a scale from {MINUS}1 (most bearish) to +1 (most bullish): "
                "the weighed sum of the voting experts' standings in the stock's reference universe",
            )
        )
    if _number(verdict.get("universe_rank")):
        rank = float(verdict["universe_rank"])
        lines.append(
            _field(
                "universe rank",
                f"{_percentile(rank)}: by that score the stock stands above {_share(rank)} of its reference universe "
                "on the analysis date",
            )
        )
    if verdict.get("entry_strategy"):
        lines.append(_field("entry plan", str(verdict["entry_strategy"])))
    if verdict.get("reasoning"):
        lines.append(_field("reasoning", str(verdict["reasoning"])))
    warnings = [w for w in verdict.get("risk_warnings") or [] if w]
    for place, warning in enumerate(warnings):
        lines.append(_field("risks" if place == 0 else "", f"! {warning}"))
    return lines


MINUS = "\u2212"
NO_VOTE = {"no_standing_data": "no standing data"}
"""Why a listed expert does not vote (its contribution's ``note``), when it is more than "no vote"."""


def _signed(value: float) -> str:
    """``+0.154``, ``−0.042`` (the minus sign), ``0.000``: a contribution with its sign, three decimals."""
    shown = f"{abs(value):.3f}"
    if float(shown) == 0:
        return shown
    return ("+" if value > 0 else MINUS) + shown


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def format_contributions(debate: Mapping[str, Any]) -> str | None:
    """The debate's score and what it is made of, on one line: ``technical +0.154 · financial +0.047 · valuation
    −0.042 = score +0.159 (macro, catalyst: no vote)`` — each voting expert (its first word) with its contribution
    (weight × its factor family's score), the score they add up to, who does not vote and who failed (not heard).
    None when the outcome has no contributions (an older session, or no standing in the reference universe)."""
    items = [
        c for c in debate.get("contributions") or [] if isinstance(c, Mapping) and isinstance(c.get("expert"), str)
    ]
    if not items:
        return None
    voters = [c for c in items if c.get("votes") is True and _number(c.get("contribution"))]
    total = sum(float(c["contribution"]) for c in voters)
    score = float(debate["score"]) if _number(debate.get("score")) else total
    parts = " · ".join(f"{c['expert'].split('_')[0]} {_signed(float(c['contribution']))}" for c in voters)
    parts = parts or "no voting expert"
    if f"{total:.3f}" == f"{score:.3f}":
        line = f"{parts} = score {_signed(score)}"
    else:  # the contract says they are equal; if a peer ever says otherwise, both are shown
        line = f"{parts} = {_signed(total)}, not the score {_signed(score)}"
    reasons: dict[str, list[str]] = {}
    for c in items:
        if c not in voters:
            reasons.setdefault(NO_VOTE.get(str(c.get("note") or ""), "no vote"), []).append(c["expert"].split("_")[0])
    coverage = debate.get("coverage")
    failed = coverage.get("failed_experts") if isinstance(coverage, Mapping) else None
    listed = {c["expert"] for c in items}
    for name in failed if isinstance(failed, list) else []:
        if isinstance(name, str) and name not in listed:
            reasons.setdefault("failed", []).append(name.split("_")[0])
    if reasons:
        line += " (" + "; ".join(f"{', '.join(names)}: {why}" for why, names in reasons.items()) + ")"
    return line


PERMANENT_STATUSES = frozenset({404, 422})
"""A research service answer that a retry gets again: the data is not there (404) or not enough of it (422)."""


def failure_status(error: Any) -> int | None:
    """The peer status in an expert's error (``research 404 symbol_not_found: ...``), when it names one."""
    match = re.match(r"^\S+ (\d{3})\b", str(error or ""))
    return int(match.group(1)) if match else None


def is_retryable(envelope: Mapping[str, Any]) -> bool:
    """Whether a failed expert could succeed on a retry: the session read's ``retryable`` when it has one, else
    not when the research service refused it with 404 or 422 (the same data gives the same answer)."""
    if isinstance(envelope.get("retryable"), bool):
        return bool(envelope["retryable"])
    return failure_status(envelope.get("error")) not in PERMANENT_STATUSES


def _failure_groups(experts: Mapping[str, Any]) -> dict[str, list[str]]:
    """The failed experts by their error (whitespace-normalised), in the order they come."""
    groups: dict[str, list[str]] = {}
    for name, envelope in experts.items():
        if isinstance(envelope, Mapping) and envelope.get("status") != "success":
            groups.setdefault(" ".join(str(envelope.get("error") or "").split()), []).append(name)
    return groups


def _failure_lines(name: str, groups: Mapping[str, list[str]], experts: Mapping[str, Any]) -> list[str]:
    """A failed expert's lines; experts that failed with the same error share them, under the first one, marked
    permanent when a retry would get the same answer (``is_retryable``)."""
    error, names = next((e, n) for e, n in groups.items() if name in n)
    if names[0] != name:
        return []
    total = len(experts)
    permanent = "" if is_retryable(experts[name]) else "  [permanent: a retry gets the same answer]"
    if len(names) == total > 1:  # one line for all of them
        text = f"  FAILED  all {total} experts: {_words(error)}{permanent}"
        return [fill(text, width=WIDTH, subsequent_indent="    ")]
    return [f"  FAILED  {', '.join(names)}", _indent(error) + permanent]


def _retry_lines(body: Mapping[str, Any], stages: Mapping[str, Any] | None) -> list[str]:
    """What a retry would re-run, with the command; a permanent failure (research 404/422) is not offered."""
    experts = body.get("expert_results") or {}
    failed = {n: e for n, e in experts.items() if isinstance(e, Mapping) and e.get("status") != "success"}
    retryable = [n for n, e in failed.items() if is_retryable(e)]
    records = stages or {}
    stage_failed = [
        s for s in ("debate", "judge") if isinstance(records.get(s), Mapping) and records[s].get("status") == "failed"
    ]
    if retryable or (stage_failed and not failed):
        what = ", ".join([*retryable, *stage_failed])
        return ["", f'Retry    make cli ARGS="--retry {body.get("session_id", "?")}"   worth retrying: {what}']
    if failed:
        text = (
            "Retry    not offered: every failure is permanent (the research service answered 404 or 422: the data "
            "is not there, or not enough of it on that date); a retry would get the same answer"
        )
        hint = "`--universe` lists the symbols there is data for, with their first and last days."
        return ["", fill(text, width=WIDTH, subsequent_indent="         "), f"         {hint}"]
    return []


def _numbers_lines(rollup: Any, limit: int = 12) -> list[str]:
    """The research's numbers check (LLM stages): how many figures traced, and each unverified one."""
    if not isinstance(rollup, Mapping) or not isinstance(rollup.get("total"), Mapping):
        return []
    total = rollup["total"]
    unverified = total.get("unverified") or []
    repaired = [stage for stage, check in (rollup.get("stages") or {}).items() if check.get("repaired")]
    head = f"Numbers  {total.get('traced', 0)}/{total.get('checked', 0)} figures traced to the data"
    head += f", {len(unverified)} unverified" + (f" (repaired: {', '.join(repaired)})" if repaired else "")
    lines = ["", head]
    lines += [f"  ? {f.get('field')}: {_words(f.get('text'))}" for f in unverified[:limit]]
    if len(unverified) > limit:
        lines.append(f"  … {len(unverified) - limit} more (--json shows them all)")
    return lines


def _data(envelope: Mapping[str, Any]) -> Mapping[str, Any]:
    data = envelope.get("data")
    return data if isinstance(data, Mapping) else {}


def _wrap(text: str) -> str:
    """Indented like the reasonings, whole."""
    return fill(_words(text), width=WIDTH, initial_indent="    ", subsequent_indent="      ")


def _analysis_date(body: Mapping[str, Any]) -> str | None:
    """The response's ``analysis_date``; else the one its experts report (a session stored before it existed)."""
    if body.get("analysis_date"):
        return str(body["analysis_date"])
    experts = body.get("expert_results")
    dates = {
        str(_data(e)["analysis_date"])
        for e in (experts.values() if isinstance(experts, Mapping) else [])
        if isinstance(e, Mapping) and _data(e).get("analysis_date")
    }
    return ", ".join(sorted(dates)) or None


def _staleness_lines(experts: Mapping[str, Any]) -> list[str]:
    """One marked line per expert whose inputs were older than their threshold on the analysis date."""
    lines = []
    for name, envelope in experts.items():
        stale = _data(envelope).get("staleness") if isinstance(envelope, Mapping) else None
        if isinstance(stale, str):
            stale = [stale]
        if stale:
            text = f"⚠ stale: {name}: " + "; ".join(" ".join(str(s).split()) for s in stale)
            lines.append(fill(text, width=WIDTH, subsequent_indent="    "))
    return lines


def _compact(value: Any, depth: int = 0) -> str:
    """``inputs_as_of`` (free-form) on one line: ``bars last=2025-09-30; financials period_end=…, …``."""
    if isinstance(value, Mapping):
        if depth == 0:
            return "; ".join(f"{k} {_compact(v, 1)}" for k, v in value.items())
        text = ", ".join(f"{k}={_compact(v, depth + 1)}" for k, v in value.items())
        return text if depth == 1 else "{" + text + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_compact(v, depth + 1) for v in value) + "]"
    return "-" if value is None else str(value)


def _ended_early(body: Mapping[str, Any]) -> str:
    """Why a stage was never reached when the session ended before it (cancelled, interrupted), else ""."""
    status = body.get("overall_status", body.get("status"))
    if status == "cancelled":
        return "not reached: the session was cancelled"
    if status == "interrupted":
        return "not reached: the session was interrupted" + (f" ({_words(body['error'])})" if body.get("error") else "")
    return ""


def _why_missing(stages: Mapping[str, Any] | None, stage: str, otherwise: str) -> str:
    record = (stages or {}).get(stage)
    if not isinstance(record, Mapping) or record.get("status") in (None, "success", "pending"):
        return otherwise  # a stage still pending in an ended session was never reached: ``otherwise`` says why
    if record.get("error"):
        return f"{record['status']}: {_words(record['error'])}"
    return str(record["status"])


def format_sessions(page: Mapping[str, Any]) -> str:
    """A page of sessions, one line each: when asked, the id, symbol, analysis date, status and the verdict's
    action (``-`` without one), retries."""
    items = page.get("items") or []
    lines = [f"{len(items)} of {page.get('total', len(items))} sessions, newest first"]
    if items:
        lines.append(f"  {'created (UTC)':<16}  {'session':<36}  {'symbol':<10} {'as of':<10}  {'status':<11} action")
    for item in items:
        retried = f"  retry of {item['retried_from']}" if item.get("retried_from") else ""
        if item.get("stages_to_retry"):
            retried += f"  to retry: {', '.join(item['stages_to_retry'])}"
        elif item.get("retried_by"):
            retried += f"  retried by {item['retried_by']}"
        lines.append(
            f"  {str(item.get('created_at') or '?')[:16].replace('T', ' '):<16}  {item.get('session_id', '?'):<36}  "
            f"{item.get('symbol', '?'):<10} {item.get('analysis_date') or '-':<10}  {item.get('status', '?'):<11} "
            f"{item.get('action') or '-':<6} retries {item.get('retry_count', 0)}{retried}"
        )
    return "\n".join(lines)


def format_problem(status: int, body: Any, *, retry_after: str | None = None, detail: bool = True) -> str:
    """A problem detail in a line (``detail=False``: without its detail), then what it says to do: the earliest
    usable date, the symbols there are, how long to wait (``Retry-After``)."""
    if not isinstance(body, Mapping):
        lines = [f"{status}: {_words(body)}"]
    else:
        code = f" [{body['code']}]" if body.get("code") else ""
        said = f": {body.get('detail', '')}" if detail else ""
        lines = [f"{status} {body.get('title', '')}{code}{said}".strip().rstrip(":")]
        if body.get("earliest_usable_date"):
            earliest = body["earliest_usable_date"]
            lines.append(f"  earliest usable date: {earliest} (try --analysis-date {earliest} or later)")
        if isinstance(body.get("available_symbols"), list):
            lines.append(f"  available symbols: {_words(', '.join(map(str, body['available_symbols'])))}")
    if retry_after:
        seconds = f"{retry_after} s" if retry_after.strip().isdigit() else retry_after.strip()
        lines.append(f"  wait {seconds} before trying again (Retry-After)")
    return "\n".join(lines)


def format_refusal(status: int, body: Mapping[str, Any]) -> str:
    """A 4xx research answer that also carries the research response (404 ``symbol_not_found``, 422
    ``insufficient_history``): the problem, the research it refused, each expert's reason once (experts that
    failed alike share one line; a detail that only lists the experts' reasons is left out), what to do."""
    date = _analysis_date(body)
    detail = " ".join(str(body.get("detail") or "").split())
    experts = body.get("expert_results")
    groups = _failure_groups(experts if isinstance(experts, Mapping) else {})
    groups.pop("", None)
    listed = bool(groups) and all(error in detail for error in groups)  # the detail only repeats the reasons
    lines = [
        f"Refused: {format_problem(status, body, detail=not listed)}",
        f"  research {body.get('symbol', '?')}"
        + (f" as of {date}" if date else "")
        + f", session {body.get('session_id', '?')}",
    ]
    total = len(experts) if isinstance(experts, Mapping) else 0
    for error, names in groups.items():
        if error in detail and not listed:
            continue  # the detail already says it
        who = f"every expert ({len(names)})" if len(names) == total > 1 else ", ".join(names)
        lines.append(fill(f"{who}: {_words(error)}", WIDTH, initial_indent="  ", subsequent_indent="    "))
    if body.get("code") == "symbol_not_found":
        lines.append("  `--universe` lists the symbols the research service has data for.")
    elif body.get("code") == "insufficient_history":
        lines.append("  `--universe` shows each symbol's first bar and report.")
    return "\n".join(lines)


RETRY_HINTS = {
    "already_retried": "It was retried already: retry the newest session of its chain (--sessions: `retried by`).",
    "retry_in_progress": "A retry of it is running: --follow that one.",
    "session_running": "It has not ended yet: --follow it, and retry it once it has.",
}
PERMANENT_HINT = (
    "A failure the research service answered with 404 or 422 (no such data, or not enough of it on that date) gets "
    "the same answer again: research another symbol (--universe lists them) or another --analysis-date."
)


def format_retry_refusal(status: int, body: Any, *, retry_after: str | None = None) -> str:
    """A retry the coordinator would not start (409): its problem, then what to do instead."""
    lines = [f"Not retried: {format_problem(status, body, retry_after=retry_after)}"]
    said = " ".join(str(body.get(k, "")) for k in ("code", "detail")) if isinstance(body, Mapping) else str(body)
    code = body.get("code") if isinstance(body, Mapping) else None
    if code in RETRY_HINTS:
        lines.append(fill(RETRY_HINTS[str(code)], WIDTH, initial_indent="  ", subsequent_indent="  "))
    elif re.search(r"permanent|\b404\b|\b422\b", said, re.IGNORECASE):
        lines.append(fill(PERMANENT_HINT, WIDTH, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines)


def _span(span: Any) -> tuple[str, str]:
    if not isinstance(span, Mapping):
        return "no", ""
    return f"{span.get('first', '?')} .. {span.get('last', '?')}", str(span.get("count", "?"))


def format_universe(body: Mapping[str, Any]) -> str:
    """``GET /api/v1/research/universe`` as an aligned table with the totals."""
    provider = body.get("data_provider", "?")
    symbols = [s for s in body.get("symbols") or [] if isinstance(s, Mapping)]
    lines = []
    if body.get("open_ended"):
        lines.append(
            f"Data provider {provider} is open-ended: any symbol it can fetch may be researched; "
            "there is no list of them."
        )
        if not symbols:
            return "\n".join(lines)
    header = ["symbol", "market", "daily bars", "days", "financials (period ends)", "reports", "valuation", "days"]
    rows = [
        [str(s.get("symbol", "?")), str(s.get("market", "?"))]
        + [cell for kind in ("bars", "financials", "valuation") for cell in _span(s.get(kind))]
        for s in symbols
    ]
    right = {3, 5, 7}  # the counts
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    having = {
        kind: sum(isinstance(s.get(kind), Mapping) for s in symbols) for kind in ("bars", "financials", "valuation")
    }
    lines.append(
        f"{body.get('count', len(symbols))} symbols, data provider {provider}: {having['bars']} with daily bars, "
        f"{having['financials']} with financials, {having['valuation']} with valuation"
    )
    return "\n".join(lines)


def _default_language() -> str:
    """``REPORT_LANGUAGE`` when it is zh or en, else zh (the services' own default)."""
    given = os.environ.get("REPORT_LANGUAGE", "").strip().lower()
    return given if given in ("zh", "en") else "zh"


def _iso_date(value: str) -> str:
    if not is_iso_date(value):
        raise argparse.ArgumentTypeError(f"expected a real day as YYYY-MM-DD, got {value!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("symbol", nargs="?", help="e.g. 600519.SH, 000001.SZ, AAPL (with --sessions: a filter)")
    parser.add_argument(
        "--experts",
        default=",".join(e.value for e in ExpertType),
        help="expert names separated by commas or spaces (default: all five)",
    )
    parser.add_argument("--skip-debate", action="store_true", help="experts only: no debate, no verdict")
    parser.add_argument(
        "--analysis-date",
        type=_iso_date,
        metavar="YYYY-MM-DD",
        help="make the research as of that day, with the data public then (default: the last trading day the "
        "data has for the symbol, said before the research is sent)",
    )
    parser.add_argument(
        "--language",
        choices=("zh", "en"),
        default=_default_language(),
        help="the language the experts, the debate and the judge write in (default: REPORT_LANGUAGE, else zh)",
    )
    parser.add_argument("--retry", metavar="SESSION_ID", help="retry a session: re-run only what failed")
    parser.add_argument("--detach", action="store_true", help="submit and return: print the session id and URLs")
    parser.add_argument("--follow", metavar="SESSION_ID", help="follow a session's progress, then summarise it")
    parser.add_argument("--cancel", metavar="SESSION_ID", help="cancel a queued or running session")
    parser.add_argument("--sessions", action="store_true", help="list the latest sessions instead")
    parser.add_argument("--batch", metavar="SYMBOLS", help="rank a comma-separated list of symbols as one batch")
    parser.add_argument("--watchlist", metavar="NAME", help="run your watchlist of that name now and rank it")
    parser.add_argument("--status", help="with --sessions: only sessions of this status (e.g. partial)")
    parser.add_argument("--limit", type=int, default=20, help="with --sessions: how many (default 20)")
    parser.add_argument(
        "--universe",
        action="store_true",
        help="list the symbols the research service has data for: bars, financials, valuation and their spans",
    )
    parser.add_argument("--url", default=DEFAULT_URL, help=f"coordinator base URL (default {DEFAULT_URL})")
    parser.add_argument(
        "--research-url",
        default=DEFAULT_RESEARCH_URL,
        help=f"research service base URL, for --universe (default {DEFAULT_RESEARCH_URL})",
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the answer")
    parser.add_argument("--json", action="store_true", help="print the full JSON response instead")
    args = parser.parse_args(argv)
    api = f"{args.url.rstrip('/')}/api/v1/coordinator"
    timeout = httpx.Timeout(args.timeout, connect=5.0)
    service, base_url = "coordinator", args.url
    if args.analysis_date and (args.universe or args.sessions or args.retry):
        parser.error(
            "--analysis-date dates a new research: give it with a SYMBOL, --batch or --watchlist "
            "(a retry keeps its date)"
        )
    if args.batch and args.watchlist:
        parser.error("--batch and --watchlist each start a batch: give one of them")

    if args.batch:
        return run_batch(args, api, timeout)
    if args.watchlist:
        return run_watchlist(args, api, timeout)
    if not (args.universe or args.sessions or args.follow or args.cancel or args.retry or args.symbol):
        parser.error("a symbol, --retry SESSION_ID, --sessions or --universe is required (or --follow/--cancel ID)")
    if args.universe:
        service, base_url = "research service", args.research_url
    with _client(timeout) as client:
        try:
            response, chosen = _send(client, args, api)
        except (httpx.ConnectError, httpx.TimeoutException) as exc:
            return unreachable(exc, service, base_url, args.timeout)
        body = _json_or_text(response)
        if (response.status_code == 202 and isinstance(body, Mapping) and args.detach) or args.cancel:
            print(
                format_job(body)
                if isinstance(body, Mapping) and "links" in body
                else f"Refused: {format_problem(response.status_code, body)}",
                flush=True,
            )
        elif (response.status_code == 202 or args.follow) and isinstance(body, Mapping) and "session_id" in body:
            response, body = follow(client, api, str(body["session_id"]))
        if not (args.detach or args.cancel) or response.status_code != 202:
            _print_answer(client, args, api, response, body, chosen)
    code = exit_code(response.status_code, body)
    ended = f"   exit status {code}" if code else ""  # make research says it too, its own exit status being 0
    print(
        f"\nHTTP {response.status_code}   X-Request-ID {response.headers.get('x-request-id', '-')}{ended}",
        file=sys.stderr,
    )
    return code


CANCEL_WARNING = (
    "Cancelling session {id}: nothing more of it is started and the calls it has in flight are stopped; what has "
    "finished is kept. A session that has already ended is left as it is."
)


def _send(client: httpx.Client, args: argparse.Namespace, api: str) -> tuple[httpx.Response, str]:
    """The request the options ask for, sent after saying what it will do (the date a research is made as of when
    none was given, a cancellation); the answer, and why the analysis date was chosen ("" when it was given)."""
    chosen = ""
    if args.universe:
        request = client.build_request("GET", f"{args.research_url.rstrip('/')}/api/v1/research/universe")
    elif args.sessions:
        params = {"limit": args.limit, **({"symbol": args.symbol} if args.symbol else {})}
        params.update({"status": args.status} if args.status else {})
        request = client.build_request("GET", f"{api}/sessions", params=params)
    elif args.follow:
        request = client.build_request("GET", f"{api}/sessions/{args.follow}")
    elif args.cancel:
        print(fill(CANCEL_WARNING.format(id=args.cancel), WIDTH), file=sys.stderr, flush=True)
        request = client.build_request("POST", f"{api}/sessions/{args.cancel}/cancel")
    elif args.retry:
        request = client.build_request("POST", f"{api}/research/{args.retry}/retry", headers=ASYNC)
    else:
        date = args.analysis_date
        if not date:
            date, chosen = default_analysis_date(client, args.url, [args.symbol])
            print(f"No --analysis-date: the research is made as of {date}, {chosen}.", file=sys.stderr, flush=True)
        payload = {
            "symbol": args.symbol,
            "experts": [e for e in re.split(r"[,\s]+", args.experts) if e],
            "skip_debate": args.skip_debate,
            "analysis_date": date,
            "language": args.language,
        }
        request = client.build_request("POST", f"{api}/research", json=payload, headers=ASYNC)
    print(f"{request.method} {request.url}", file=sys.stderr, flush=True)
    return client.send(request), chosen


def _print_answer(
    client: httpx.Client, args: argparse.Namespace, api: str, response: httpx.Response, body: Any, chosen: str
) -> None:
    """The answer in words: the summary, the list, the table, or the refusal and what to do."""
    refused = 400 <= response.status_code < 500
    retry_after = response.headers.get("retry-after")
    if args.json:
        print(json.dumps(body, ensure_ascii=False, indent=2))
    elif isinstance(body, Mapping) and "expert_results" in body and refused:
        print(format_refusal(response.status_code, body), file=sys.stderr)
    elif isinstance(body, Mapping) and "expert_results" in body:
        print(format_summary(body, _stages(client, api, body), chosen=chosen))
    elif isinstance(body, Mapping) and "items" in body:
        print(format_sessions(body))
    elif isinstance(body, Mapping) and "symbols" in body and response.status_code == 200:
        print(format_universe(body))
    elif args.retry and response.status_code == 409:
        print(format_retry_refusal(response.status_code, body, retry_after=retry_after), file=sys.stderr)
    elif not args.cancel:
        print(f"Refused: {format_problem(response.status_code, body, retry_after=retry_after)}", file=sys.stderr)
    if response.status_code == 401:
        print('Set STOCK_RESEARCH_API_KEY to your API key (make keys ARGS="create NAME").', file=sys.stderr)


def exit_code(status: int, body: Any) -> int:
    """0 for an answer to act on (a completed or partial research, a list); 1 for a refusal or a research that
    failed, was cancelled or interrupted (its record is read with a 200)."""
    if status not in (200, 202):  # 202: a cancellation, or a research submitted with --detach
        return 1
    if not isinstance(body, Mapping) or "expert_results" not in body:
        return 0
    return 0 if body.get("overall_status", body.get("status")) in ("completed", "partial") else 1


ASYNC = {"Prefer": "respond-async"}
FINAL = ("completed", "partial", "failed", "cancelled", "interrupted")


def format_job(body: Mapping[str, Any]) -> str:
    links = body.get("links") or {}
    lines = [f"Session {body.get('session_id') or '?'}: {body.get('status') or 'status not reported'}"]
    if body.get("queue_position"):
        lines.append(f"  queue position  {body['queue_position']}")
    lines += [f"  {name:<14}  {url}" for name, url in links.items()]
    return "\n".join(lines)


def format_event(event: str, data: Mapping[str, Any], failures: dict[str, str] | None = None) -> str | None:
    """One progress line for an event of the session's stream (None: nothing to show). ``failures`` (message →
    the first expert that failed with it) turns an expert failing as another did into a short line."""
    took = f"  {data['duration_ms'] / 1000:.1f} s" if _number(data.get("duration_ms")) else ""
    if event == "snapshot":
        position = f", queue position {data['queue_position']}" if data.get("queue_position") else ""
        return f"session {data.get('session_id') or '?'} {data.get('status') or ''}{position}".rstrip()
    if event in ("session.queued", "session.started", "session.resumed", "session.stalled"):
        detail = ", ".join(f"{k} {_plain(v)}" for k, v in data.items() if k != "instance" and v is not None)
        return f"{event.split('.')[1]}{': ' + detail if detail else ''}"
    if event == "expert.started":
        return f"  … {data.get('expert')}"
    if event == "expert.completed":
        confidence = f", confidence {float(data['confidence']):.2f}" if _number(data.get("confidence")) else ""
        return f"  ✓ {data.get('expert'):<20} {data.get('signal') or 'no signal'}{confidence}{took}"
    if event == "expert.failed":
        message = _words(data.get("message"))
        first = (failures if failures is not None else {}).setdefault(message, str(data.get("expert")))
        said = (message or "no reason given") if first == data.get("expert") else f"the same as {first}"
        return f"  ✗ {data.get('expert'):<20} {said}{took}"
    stage, _, what = event.partition(".")
    if stage in ("debate", "verdict"):
        shown = {"started": "…", "completed": "✓", "failed": "✗", "skipped": "–"}.get(what, what)
        return f"  {shown} {stage:<20} {_stage_said(stage, what, data)}{took}".rstrip()
    if event.startswith("session."):
        reason = f": {data['reason']}" if data.get("reason") else ""
        return f"{what}{reason}"
    return None


def _stage_said(stage: str, what: str, data: Mapping[str, Any]) -> str:
    """What a debate or verdict event says, in words: the direction and confidence of a debate; the action,
    position, stop, target and horizon of a verdict (a HOLD has no stop or target to act on); the failure."""
    if what == "failed":
        return _words(data.get("message"))
    if what != "completed":
        return ""
    if stage == "debate":
        confidence = f", confidence {float(data['confidence']):.2f}" if _number(data.get("confidence")) else ""
        return f"{data.get('direction') or 'no direction'}{confidence}"
    action = str(data.get("action") or "no action")
    parts = [action]
    if _number(data.get("position")):
        parts.append(f"position {float(data['position']):.1f} %")
    for name in ("stop", "target") if action != "HOLD" else ():
        level = data.get(name)
        pct = level.get("percent_from_entry") if isinstance(level, Mapping) else None
        if _number(pct):
            parts.append(f"{name} {_signed_percent(float(pct))}")
    if data.get("horizon"):
        parts.append(HORIZONS.get(str(data["horizon"]), str(data["horizon"])))
    return ", ".join(parts)


def _plain(value: Any) -> str:
    """A value of an event in words: a mapping or list as ``k=v, …`` (never a Python literal)."""
    return _compact(value, 1) if isinstance(value, Mapping | list | tuple) else str(value)


def follow(client: httpx.Client, api: str, session_id: str) -> tuple[httpx.Response, Any]:
    """Print the session's progress from its event stream (reconnecting after the last event seen) until it ends;
    returns its stored record as a research response."""
    last = 0
    failures: dict[str, str] = {}
    while True:
        try:
            url = f"{api}/sessions/{session_id}/events"
            with client.stream("GET", url, params={"after": last}, timeout=httpx.Timeout(60.0, connect=5.0)) as stream:
                if stream.status_code != 200:
                    stream.read()
                    return stream, _json_or_text(stream)
                event, data, ended = "", "", False
                for line in stream.iter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: "):
                        data = line[6:]
                    elif line.startswith("id: "):
                        last = int(line[4:])
                    elif not line and event:
                        shown = format_event(event, json.loads(data) if data else {}, failures)
                        if shown:
                            print(shown, file=sys.stderr, flush=True)
                        ended = ended or (event.startswith("session.") and event.split(".")[1] in FINAL)
                        event, data = "", ""
                if ended:
                    break
        except httpx.TransportError:
            continue  # the stream was cut (a gateway, a restart): reconnect after the last event seen
    detail = client.get(f"{api}/sessions/{session_id}")
    return detail, _as_research_response(_json_or_text(detail))


def _as_research_response(detail: Any) -> Any:
    """A stored session in the shape of the research response, for the summary."""
    if not isinstance(detail, Mapping) or "expert_results" not in detail:
        return detail
    status = detail.get("status")
    return {
        **detail,
        "overall_status": status,
        "expert_results": {
            e: {k: v for k, v in r.items() if k in ("status", "data", "error", "retryable")}
            for e, r in detail["expert_results"].items()
        },
    }


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


def unreachable(exc: httpx.HTTPError, service: str, base_url: str, timeout: float) -> int:
    """Says why the service gave no answer; the exit code of that (2)."""
    if isinstance(exc, httpx.ConnectError):
        print(f"The {service} is not reachable at {base_url}. Start the stack with `make run`.", file=sys.stderr)
    else:
        print(f"No answer from {base_url} within {timeout:g} s.", file=sys.stderr)
    return 2


def _client(timeout: httpx.Timeout) -> httpx.Client:
    key = os.environ.get("STOCK_RESEARCH_API_KEY", "").strip()
    return httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {key}"} if key else {})


def run_batch(args: argparse.Namespace, api: str, timeout: httpx.Timeout) -> int:
    """``--batch``: submit, follow the progress, print the ranked table; the exit code as for a research."""
    symbols = [s for s in re.split(r"[,\s]+", args.batch) if s]
    experts = [e for e in re.split(r"[,\s]+", args.experts) if e]
    payload: dict[str, Any] = {"symbols": symbols, "experts": experts, "language": args.language}
    with _client(timeout) as client:
        try:
            payload["analysis_date"] = args.analysis_date
            if not args.analysis_date:
                payload["analysis_date"], chosen = default_analysis_date(client, args.url, symbols)
                print(f"No --analysis-date: the batch is made as of {payload['analysis_date']}, {chosen}.",
                      file=sys.stderr, flush=True)  # fmt: skip
            print(f"POST {api}/batches ({len(symbols)} symbols)", file=sys.stderr, flush=True)
            response = follow_batch(client, api, client.post(f"{api}/batches", json=payload))
        except (httpx.ConnectError, httpx.TimeoutException) as exc:
            return unreachable(exc, "coordinator", args.url, args.timeout)
    return print_batch(args, response)


def run_watchlist(args: argparse.Namespace, api: str, timeout: httpx.Timeout) -> int:
    """``--watchlist NAME``: run the caller's watchlist of that name now, follow it, print the ranked table."""
    payload = {"analysis_date": args.analysis_date} if args.analysis_date else {}
    with _client(timeout) as client:
        try:
            found = find_watchlist(client, api, args.watchlist)
            if not isinstance(found, Mapping):
                print(found, file=sys.stderr)
                return 1
            run = f"{api}/watchlists/{found['watchlist_id']}/run"
            print(f"POST {run} ({found['name']}: {len(found['symbols'])} symbols)", file=sys.stderr, flush=True)
            response = follow_batch(client, api, client.post(run, json=payload))
        except (httpx.ConnectError, httpx.TimeoutException) as exc:
            return unreachable(exc, "coordinator", args.url, args.timeout)
    return print_batch(args, response)


def find_watchlist(client: httpx.Client, api: str, name: str) -> Mapping[str, Any] | str:
    """The caller's watchlist named ``name`` (exactly, else the one whose name matches ignoring case and spaces
    around it); otherwise why not, in words: the refusal, or the names that exist."""
    watchlists: list[Mapping[str, Any]] = []
    while True:
        response = client.get(f"{api}/watchlists", params={"limit": 100, "offset": len(watchlists)})
        body = _json_or_text(response)
        if response.status_code != 200 or not isinstance(body, Mapping):
            return f"Refused: {format_problem(response.status_code, body)}"
        watchlists += body.get("items") or []
        if not body.get("items") or len(watchlists) >= int(body.get("total") or 0):
            break
    exact = [w for w in watchlists if w.get("name") == name]
    loose = [w for w in watchlists if str(w.get("name", "")).strip().casefold() == name.strip().casefold()]
    if exact or len(loose) == 1:
        return (exact or loose)[0]
    names = ", ".join(repr(w.get("name")) for w in watchlists)
    return f"No watchlist named {name!r}. " + (
        f"Yours: {names}." if names else "You have none: create one in the console (/console/#/watchlists)."
    )


def follow_batch(client: httpx.Client, api: str, response: httpx.Response) -> httpx.Response:
    """After a 202 for a batch (``Location`` or ``links.self`` naming it): its progress on stderr as items end,
    then the batch as it ended. Any other answer is returned as it is."""
    if response.status_code != 202:
        return response
    accepted = _json_or_text(response)
    links = accepted.get("links") if isinstance(accepted, Mapping) else None
    batch_url = response.headers.get("Location") or (links or {}).get("self")
    base = api.removesuffix("/api/v1/coordinator")
    with client.stream("GET", f"{base}{batch_url}/events") as events:
        for line in events.iter_lines():
            if line.startswith("data:"):
                data = json.loads(line[5:])
                print(f"  {data['done']}/{data['total']} done, {data['failed']} failed", file=sys.stderr)
    return client.get(f"{base}{batch_url}")


def print_batch(args: argparse.Namespace, response: httpx.Response) -> int:
    """The ranked table (or the JSON, or the refusal); 0 for a batch that completed or partly completed."""
    body = _json_or_text(response)
    if response.status_code != 200 or not isinstance(body, Mapping):
        print(f"Refused: {format_problem(response.status_code, body)}", file=sys.stderr)
        return 1
    print(json.dumps(body, ensure_ascii=False, indent=2) if args.json else format_batch(body))
    return 0 if body.get("status") in ("completed", "partial") else 1


def format_batch(body: Mapping[str, Any]) -> str:
    """The ranked table of a batch, best first."""
    progress = body.get("progress") or {}
    lines = [
        f"batch {body.get('batch_id')} as of {body.get('analysis_date')}: {body.get('status')}, "
        f"{progress.get('done', 0)}/{progress.get('total', 0)} done, {progress.get('failed', 0)} failed",
        "",
        f"{'#':>4}  {'symbol':<11} {'action':<6} {'score':>7} {'rank':>6} {'position':>9} {'confidence':>10}  session",
    ]

    def figure(value: Any, spec: str, suffix: str = "") -> str:
        return f"{value:{spec}}{suffix}" if _number(value) else "—"

    for place, item in enumerate(body.get("items") or [], start=1):
        action = item.get("action") or item.get("status") or "-"
        lines.append(
            f"{place:>4}  {item.get('symbol', ''):<11} {action:<6} {figure(item.get('score'), '+.3f'):>7} "
            f"{figure(item.get('universe_rank'), '.0%'):>6} {figure(item.get('position_percent'), '.1f', ' %'):>9} "
            f"{figure(item.get('confidence'), '.0%'):>10}  {item.get('session_id')}"
        )
    lines += ["", "rank: the stock's percentile in its reference universe on the day; score: the debate's weighed sum."]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
