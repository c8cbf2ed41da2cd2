"""Watchlists, schedules, channels and deliveries through the real app on SQLite and the local PostgreSQL, with
fake peers and a recording notification sender: CRUD, validation by name, privacy between clients, a run's batch
and its notification (stored in the outbox when the batch ends, sent, the same id on each attempt), what changed
since the previous run, schedules' next slots and exactly-once firing by two coordinators on one database,
retries and a failed delivery retried by hand."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import pytest
from coordinator_fakes import FakeBarsGateway, FakeExpertGateway, FakeJudgeGateway, verdict
from coordinator_persistence_fakes import LAST_BAR_DAY, coordinator_on_store

from coordinator.domain.model.channel import Channel
from coordinator.domain.model.enums import ExpertType
from coordinator.domain.model.notification import Notification
from coordinator.domain.ports.notification_sender import INotificationSender, SendFailedError
from service_kit.api_keys import hash_key
from shared_contracts.scoring import DailyBar

API = "/api/v1/coordinator"
SYMBOLS = ["600519.SH", "000001.SZ", "300750.SZ"]
KEYS = {"alice": "sr_alice-key-0123456789abcdef", "bob": "sr_bob-key-0123456789abcdef"}
SERVICE_KEY = "sr_coordinator-service-key-0123"
API_KEYS = ",".join([f"{c}={hash_key(k)}" for c, k in KEYS.items()] + [f"coordinator={hash_key(SERVICE_KEY)}:service"])
WEBHOOK = {"kind": "webhook", "target": "https://hooks.example.com/research"}


class RecordingSender(INotificationSender):
    """Records each message sent; the first ``failures`` attempts fail (retryable, ``retry_after`` 0)."""

    def __init__(self, failures: int = 0, permanent: bool = False) -> None:
        self.sent: list[tuple[Channel, Notification, str]] = []
        self.attempts: list[str] = []
        self.failures = failures
        self.permanent = permanent

    async def send(self, channel: Channel, notification: Notification, *, message_id: str, sent_at: datetime) -> int:
        self.attempts.append(message_id)
        if self.failures > 0:
            self.failures -= 1
            raise SendFailedError("HTTP 503 from hooks.example.com", status_code=503, permanent=self.permanent)
        self.sent.append((channel, notification, message_id))
        return 200


class ScoreJudge(FakeJudgeGateway):
    """Scores from ``scores`` (changed between runs by the test); BUY above 0.3, SELL below -0.3."""

    def __init__(self) -> None:
        super().__init__()
        self.scores = {"600519.SH": 0.6, "000001.SZ": 0.1, "300750.SZ": -0.5}

    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        score = self.scores.get(symbol, 0.0)
        action = "BUY" if score > 0.3 else "SELL" if score < -0.3 else "HOLD"
        return {**verdict(symbol), "score": score, "universe_rank": (score + 1) / 2, "action": action}


@asynccontextmanager
async def coordinator(
    url: str, sender: INotificationSender | None = None, judge: FakeJudgeGateway | None = None, **settings: Any
) -> AsyncIterator[httpx.AsyncClient]:
    defaults = {"delivery_poll_seconds": 0.05, "delivery_retry_base_seconds": 0.01, "schedule_poll_seconds": 0.1}
    async with coordinator_on_store(
        url,
        judge_gateway=judge or ScoreJudge(),
        notification_sender=sender or RecordingSender(),
        **{**defaults, **settings},
    ) as client:
        yield client


async def until(client: httpx.AsyncClient, path: str, done: Any, **kwargs: Any) -> dict[str, Any]:
    for _ in range(300):
        body: dict[str, Any] = (await client.get(path, **kwargs)).json()
        if done(body):
            return body
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never got there: {body}")


def ended(body: dict[str, Any]) -> bool:
    return body["status"] not in ("queued", "running")


def all_delivered(page: dict[str, Any]) -> bool:
    return all(d["status"] == "delivered" for d in page["items"])


async def test_a_watchlist_is_created_read_changed_listed_and_deleted(fresh_url: str) -> None:
    async with coordinator(fresh_url) as client:
        created = await client.post(f"{API}/watchlists", json={"name": " Core  holdings ", "symbols": SYMBOLS})
        watchlist_id = created.json()["watchlist_id"]
        read = (await client.get(created.headers["Location"])).json()
        changed = await client.put(
            f"{API}/watchlists/{watchlist_id}", json={"name": "Core", "symbols": ["600519.sh", "600519.SH"]}
        )
        listed = (await client.get(f"{API}/watchlists")).json()
        deleted = await client.delete(f"{API}/watchlists/{watchlist_id}")
        gone = await client.get(f"{API}/watchlists/{watchlist_id}")

    assert created.status_code == 201, created.text
    assert created.headers["Location"] == f"{API}/watchlists/{watchlist_id}"
    assert read["name"] == "Core holdings"
    assert read["symbols"] == SYMBOLS
    assert read["links"]["run"] == f"{API}/watchlists/{watchlist_id}/run"
    assert changed.status_code == 200
    assert changed.json()["symbols"] == ["600519.SH"]
    assert [w["name"] for w in listed["items"]] == ["Core"]
    assert deleted.status_code == 204
    assert gone.status_code == 404
    assert gone.json()["code"] == "watchlist_not_found"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": "x", "symbols": ["600519.SH", "999999.SZ", "888888.SH"]}, 400, "unknown_symbols"),
        ({"name": "x", "symbols": ["600519.SH", "not a symbol!"]}, 400, "invalid_symbol"),
        ({"name": "x", "symbols": []}, 400, "symbols_empty"),
        ({"name": "   ", "symbols": ["600519.SH"]}, 400, "invalid_watchlist"),
        ({"name": "x", "symbols": ["600519.SH"] * 1001}, 413, "batch_too_large"),
    ],
)
async def test_a_bad_watchlist_is_refused_naming_what_is_wrong(
    sqlite_only_url: str, body: dict[str, Any], status: int, code: str
) -> None:
    async with coordinator(sqlite_only_url) as client:
        answer = await client.post(f"{API}/watchlists", json=body)

    assert answer.status_code == status, answer.text
    assert answer.json()["code"] == code
    if code == "unknown_symbols":
        assert answer.json()["unknown_symbols"] == ["999999.SZ", "888888.SH"]
        assert "999999.SZ, 888888.SH" in answer.json()["detail"]
    if code == "invalid_symbol":
        assert "symbols[1]" in answer.json()["detail"]


async def test_a_name_is_unique_per_client_and_each_client_sees_only_its_own(fresh_url: str) -> None:
    alice, bob = ({"Authorization": f"Bearer {KEYS[c]}"} for c in ("alice", "bob"))
    async with coordinator(fresh_url, auth_mode="api_key", api_keys=API_KEYS, service_api_key=SERVICE_KEY) as client:
        mine = await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS}, headers=alice)
        again = await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS}, headers=alice)
        theirs = await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS}, headers=bob)
        url = mine.headers["Location"]
        channel = await client.post(f"{API}/channels", json=WEBHOOK, headers=alice)
        seen_by_bob = [
            await client.get(url, headers=bob),
            await client.put(url, json={"name": "Mine", "symbols": SYMBOLS}, headers=bob),
            await client.post(f"{url}/run", json={}, headers=bob),
            await client.delete(url, headers=bob),
            await client.post(f"{url}/schedules", json={"cron": "0 18 * * 1-5"}, headers=bob),
            await client.get(channel.headers["Location"], headers=bob),
            await client.post(f"{channel.headers['Location']}/test", headers=bob),
        ]
        bobs_list = (await client.get(f"{API}/watchlists", headers=bob)).json()
        bobs_channels = (await client.get(f"{API}/channels", headers=bob)).json()
        bob_uses_alices_channel = await client.post(
            f"{theirs.headers['Location']}/run", json={"channels": [channel.json()["channel_id"]]}, headers=bob
        )

    assert mine.status_code == theirs.status_code == 201
    assert again.status_code == 409
    assert again.json()["code"] == "watchlist_name_taken"
    assert [a.status_code for a in seen_by_bob] == [404] * 7
    assert [w["watchlist_id"] for w in bobs_list["items"]] == [theirs.json()["watchlist_id"]]
    assert bobs_channels["items"] == []
    assert bob_uses_alices_channel.status_code == 400
    assert bob_uses_alices_channel.json()["code"] == "invalid_schedule"


async def test_a_run_is_a_batch_as_of_the_last_day_with_data_and_its_channels_get_one_message_each(
    fresh_url: str,
) -> None:
    sender = RecordingSender()
    async with coordinator(fresh_url, sender=sender) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await client.post(f"{API}/channels", json=WEBHOOK)).json()
        mail = (await client.post(f"{API}/channels", json={"kind": "email", "target": "a@example.com"})).json()
        run = await client.post(watchlist["links"]["run"], json={"channels": [hook["channel_id"], mail["channel_id"]]})
        batch = await until(client, run.headers["Location"], ended)
        deliveries = await until(
            client,
            f"{API}/deliveries",
            lambda b: b["total"] == 2 and all(d["status"] == "delivered" for d in b["items"]),
        )
        runs = (await client.get(f"{API}/batches", params={"watchlist_id": watchlist["watchlist_id"]})).json()
        read = (await client.get(watchlist["links"]["self"])).json()

    assert run.status_code == 202, run.text
    assert batch["analysis_date"] == LAST_BAR_DAY
    assert batch["watchlist_id"] == watchlist["watchlist_id"]
    assert batch["previous_batch_id"] is None
    assert [i["symbol"] for i in batch["items"]] == ["600519.SH", "000001.SZ", "300750.SZ"]
    assert [r["batch_id"] for r in runs["items"]] == [batch["batch_id"]]
    assert read["last_batch_id"] == batch["batch_id"]
    assert {d["channel_id"] for d in deliveries["items"]} == {hook["channel_id"], mail["channel_id"]}
    assert all(d["attempts"] == 1 and d["batch_id"] == batch["batch_id"] for d in deliveries["items"])
    assert len(sender.sent) == 2
    _, message, message_id = sender.sent[0]
    assert message_id in {d["delivery_id"] for d in deliveries["items"]}
    assert message.type == "watchlist.run.completed"
    assert message.watchlist_name == "Core"
    assert message.analysis_date == LAST_BAR_DAY
    assert [r.symbol for r in message.top] == ["600519.SH", "000001.SZ", "300750.SZ"]
    assert message.top[0].action == "BUY"
    assert message.changes == []  # the first run
    assert message.link is not None
    assert message.link.endswith(f"/console/#/batches/{batch['batch_id']}")


async def test_the_second_run_says_what_changed_since_the_first(sqlite_only_url: str) -> None:
    sender, judge = RecordingSender(), ScoreJudge()
    async with coordinator(sqlite_only_url, sender=sender, judge=judge) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await client.post(f"{API}/channels", json=WEBHOOK)).json()
        first = await client.post(watchlist["links"]["run"], json={"analysis_date": "2025-06-30"})
        await until(client, first.headers["Location"], ended)
        judge.scores = {"600519.SH": -0.6, "000001.SZ": 0.5, "300750.SZ": -0.5}
        second = await client.post(
            watchlist["links"]["run"], json={"analysis_date": "2025-07-31", "channels": [hook["channel_id"]]}
        )
        batch = await until(client, second.headers["Location"], ended)
        await until(client, f"{API}/deliveries", lambda b: b["items"] and b["items"][0]["status"] == "delivered")

    message = sender.sent[0][1]
    assert batch["previous_batch_id"] == first.json()["batch_id"]
    assert message.previous_analysis_date == "2025-06-30"
    changes = {(c.kind, c.symbol, c.previous, c.action) for c in message.changes}
    assert changes == {("flip", "600519.SH", "BUY", "SELL"), ("new_buy", "000001.SZ", "HOLD", "BUY")}


async def test_a_failed_attempt_is_retried_later_under_the_same_id_and_delivered_once(sqlite_only_url: str) -> None:
    sender = RecordingSender(failures=2)
    async with coordinator(sqlite_only_url, sender=sender) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await client.post(f"{API}/channels", json=WEBHOOK)).json()
        await client.post(watchlist["links"]["run"], json={"channels": [hook["channel_id"]]})
        done = await until(client, f"{API}/deliveries", lambda b: b["items"] and b["items"][0]["status"] == "delivered")

    delivery = done["items"][0]
    assert delivery["attempts"] == 3
    assert sender.attempts == [delivery["delivery_id"]] * 3
    assert len(sender.sent) == 1


async def test_attempts_spent_end_failed_visible_and_retried_by_hand(fresh_url: str) -> None:
    sender = RecordingSender(failures=3)
    async with coordinator(fresh_url, sender=sender, delivery_max_attempts=3) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await client.post(f"{API}/channels", json=WEBHOOK)).json()
        await client.post(watchlist["links"]["run"], json={"channels": [hook["channel_id"]]})
        failed = await until(client, f"{API}/deliveries", lambda b: b["total"] == 1, params={"status": "failed"})
        delivery_id = failed["items"][0]["delivery_id"]
        not_failed_yet = await client.post(f"{API}/deliveries/{delivery_id}/retry")
        retried = not_failed_yet  # the first retry is the one that counts
        delivered = await until(client, f"{API}/deliveries/{delivery_id}", lambda b: b["status"] == "delivered")
        again = await client.post(f"{API}/deliveries/{delivery_id}/retry")
        missing = await client.post(f"{API}/deliveries/no-such-delivery/retry")

    assert failed["items"][0]["attempts"] == 3
    assert failed["items"][0]["last_status_code"] == 503
    assert "HTTP 503" in failed["items"][0]["last_error"]
    assert retried.status_code == 202
    assert delivered["attempts"] == 1
    assert sender.attempts == [delivery_id] * 4
    assert again.status_code == 409
    assert again.json()["code"] == "delivery_not_failed"
    assert missing.status_code == 404


async def test_a_refusal_for_good_fails_at_once(sqlite_only_url: str) -> None:
    sender = RecordingSender(failures=1, permanent=True)
    async with coordinator(sqlite_only_url, sender=sender) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await client.post(f"{API}/channels", json=WEBHOOK)).json()
        await client.post(watchlist["links"]["run"], json={"channels": [hook["channel_id"]]})
        failed = await until(client, f"{API}/deliveries", lambda b: b["total"] == 1, params={"status": "failed"})

    assert failed["items"][0]["attempts"] == 1


async def test_a_channels_secret_is_never_shown_back_and_chat_urls_are_masked(sqlite_only_url: str) -> None:
    slack_url = "https://hooks.slack.com/services/T000/B000/SECRETPATHabcd"
    async with coordinator(sqlite_only_url) as client:
        generated = await client.post(f"{API}/channels", json=WEBHOOK)
        given = await client.post(f"{API}/channels", json={**WEBHOOK, "secret": "whsec_" + "QUJD" * 8})
        slack = await client.post(f"{API}/channels", json={"kind": "slack", "target": slack_url})
        telegram = await client.post(
            f"{API}/channels",
            json={"kind": "telegram", "target": "-1001234567890", "secret": "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
        )
        listed = (await client.get(f"{API}/channels")).text
        read = (await client.get(telegram.headers["Location"])).json()
        tested = (await client.post(f"{generated.headers['Location']}/test")).json()
        bad = [
            await client.post(f"{API}/channels", json=body)
            for body in (
                {"kind": "webhook", "target": "ftp://example.com"},
                {"kind": "webhook", "target": "https://example.com", "secret": "not-a-secret"},
                {"kind": "telegram", "target": "-100123"},
                {"kind": "email", "target": "nobody"},
                {"kind": "slack", "target": slack_url, "secret": "x"},
            )
        ]

    assert generated.status_code == 201
    assert generated.json()["secret"].startswith("whsec_")
    assert generated.json()["has_secret"] is True
    assert given.json()["secret"] is None  # given, so not shown back
    assert slack.json()["target"] == "https://hooks.slack.com/…abcd"
    assert read["has_secret"] is True
    assert "secret" not in read
    for hidden in (generated.json()["secret"], "QUJD" * 8, "SECRETPATH", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
        assert hidden not in listed
    assert tested == {"delivered": True, "status_code": 200, "error": None}
    assert [b.status_code for b in bad] == [400] * 5
    assert {b.json()["code"] for b in bad} == {"invalid_channel"}


async def test_a_schedule_shows_its_next_slots_on_trading_days_and_refuses_bad_input(sqlite_only_url: str) -> None:
    async with coordinator(sqlite_only_url) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        schedules = watchlist["links"]["schedules"]
        created = await client.post(schedules, json={"cron": "0 18 * * *"})
        read = (await client.get(created.headers["Location"])).json()
        listed = (await client.get(schedules)).json()
        bad = [
            await client.post(schedules, json=body)
            for body in (
                {"cron": "* * * *"},
                {"cron": "0 18 * * *", "timezone": "Mars/Olympus"},
                {"cron": "0 18 * * *", "calendar": "NOPE"},
                {"cron": "0 18 * * *", "channels": ["no-such-channel"]},
            )
        ]
        deleted = await client.delete(created.headers["Location"])
        gone = await client.get(created.headers["Location"])

    assert created.status_code == 201, created.text
    assert read["timezone"] == "Asia/Shanghai"
    assert read["trading_days_only"] is True
    assert len(read["next_fire_times"]) == 5
    for slot in read["next_fire_times"]:
        fire = datetime.fromisoformat(slot).astimezone(UTC)
        assert (fire.hour, fire.minute) == (10, 0)  # 18:00 in Shanghai
        assert fire.weekday() < 5
    assert [s["schedule_id"] for s in listed["items"]] == [read["schedule_id"]]
    assert [b.status_code for b in bad] == [400] * 4
    assert all(b.json()["code"] == "invalid_schedule" for b in bad)
    assert "Mars/Olympus" in bad[1].json()["detail"]
    assert deleted.status_code == 204
    assert gone.status_code == 404
    assert gone.json()["code"] == "schedule_not_found"


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


async def test_two_coordinators_fire_an_every_minute_schedule_once_per_minute(fresh_url: str) -> None:
    """Both coordinators poll every 50 ms on one database while their clock moves a minute at a time (ahead of the
    real one, which dates the outbox's rows): each minute's slot starts exactly one batch, and its notification is
    delivered once."""
    clock = Clock(datetime.now(UTC).replace(second=10, microsecond=0) + timedelta(minutes=1))
    sender = RecordingSender()
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(
            coordinator(fresh_url, sender=sender, clock=clock, schedule_poll_seconds=0.05)
        )
        await stack.enter_async_context(coordinator(fresh_url, sender=sender, clock=clock, schedule_poll_seconds=0.05))
        watchlist = (await first.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await first.post(f"{API}/channels", json=WEBHOOK)).json()
        created = await first.post(
            watchlist["links"]["schedules"],
            json={"cron": "* * * * *", "trading_days_only": False, "channels": [hook["channel_id"]]},
        )
        for minute in range(1, 4):
            await asyncio.sleep(0.5)  # ten polls of each coordinator within the minute
            clock.now += timedelta(minutes=1) if minute < 3 else timedelta(seconds=0)
        schedule = await until(first, created.headers["Location"], lambda b: len(b["last_runs"]) == 3)
        runs = await until(
            first,
            f"{API}/batches",
            lambda b: b["total"] == 3 and all(ended(i) for i in b["items"]),
            params={"watchlist_id": watchlist["watchlist_id"]},
        )
        await until(
            first, f"{API}/deliveries", lambda b: b["total"] == 3 and {d["status"] for d in b["items"]} == {"delivered"}
        )

    slots = [r["slot"] for r in schedule["last_runs"]]
    start = clock.now - timedelta(minutes=2, seconds=10)
    assert [datetime.fromisoformat(s) for s in slots] == [start + timedelta(minutes=m) for m in (2, 1, 0)]
    assert {r["batch_id"] for r in schedule["last_runs"]} == {b["batch_id"] for b in runs["items"]}
    assert all(r["error"] is None for r in schedule["last_runs"])
    assert len(sender.sent) == 3
    assert len({message_id for *_, message_id in sender.sent}) == 3


class DatedExperts(FakeExpertGateway):
    """The technical analyst's ``as_of`` is the research's analysis date (its last close)."""

    async def run_expert(
        self, expert_type: ExpertType, symbol: str, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        result = await super().run_expert(expert_type, symbol, options)
        day = getattr(options, "analysis_date", None)
        return {**result, "as_of": day.isoformat()} if day is not None else result


def bars(*days: tuple[str, float, float, float]) -> list[DailyBar]:
    """(day, low, high, close) bars opening at 100."""
    return [DailyBar(date.fromisoformat(d), 100.0, high, low, close) for d, low, high, close in days]


async def test_the_previous_runs_calls_that_touched_their_stop_or_target_are_told(sqlite_only_url: str) -> None:
    """BUY 600519.SH (target +15 %) and SELL 300750.SZ (stop 8 % above, a SELL's stop) on 2025-06-30; by the
    second run (2025-07-31) the first touched its target on 07-02 and the second its stop on 07-03; 000001.SZ (HOLD)
    is not a call."""
    series = {
        "600519.SH": bars(("2025-06-30", 99, 101, 100), ("2025-07-01", 99, 101, 100), ("2025-07-02", 100, 120, 116)),
        "300750.SZ": bars(("2025-06-30", 99, 101, 100), ("2025-07-01", 99, 101, 100), ("2025-07-03", 100, 110, 109)),
        "000001.SZ": bars(("2025-06-30", 99, 101, 100), ("2025-07-01", 99, 130, 125)),
    }
    sender = RecordingSender()
    async with coordinator_on_store(
        sqlite_only_url,
        research_gateway=DatedExperts(),
        judge_gateway=ScoreJudge(),
        bars_gateway=FakeBarsGateway(series),
        notification_sender=sender,
        delivery_poll_seconds=0.05,
    ) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        hook = (await client.post(f"{API}/channels", json=WEBHOOK)).json()
        first = await client.post(watchlist["links"]["run"], json={"analysis_date": "2025-06-30"})
        await until(client, first.headers["Location"], ended)
        await client.post(
            watchlist["links"]["run"], json={"analysis_date": "2025-07-31", "channels": [hook["channel_id"]]}
        )
        await until(client, f"{API}/deliveries", lambda b: b["items"] and all_delivered(b))

    hits = {(c.kind, c.symbol, c.action, c.price, c.day) for c in sender.sent[0][1].changes}
    assert ("target_hit", "600519.SH", "BUY", 115.0, "2025-07-02") in hits
    assert ("stop_hit", "300750.SZ", "SELL", 108.0, "2025-07-03") in hits
    assert not any(symbol == "000001.SZ" for _, symbol, *_ in hits)


async def test_a_run_may_name_its_language_and_another_is_a_400(fresh_url: str) -> None:
    """Issue 51: a watchlist's run is a batch, every item in the language the run names."""
    async with coordinator(fresh_url) as client:
        watchlist = (await client.post(f"{API}/watchlists", json={"name": "Core", "symbols": SYMBOLS})).json()
        refused = await client.post(watchlist["links"]["run"], json={"language": "es"})
        run = await client.post(watchlist["links"]["run"], json={"language": "en"})
        batch = await until(client, run.headers["Location"], ended)
        languages = [
            (await client.get(f"{API}/sessions/{item['session_id']}")).json()["language"] for item in batch["items"]
        ]
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_language")
    assert run.status_code == 202, run.text
    assert languages == ["en", "en", "en"]
