"""The daily loop end to end over real sockets: two coordinators on one database, an every-minute schedule (trading
days off) whose slot fires once, and its notification delivered once to each kind of channel — a webhook receiver
that checks the Standard Webhooks signature with the reference library, Slack, Feishu (its sign recomputed), WeCom
and Telegram fakes, and a local SMTP server; a receiver down for the first attempts (delivered later, once) and down
for good (failed, then retried by hand)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx
import pytest
from coordinator_persistence_fakes import coordinator_on_store
from notification_receivers import TELEGRAM_TOKEN, Inbox, Receiver, smtp_inbox
from standardwebhooks.webhooks import Webhook

API = "/api/v1/coordinator"
SYMBOLS = ["600519.SH", "000001.SZ", "300750.SZ"]
FEISHU_SECRET = "feishu-signing-secret"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as running:
        yield running


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    with smtp_inbox() as running:
        yield running


@asynccontextmanager
async def coordinator(
    url: str, receiver: Receiver, smtp_port: int, **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    values = {
        "delivery_poll_seconds": 0.05,
        "delivery_retry_base_seconds": 0.05,
        "schedule_poll_seconds": 0.05,
        "telegram_api_base": f"{receiver.url}/telegram",
        "smtp_host": "127.0.0.1",
        "smtp_port": smtp_port,
        "smtp_from": "Stock research <robot@example.com>",
        "smtp_starttls": False,
        **settings,
    }
    async with coordinator_on_store(url, **values) as client:
        yield client


async def until(client: httpx.AsyncClient, path: str, done: Any, **kwargs: Any) -> dict[str, Any]:
    for _ in range(500):
        body: dict[str, Any] = (await client.get(path, **kwargs)).json()
        if done(body):
            return body
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never got there: {body}")


async def channels(client: httpx.AsyncClient, receiver: Receiver) -> dict[str, dict[str, Any]]:
    bodies = {
        "webhook": {"kind": "webhook", "target": f"{receiver.url}/webhook", "language": "en"},
        "slack": {"kind": "slack", "target": f"{receiver.url}/slack"},
        "feishu": {"kind": "feishu", "target": f"{receiver.url}/feishu", "secret": FEISHU_SECRET},
        "wecom": {"kind": "wecom", "target": f"{receiver.url}/wecom"},
        "telegram": {"kind": "telegram", "target": "-1001234567890", "secret": TELEGRAM_TOKEN},
        "email": {"kind": "email", "target": "ann@example.com", "language": "en"},
    }
    made = {}
    for kind, body in bodies.items():
        answer = await client.post(f"{API}/channels", json=body)
        assert answer.status_code == 201, answer.text
        made[kind] = answer.json()
    return made


async def test_an_every_minute_slot_fires_once_on_two_coordinators_and_reaches_every_kind_of_channel(
    fresh_url: str, receiver: Receiver, inbox: tuple[Inbox, int]
) -> None:
    mail, smtp_port = inbox
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(coordinator(fresh_url, receiver, smtp_port))
        await stack.enter_async_context(coordinator(fresh_url, receiver, smtp_port))
        made = await channels(first, receiver)
        watchlist = (await first.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        schedule = await first.post(
            watchlist["links"]["schedules"],
            json={
                "cron": "* * * * *",
                "trading_days_only": False,
                "channels": [c["channel_id"] for c in made.values()],
            },
        )
        # the slot of the minute the schedule was made in fires at once, on whichever coordinator polls first
        deliveries = await until(
            first, f"{API}/deliveries", lambda b: b["total"] == 6 and {d["status"] for d in b["items"]} == {"delivered"}
        )
        await asyncio.sleep(0.5)  # ten more polls of each coordinator within the minute: nothing fires again
        read = (await first.get(schedule.headers["Location"])).json()
        runs = (await first.get(f"{API}/batches", params={"watchlist_id": watchlist["watchlist_id"]})).json()

    assert runs["total"] == 1
    assert len(read["last_runs"]) == 1
    assert read["last_runs"][0]["batch_id"] == runs["items"][0]["batch_id"]
    assert all(d["attempts"] == 1 for d in deliveries["items"])
    by_channel = {d["channel_id"]: d["delivery_id"] for d in deliveries["items"]}
    for kind in ("webhook", "slack", "feishu", "wecom", "telegram"):
        assert len(receiver.of(kind)) == 1, kind
    assert len(mail.envelopes) == 1

    hook = receiver.of("webhook")[0]
    payload = Webhook(made["webhook"]["secret"]).verify(hook.body, hook.headers)  # raises when the signature is bad
    assert hook.headers["webhook-id"] == by_channel[made["webhook"]["channel_id"]]
    assert payload["type"] == "watchlist.run.completed"
    assert payload["data"]["batch_id"] == runs["items"][0]["batch_id"]
    assert [r["symbol"] for r in payload["data"]["top"]] == runs_symbols(payload)

    feishu = json.loads(receiver.of("feishu")[0].body)
    key = f"{feishu['timestamp']}\n{FEISHU_SECRET}".encode()
    assert feishu["sign"] == base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
    assert "Core" in json.dumps(feishu, ensure_ascii=False)
    slack = json.loads(receiver.of("slack")[0].body)
    assert slack["text"]
    assert slack["blocks"]
    wecom = json.loads(receiver.of("wecom")[0].body)
    assert wecom["msgtype"] == "markdown"
    assert "600519.SH" in wecom["markdown"]["content"]
    telegram = receiver.of("telegram")[0]
    assert telegram.path == f"/telegram/bot{TELEGRAM_TOKEN}/sendMessage"
    sent = json.loads(telegram.body)
    assert (sent["chat_id"], sent["parse_mode"]) == ("-1001234567890", "HTML")
    message = mail.messages()[0]
    assert message["To"] == "ann@example.com"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
    assert "Watchlist Core" in message["Subject"]


def runs_symbols(payload: dict[str, Any]) -> list[str]:
    """The top rows' symbols in the ranked table's order (by rank)."""
    return [r["symbol"] for r in sorted(payload["data"]["top"], key=lambda r: r["rank"])]


async def test_a_receiver_down_for_the_first_attempts_gets_the_message_later_once(
    sqlite_only_url: str, receiver: Receiver, inbox: tuple[Inbox, int]
) -> None:
    receiver.plan["webhook"] = [503, 502]
    async with coordinator(sqlite_only_url, receiver, inbox[1]) as client:
        hook = (
            await client.post(f"{API}/channels", json={"kind": "webhook", "target": f"{receiver.url}/webhook"})
        ).json()
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        await client.post(watchlist["links"]["run"], json={"channels": [hook["channel_id"]]})
        done = await until(
            client, f"{API}/deliveries", lambda b: b["total"] == 1 and b["items"][0]["status"] == "delivered"
        )

    delivery = done["items"][0]
    requests = receiver.of("webhook")
    assert delivery["attempts"] == 3
    assert [r.headers["webhook-id"] for r in requests] == [delivery["delivery_id"]] * 3  # one message, three tries
    for request in requests:
        Webhook(hook["secret"]).verify(request.body, request.headers)
    assert len({r.body for r in requests}) == 1  # the same message each time


async def test_a_receiver_down_for_good_ends_failed_and_a_retry_by_hand_delivers_it(
    fresh_url: str, receiver: Receiver, inbox: tuple[Inbox, int]
) -> None:
    receiver.plan["slack"] = [500, 500, 500]
    async with coordinator(fresh_url, receiver, inbox[1], delivery_max_attempts=3) as client:
        slack = (await client.post(f"{API}/channels", json={"kind": "slack", "target": f"{receiver.url}/slack"})).json()
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        await client.post(watchlist["links"]["run"], json={"channels": [slack["channel_id"]]})
        failed = await until(client, f"{API}/deliveries", lambda b: b["total"] == 1, params={"status": "failed"})
        delivery_id = failed["items"][0]["delivery_id"]
        retried = await client.post(f"{API}/deliveries/{delivery_id}/retry")
        delivered = await until(client, f"{API}/deliveries/{delivery_id}", lambda b: b["status"] == "delivered")

    assert failed["items"][0]["attempts"] == 3
    assert failed["items"][0]["last_status_code"] == 500
    assert retried.status_code == 202
    assert delivered["attempts"] == 1
    assert len(receiver.of("slack")) == 4


async def test_a_bot_token_in_the_url_is_never_shown_stored_in_an_error_or_logged(
    sqlite_only_url: str, receiver: Receiver, inbox: tuple[Inbox, int], caplog: pytest.LogCaptureFixture
) -> None:
    receiver.plan["telegram"] = [500]
    receiver.plan["slack"] = [404]
    slack_url = f"{receiver.url}/slack?key=SLACKSECRETKEY123"
    caplog.set_level("DEBUG")
    async with coordinator(sqlite_only_url, receiver, inbox[1], delivery_max_attempts=1) as client:
        telegram = await client.post(
            f"{API}/channels", json={"kind": "telegram", "target": "-1001234567890", "secret": TELEGRAM_TOKEN}
        )
        slack = await client.post(f"{API}/channels", json={"kind": "slack", "target": slack_url})
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        ids = [telegram.json()["channel_id"], slack.json()["channel_id"]]
        await client.post(watchlist["links"]["run"], json={"channels": ids})
        failed = await until(client, f"{API}/deliveries", lambda b: b["total"] == 2, params={"status": "failed"})
        shown = (await client.get(f"{API}/channels")).text + json.dumps(failed)

    token_part = TELEGRAM_TOKEN.split(":")[1]
    assert {d["last_status_code"] for d in failed["items"]} == {500, 404}
    for secret in (token_part, "SLACKSECRETKEY123"):
        assert secret not in shown
        assert secret not in caplog.text
