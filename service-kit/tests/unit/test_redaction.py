"""Secrets masked wherever text leaves a service: ``redact_secrets`` itself, every string of every log line,
every problem detail; and connection failures described without the host."""

from __future__ import annotations

import json
import logging
import socket

import pytest
import structlog

from service_kit.logging import flush_logs
from service_kit.problems import problem_response
from shared_contracts.redaction import REDACTED, describe_connection_failure, redact_secrets

KEY = "sk-test-SECRET-123456"
OUR_KEY = "sr_Jx3kQ9vT0bLmZp2sWc7yRf5nHd8aGe1uXo4iKt6"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Incorrect API key provided: {KEY}.", f"Incorrect API key provided: {REDACTED}."),
        (f"Authorization: Bearer {KEY}", f"Authorization: {REDACTED}"),
        (f'{{"headers": {{"authorization": "Bearer {KEY}"}}}}', f'{{"headers": {{"authorization": "{REDACTED}"}}}}'),
        ("authorization=Basic dXNlcjpwYXNz; next", f"authorization={REDACTED}; next"),
        ("sent Bearer abc.def.ghi~ to the peer", f"sent Bearer {REDACTED} to the peer"),
        ("GET /v1?api_key=abc123&x=1", f"GET /v1?api_key={REDACTED}&x=1"),
        ('{"api_key": "short"}', f'{{"api_key": "{REDACTED}"}}'),
        ("{'api-key': 'short'}", f"{{'api-key': '{REDACTED}'}}"),
        ("X-Api-Key: k1", f"X-Api-Key: {REDACTED}"),
        ("LLM_API_KEY=anything at all", f"LLM_API_KEY={REDACTED} at all"),
        ("password=hunter2 and client_secret: s3", f"password={REDACTED} and client_secret: {REDACTED}"),
        (f"our key {OUR_KEY} was sent", f"our key {REDACTED} was sent"),
        (f"({OUR_KEY})", f"({REDACTED})"),
        ("the token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b is invalid", f"the token {REDACTED} is invalid"),
        ("secret was c2VjcmV0LXZhbHVlLTEyMzQ1Njc4OQ== here", f"secret was {REDACTED} here"),
        ("a JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2ln", f"a JWT {REDACTED}"),
        ("postgresql://app:s3cret@db:5432/sessions", f"postgresql://app:{REDACTED}@db:5432/sessions"),
        (f"İstanbul: Authorization: Bearer {KEY}", f"İstanbul: Authorization: {REDACTED}"),  # lower() is longer
    ],
)
def test_key_like_substrings_are_masked(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "expert_done technical_analyst in 35.2 ms",
        "http://research:8001/api/v1/research/experts/technical_analyst",
        "the model's output was cut off at its length limit after 7 tokens (finish_reason=length)",
        "prompt_tokens=11 completion_tokens=7",
        "key_disagreements: margins vs. volume 2024-2025",
        "task-force risk-adjusted sk-short",
        "the LLM endpoint refused the call: it answered 401 (AuthenticationError)",
        "AUTH_MODE=none: every caller is trusted; set AUTH_MODE=api_key to serve",
        "the Authorization header is missing",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == text


def _chained(outer: Exception, inner: BaseException) -> Exception:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except Exception as raised:
        return raised


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        (ConnectionRefusedError(111, "Connect call failed ('10.0.0.7', 8001)"), "connection refused"),
        (ConnectionResetError(104, "Connection reset by peer"), "connection reset"),
        (socket.gaierror(-2, "Name or service not known"), "the host name did not resolve"),
        (TimeoutError(), "timed out"),
    ],
)
def test_a_connection_failure_is_described_without_its_message(inner: BaseException, expected: str) -> None:
    described = describe_connection_failure(_chained(OSError("Cannot connect to host research:8001"), inner))
    assert described == f"{expected} ({type(inner).__name__})"
    assert "research" not in described
    assert "8001" not in described


def test_an_unexplained_connection_failure_names_the_outer_class() -> None:
    assert describe_connection_failure(RuntimeError("Cannot connect to host research:8001")) == (
        "connection failed (RuntimeError)"
    )


@pytest.mark.usefixtures("json_debug_logs")
def test_every_string_of_every_log_line_is_redacted(capsys: pytest.CaptureFixture[str]) -> None:
    log = structlog.get_logger("t")
    log.warning(f"call failed with Authorization: Bearer {KEY}")
    log.info("llm_error_answer", answer=f"Incorrect API key provided: {KEY}", status=401)
    log.info("nested", problem={"detail": f"api_key={KEY}", "tries": [f"key {KEY}", 3]}, api_key="plain-words")
    log.info("an_object", error=ValueError(f"echoed {KEY}"))
    try:
        raise RuntimeError(f"the provider said: Incorrect API key provided: {KEY}")
    except RuntimeError:
        log.exception("unexpected")
    logging.getLogger("some.library").error("request headers: %s", {"Authorization": f"Bearer {KEY}"})
    flush_logs()
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]

    assert len(lines) == 6
    assert all(KEY not in json.dumps(line) and "SECRET" not in json.dumps(line) for line in lines)
    by_event = {line["event"]: line for line in lines}
    assert by_event["llm_error_answer"] == by_event["llm_error_answer"] | {
        "answer": f"Incorrect API key provided: {REDACTED}",
        "status": 401,
    }
    assert by_event["nested"]["problem"] == {"detail": f"api_key={REDACTED}", "tries": [f"key {REDACTED}", 3]}
    assert by_event["nested"]["api_key"] == REDACTED  # a field named like a credential is masked whole
    exception = by_event["unexpected"]["exception"]
    assert "RuntimeError: the provider said: Incorrect API key provided: [REDACTED]" in exception
    assert REDACTED in by_event["an_object"]["error"]


def test_a_problem_detail_and_its_string_members_are_redacted() -> None:
    response = problem_response(
        502,
        "llm_upstream_error",
        f"the LLM said: Incorrect API key provided: {KEY}",
        extra={"raw_output_excerpt": f'{{"api_key": "{KEY}"}}', "attempts": 2},
    )
    body = json.loads(bytes(response.body))
    assert KEY not in json.dumps(body)
    assert body["detail"] == f"the LLM said: Incorrect API key provided: {REDACTED}"
    assert (body["raw_output_excerpt"], body["attempts"]) == (f'{{"api_key": "{REDACTED}"}}', 2)


def test_a_configured_secret_of_any_shape_is_masked_as_written_and_url_encoded() -> None:
    from shared_contracts.problems import raw_output_member
    from shared_contracts.redaction import remember_secrets, url_password

    key = "gsk_Zq8" + "x7Yp" * 10
    password = "pa ss/w0rd!"
    remember_secrets([key, url_password("postgresql+asyncpg://u:pa%20ss%2Fw0rd%21@db/x"), "", None, "abc"])
    assert url_password("redis://:r3dis-pass@redis:6379/0") == "r3dis-pass"
    assert url_password("sqlite+aiosqlite:///./data/x.db") is None

    assert redact_secrets(f"denied to {key}.") == f"denied to {REDACTED}."
    assert redact_secrets(f"login {password} and pa%20ss%2Fw0rd%21") == f"login {REDACTED} and {REDACTED}"
    assert redact_secrets("abc stays") == "abc stays"  # too short to be searched for
    assert raw_output_member(f"No JSON today, {key}") == {"raw_output_excerpt": f"No JSON today, {REDACTED}"}


def test_a_completion_quoting_a_configured_secret_is_read_with_it_masked() -> None:
    import json as json_

    from service_kit.llm.client import _read_reply
    from shared_contracts.redaction import remember_secrets

    key = "gsk_Completion" + "Q9w" * 12
    remember_secrets([key])
    body = {"model": "m", "choices": [{"message": {"content": f'{{"note": "{key}"}}'}, "finish_reason": "stop"}]}
    completion = _read_reply(json_.dumps(body).encode(), "m")
    assert key not in completion.text
    assert completion.text == f'{{"note": "{REDACTED}"}}'
