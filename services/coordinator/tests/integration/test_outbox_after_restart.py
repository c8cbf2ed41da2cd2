"""Nothing is lost between a batch's end and its notification: a real coordinator process (``uvicorn --factory``)
on PostgreSQL ends a watchlist's run — its delivery stored in the outbox by the same transaction — and is killed
(SIGKILL) before its next outbox poll; a coordinator started afterwards sends the message, once, under the id the
outbox gave it, signed so that Standard Webhooks' reference check accepts it."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from coordinator_persistence_fakes import local_postgres_database
from coordinator_processes import CoordinatorProcess, FakePeers, wait_for
from notification_receivers import Receiver
from standardwebhooks.webhooks import Webhook

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

API = "/api/v1/coordinator"
QUIET_OUTBOX = {"DELIVERY_POLL_SECONDS": "60", "JOB_POLL_SECONDS": "0.2"}


def test_a_coordinator_killed_between_a_batchs_end_and_its_delivery_delivers_after_a_restart(tmp_path: Path) -> None:
    with local_postgres_database() as database, FakePeers() as peers, Receiver() as receiver:
        first = CoordinatorProcess(database, peers.url, tmp_path / "first.log", **QUIET_OUTBOX)
        first.start()
        try:
            with httpx.Client(base_url=first.url, timeout=10) as api:
                hook = api.post(f"{API}/channels", json={"kind": "webhook", "target": f"{receiver.url}/webhook"})
                watchlist = api.post(f"{API}/watchlists", json={"name": "Core", "symbols": ["600000.SH", "600001.SH"]})
                run = api.post(watchlist.json()["links"]["run"], json={"channels": [hook.json()["channel_id"]]})
                assert run.status_code == 202, run.text

                def ended() -> bool:
                    return api.get(run.headers["Location"]).json()["status"] not in ("queued", "running")

                wait_for(ended, "the watchlist's batch to end")
                pending = api.get(f"{API}/deliveries").json()["items"]
        finally:
            first.kill()  # SIGKILL: its outbox poll (every 60 s) never came round
        assert [(d["status"], d["attempts"]) for d in pending] == [("pending", 0)]
        assert receiver.requests == []

        second = CoordinatorProcess(database, peers.url, tmp_path / "second.log", DELIVERY_POLL_SECONDS="0.2")
        second.start()
        try:
            with httpx.Client(base_url=second.url, timeout=10) as api:
                wait_for(lambda: api.get(f"{API}/deliveries").json()["items"][0]["status"] == "delivered", "delivery")
                time.sleep(1.0)  # five more polls: nothing is sent again
                delivered = api.get(f"{API}/deliveries").json()["items"]
        finally:
            second.stop()

    assert [(d["delivery_id"], d["status"], d["attempts"]) for d in delivered] == [
        (pending[0]["delivery_id"], "delivered", 1)
    ]
    requests = receiver.of("webhook")
    assert len(requests) == 1
    assert requests[0].headers["webhook-id"] == pending[0]["delivery_id"]
    payload = Webhook(hook.json()["secret"]).verify(requests[0].body, requests[0].headers)
    assert payload["data"]["batch_id"] == run.json()["batch_id"]
    assert [r["symbol"] for r in payload["data"]["top"]] == ["600000.SH", "600001.SH"]  # unscored: as asked
