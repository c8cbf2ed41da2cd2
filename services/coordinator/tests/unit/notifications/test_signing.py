"""The webhook secret and signature (checked by Standard Webhooks' reference library) and Feishu's sign."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from coordinator.domain.exceptions import InvalidChannelError
from coordinator.domain.model.channel import new_webhook_secret, webhook_secret_bytes
from coordinator.infrastructure.notifications.signing import feishu_sign, webhook_headers


def test_a_generated_secret_is_whsec_and_24_random_bytes() -> None:
    secret = new_webhook_secret()
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{32}", secret)
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 24
    assert secret != new_webhook_secret()
    webhook_secret_bytes(secret)


@pytest.mark.parametrize(
    "secret",
    [
        "c2VjcmV0LXdpdGhvdXQtdGhlLXByZWZpeC0xMjM0NTY=",  # no prefix
        "whsec_not*base64!",
        "whsec_" + base64.b64encode(b"short").decode(),
        "whsec_" + base64.b64encode(bytes(65)).decode(),
        "whsec_",
    ],
)
def test_a_secret_that_cannot_sign_is_refused_without_being_repeated(secret: str) -> None:
    with pytest.raises(InvalidChannelError) as refused:
        webhook_secret_bytes(secret)
    assert refused.value.code == "invalid_channel"
    if key := secret.removeprefix("whsec_"):
        assert key not in str(refused.value)


def test_the_signature_is_verified_by_the_reference_library() -> None:
    secret = new_webhook_secret()
    body = '{"type":"channel.test","data":{"title":"测试"}}'.encode()
    timestamp = int(time.time())
    headers = webhook_headers(secret, "msg_2a1b", timestamp, body)
    assert headers["webhook-id"] == "msg_2a1b"
    assert headers["webhook-timestamp"] == str(timestamp)
    assert headers["webhook-signature"].startswith("v1,")
    assert Webhook(secret).verify(body, headers) == {"type": "channel.test", "data": {"title": "测试"}}
    with pytest.raises(WebhookVerificationError):
        Webhook(new_webhook_secret()).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body + b" ", headers)
    assert webhook_secret_bytes(secret) == base64.b64decode(secret.removeprefix("whsec_"))


def test_feishus_sign_is_hmac_sha256_keyed_with_timestamp_and_secret() -> None:
    # Feishu's custom-bot docs (Python): hmac.new(f"{timestamp}\n{secret}".encode(), digestmod=sha256) over nothing
    expected = base64.b64encode(hmac.new(b"1599360473\ndemo-secret", digestmod=hashlib.sha256).digest()).decode()
    assert feishu_sign("demo-secret", 1599360473) == expected
