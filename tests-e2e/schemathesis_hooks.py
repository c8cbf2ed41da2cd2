"""Schemathesis hooks of ``test_schemathesis``: the rules between fields that JSON Schema cannot state, kept by
the *positive* test cases (the ones the ``positive_data_acceptance`` check expects to be accepted).

Each rule is one the services document in prose and refuse with a 400 naming it (``invalid_date_range``,
``conflicting_analysis_date``, ``analysis_date_in_future``, ``invalid_options``, ...). A positive case that
breaks one is made to keep it, changing as little as possible (two dates in order, a date not after today, the
options of the requested experts only); the other fields stay as generated. Negative cases are left alone:
breaking these rules is one more way of being refused.

Loaded by the schemathesis CLI from ``SCHEMATHESIS_HOOKS`` (a path to this file); nothing else imports it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, MutableMapping
from typing import Any

import schemathesis
from pydantic import ValidationError

from shared_contracts.experts import EXPERT_OPTION_MODELS, ExpertType, is_iso_date

Fix = Callable[[schemathesis.Case], None]


def _today() -> str:
    return dt.date.today().isoformat()


def _not_after_today(container: MutableMapping[str, Any] | None, key: str) -> None:
    """``analysis_date_in_future``: a research is made as of a day that has happened."""
    if isinstance(container, MutableMapping) and is_iso_date(container.get(key)) and container[key] > _today():
        container[key] = _today()


def _in_order(container: MutableMapping[str, Any] | None, first: str, last: str) -> None:
    """``invalid_date_range`` / ``intrinsic_value_low must not be above intrinsic_value_high``: swap them."""
    if not isinstance(container, MutableMapping):
        return
    low, high = container.get(first), container.get(last)
    if isinstance(low, str) and isinstance(high, str):
        low, high = low.strip(), high.strip()
        if not (is_iso_date(low) and is_iso_date(high)):
            return
    elif not (isinstance(low, int | float) and isinstance(high, int | float)):
        return
    if low > high:
        container[first], container[last] = container[last], container[first]


def _research_expert(case: schemathesis.Case) -> None:
    """``POST /api/v1/research/experts/{expert_type}``: ``options`` are the options of the expert in the path
    (``invalid_options``), their ``analysis_date`` is the body's when both are given
    (``conflicting_analysis_date``), and neither is after today."""
    body = case.body
    expert = (case.path_parameters or {}).get("expert_type")
    if not isinstance(body, MutableMapping) or expert not in set(ExpertType):
        return
    options = body.get("options")
    if options is not None:
        try:
            EXPERT_OPTION_MODELS[ExpertType(expert)].model_validate(options)
        except ValidationError:
            body["options"] = options = {}
    _not_after_today(body, "analysis_date")
    _not_after_today(options, "analysis_date")
    if isinstance(options, MutableMapping) and body.get("analysis_date") and options.get("analysis_date"):
        options["analysis_date"] = body["analysis_date"]


def _coordinator_research(case: schemathesis.Case) -> None:
    """``POST /api/v1/coordinator/research``: ``options`` name only requested experts (``invalid_options``); the
    technical analyst's ``analysis_date`` is the top-level one when both are given
    (``conflicting_analysis_date``); neither is after today."""
    body = case.body
    if not isinstance(body, MutableMapping):
        return
    _not_after_today(body, "analysis_date")
    options = body.get("options")
    if isinstance(options, MutableMapping):
        requested = set(body.get("experts") or [])
        for name in [name for name in options if name not in requested]:
            del options[name]
        technical = options.get(ExpertType.TECHNICAL_ANALYST.value)
        _not_after_today(technical, "analysis_date")
        if isinstance(technical, MutableMapping) and body.get("analysis_date") and technical.get("analysis_date"):
            technical["analysis_date"] = body["analysis_date"]


def _each_item(fix: Callable[[Any], None]) -> Fix:
    """A bulk body's rule: ``fix`` applied to each of its ``items``."""

    def fixed(case: schemathesis.Case) -> None:
        items = case.body.get("items") if isinstance(case.body, MutableMapping) else None
        for item in items if isinstance(items, list) else []:
            fix(item)

    return fixed


def _failed_not_answered(body: Any) -> None:
    """A debate's ``failed_experts`` has no result in its ``expert_results``."""
    if isinstance(body, MutableMapping) and isinstance(body.get("failed_experts"), list):
        answered = set(body.get("expert_results") or {})
        body["failed_experts"] = [name for name in body["failed_experts"] if name not in answered]


def _judge_input(body: Any) -> None:
    """A verdict's intrinsic values in order; a ``universe_rank`` only with the ``score`` it ranks."""
    if not isinstance(body, MutableMapping):
        return
    _in_order(body, "intrinsic_value_low", "intrinsic_value_high")
    if body.get("universe_rank") is not None and body.get("score") is None:
        body["universe_rank"] = None


def _batch(case: schemathesis.Case) -> None:
    """``POST /api/v1/coordinator/batches``: a day that has happened."""
    _not_after_today(case.body if isinstance(case.body, MutableMapping) else None, "analysis_date")


KNOWN_SYMBOLS = ("600519.SH", "000001.SZ", "300750.SZ")
"""Symbols the offline universe has (a watchlist refuses others by name: 400 unknown_symbols)."""
CHANNEL_TARGETS = {
    "webhook": "https://example.com/hook",
    "slack": "https://hooks.slack.com/services/T0/B0/x",
    "feishu": "https://open.feishu.cn/open-apis/bot/v2/hook/x",
    "wecom": "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=x",
    "telegram": "-1001234567890",
    "email": "ann@example.com",
}


def _watchlist(case: schemathesis.Case) -> None:
    """A watchlist's symbols are ones the universe has, and its name is not blank (``invalid_watchlist``)."""
    body = case.body
    if not isinstance(body, MutableMapping):
        return
    if isinstance(body.get("symbols"), list):
        body["symbols"] = [s if s in KNOWN_SYMBOLS else KNOWN_SYMBOLS[i % 3] for i, s in enumerate(body["symbols"])]
    if isinstance(body.get("name"), str) and not body["name"].split():
        body["name"] = "Core"


def _channel(case: schemathesis.Case) -> None:
    """A channel's target fits its kind; a secret only where the kind takes one (a telegram bot's token)."""
    body = case.body
    if not isinstance(body, MutableMapping) or body.get("kind") not in CHANNEL_TARGETS:
        return
    body["target"] = CHANNEL_TARGETS[body["kind"]]
    if body["kind"] == "telegram":
        body["secret"] = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ0"
    elif body["kind"] != "feishu":
        body.pop("secret", None)


def _schedule(case: schemathesis.Case) -> None:
    """A schedule's cron is five fields that fire, in a time zone and on a calendar that exist; its channels the
    caller's (none is known here)."""
    body = case.body
    if not isinstance(body, MutableMapping):
        return
    body["cron"] = "0 18 * * 1-5"
    body["timezone"] = "Asia/Shanghai"
    body["calendar"] = "XSHG"
    body["channels"] = []


def _watchlist_run(case: schemathesis.Case) -> None:
    """A run's channels are the caller's (none is known here); its day has happened."""
    body = case.body
    if isinstance(body, MutableMapping):
        body["channels"] = []
        _not_after_today(body, "analysis_date")


FIXES: dict[tuple[str, str], Fix] = {
    ("POST", "/api/v1/coordinator/watchlists"): _watchlist,
    ("PUT", "/api/v1/coordinator/watchlists/{watchlist_id}"): _watchlist,
    ("POST", "/api/v1/coordinator/channels"): _channel,
    ("POST", "/api/v1/coordinator/watchlists/{watchlist_id}/schedules"): _schedule,
    ("POST", "/api/v1/coordinator/watchlists/{watchlist_id}/run"): _watchlist_run,
    ("POST", "/api/v1/research/experts/{expert_type}/bulk"): _research_expert,
    ("POST", "/api/v1/debate/run/bulk"): _each_item(_failed_not_answered),
    ("POST", "/api/v1/judge/verdict/bulk"): _each_item(_judge_input),
    ("POST", "/api/v1/coordinator/batches"): _batch,
    ("POST", "/api/v1/research/experts/{expert_type}"): _research_expert,
    ("GET", "/api/v1/research/bars/{symbol}"): lambda case: _in_order(case.query, "start", "end"),
    ("POST", "/api/v1/debate/run"): lambda case: _failed_not_answered(case.body),
    ("POST", "/api/v1/judge/verdict"): lambda case: _judge_input(case.body),
    ("POST", "/api/v1/coordinator/research"): _coordinator_research,
    ("GET", "/api/v1/coordinator/scorecard"): lambda case: _in_order(case.query, "start", "end"),
    ("GET", "/api/v1/coordinator/usage"): lambda case: _in_order(case.query, "start", "end"),
    ("GET", "/api/v1/coordinator/sessions"): lambda case: _in_order(
        case.query, "analysis_date_from", "analysis_date_to"
    ),
}


@schemathesis.hook
def map_case(context: schemathesis.HookContext, case: schemathesis.Case) -> schemathesis.Case:
    meta = case.meta
    if meta is not None and meta.generation.mode.is_positive:
        fix = FIXES.get((case.method.upper(), case.operation.path))
        if fix is not None:
            fix(case)
    return case
