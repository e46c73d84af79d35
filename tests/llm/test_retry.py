"""The retry loop with a fake sleep, the backoff policy, and HTTP failure classification."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.llm import ProviderError, RetryPolicy, parse_retry_after, parse_retry_delay, redact_error, with_retries
from voxeval.llm._http import classify_status, decode_json, redact
from voxeval.llm._types import ErrorKind


class FakeSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def failing(errors: list[ProviderError], result: str = "ok") -> tuple[Callable[[], object], list[int]]:
    calls = [0]

    async def call() -> str:
        calls[0] += 1
        if errors:
            raise errors.pop(0)
        return result

    return call, calls


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_429_honours_retry_after_then_succeeds() -> None:
    sleep = FakeSleep()
    call, calls = failing([ProviderError("rate_limit", "slow down", status=429, retry_after=7.0)])
    assert run(with_retries(call, RetryPolicy(), sleep)) == "ok"  # type: ignore[arg-type]
    assert calls == [2] and sleep.delays == [7.0]


def test_retry_after_is_clipped_to_the_policy_limit() -> None:
    sleep = FakeSleep()
    call, _ = failing([ProviderError("server", "busy", status=503, retry_after=3600.0)])
    run(with_retries(call, RetryPolicy(max_retry_after=30.0), sleep))  # type: ignore[arg-type]
    assert sleep.delays == [30.0]


def test_401_is_not_retried() -> None:
    sleep = FakeSleep()
    call, calls = failing([ProviderError("client", "bad key", status=401)])
    with pytest.raises(ProviderError, match="bad key"):
        run(with_retries(call, RetryPolicy(), sleep))  # type: ignore[arg-type]
    assert calls == [1] and sleep.delays == []


def test_gives_up_after_max_retries_with_the_last_error() -> None:
    sleep = FakeSleep()
    errors = [ProviderError("server", f"attempt {i}", status=500) for i in range(10)]
    call, calls = failing(errors)
    with pytest.raises(ProviderError, match="attempt 3"):
        run(with_retries(call, RetryPolicy(max_retries=3, jitter=False), sleep))  # type: ignore[arg-type]
    assert calls == [4]
    assert sleep.delays == [0.5, 1.0, 2.0]


@pytest.mark.parametrize("kind", ["rate_limit", "server", "timeout", "connection", "bad_response"])
def test_every_transient_kind_is_retried(kind: ErrorKind) -> None:
    sleep = FakeSleep()
    call, calls = failing([ProviderError(kind, "x"), ProviderError(kind, "y")])
    assert run(with_retries(call, RetryPolicy(max_retries=2), sleep)) == "ok"  # type: ignore[arg-type]
    assert calls == [3] and len(sleep.delays) == 2


def test_other_exceptions_pass_straight_through() -> None:
    sleep = FakeSleep()

    async def call() -> None:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        run(with_retries(call, RetryPolicy(), sleep))
    assert sleep.delays == []


def test_backoff_caps_at_max_delay() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=False)
    assert [policy.delay(n) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]


@given(st.integers(0, 60), st.floats(0.01, 5.0), st.floats(0.01, 50.0), st.integers(0, 2**32 - 1))
def test_full_jitter_stays_within_the_exponential_ceiling(attempt: int, base: float, cap: float, seed: int) -> None:
    policy = RetryPolicy(base_delay=base, max_delay=cap)
    delay = policy.delay(attempt, rng=random.Random(seed))
    assert 0.0 <= delay <= min(cap, base * 2**attempt)


def test_jitter_spreads_delays() -> None:
    rng = random.Random(1)
    delays = {RetryPolicy().delay(3, rng=rng) for _ in range(20)}
    assert len(delays) == 20


@pytest.mark.parametrize(
    ("header", "expected"),
    [(None, None), ("", None), ("3", 3.0), (" 1.5 ", 1.5), ("-4", 0.0), ("soon", None)],
)
def test_parse_retry_after_seconds(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header) == expected


def test_parse_retry_after_http_date() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412500.0) == pytest.approx(10.0)


@pytest.mark.parametrize(
    ("status", "headers", "kind", "retryable", "retry_after"),
    [
        (429, {"Retry-After": "2"}, "rate_limit", True, 2.0),
        (429, {}, "rate_limit", True, None),
        (500, {}, "server", True, None),
        (502, {"Retry-After": "9"}, "server", True, None),
        (503, {"Retry-After": "4"}, "server", True, 4.0),
        (408, {}, "timeout", True, None),
        (400, {}, "client", False, None),
        (401, {}, "client", False, None),
        (403, {}, "client", False, None),
        (404, {}, "client", False, None),
    ],
)
def test_classify_status(
    status: int, headers: dict[str, str], kind: str, retryable: bool, retry_after: float | None
) -> None:
    response = httpx.Response(status, headers=headers, json={"error": {"message": "went wrong"}})
    error = classify_status(status, response.headers, response.content, "http://h/v1/chat/completions")
    assert (error.kind, error.retryable, error.status, error.retry_after) == (kind, retryable, status, retry_after)
    assert str(error) == f"{kind}: HTTP {status} from http://h/v1/chat/completions: went wrong"


def test_redact_error_redacts_before_shortening_and_handles_non_json_bodies() -> None:
    key = "sk-" + "k" * 77
    echoed = httpx.Response(401, json={"error": {"message": "x" * 109 + f" Incorrect API key provided: {key}."}})
    error = redact_error(classify_status(401, echoed.headers, echoed.content, "u"), [key])
    assert "kkkkkkkk" not in str(error) and error.kind == "client" and error.status == 401
    html = httpx.Response(502, text="<html>bad   gateway</html>")
    assert (
        str(classify_status(502, html.headers, html.content, "u"))
        == "server: HTTP 502 from u: <html>bad   gateway</html>"
    )


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"retry-after-ms": "1500", "retry-after": "9"}, b"", 1.5),
        ({"retry-after": "9"}, b"", 9.0),
        (
            {},
            b'{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": ['
            b'{"@type": "type.googleapis.com/google.rpc.QuotaFailure"},'
            b'{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}',
            37.0,
        ),
        (
            {},
            b'{"error": {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.5s"}]}}',
            0.5,
        ),
        ({}, b"not json", None),
        ({"retry-after-ms": "soon"}, b"", None),
    ],
)
def test_parse_retry_delay_reads_every_provider_signal(
    headers: dict[str, str], body: bytes, expected: float | None
) -> None:
    assert parse_retry_delay(httpx.Headers(headers), body) == expected


def test_huge_retry_after_is_clipped_with_a_logged_notice(caplog: pytest.LogCaptureFixture) -> None:
    sleep = FakeSleep()
    call, _ = failing([ProviderError("rate_limit", "slow", status=429, retry_after=999999.0)])
    with caplog.at_level("WARNING", logger="voxeval.llm"):
        run(with_retries(call, RetryPolicy(), sleep))  # type: ignore[arg-type]
    assert sleep.delays == [120.0]
    assert "asked to wait 999999 s" in caplog.text and "waiting 120 s instead" in caplog.text


@pytest.mark.parametrize("body", ['{"choices": [', "<html>", "[1, 2]", ""])
def test_decode_json_rejects_broken_bodies_as_retryable(body: str) -> None:
    with pytest.raises(ProviderError) as info:
        decode_json(body, "u")
    assert info.value.kind == "bad_response" and info.value.retryable


def test_redact_ignores_empty_secrets() -> None:
    assert redact("key=abc", ["", "abc"]) == "key=***"
