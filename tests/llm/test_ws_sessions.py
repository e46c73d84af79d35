"""Session models against the local realtime mock: faults retried, failures classified, cache, keys, limits."""

from __future__ import annotations

import asyncio
import json

import pytest

from voxeval.llm import ProviderError, RequestCache, SessionInput, session_model_from_spec
from voxeval.testing.realtime import MockReply, RealtimeMockServer, SessionFaultPlan, tone

SECRET = "sk-test-realtime-DO-NOT-LEAK"
PCM24 = b"\x10\x00\xf0\xff" * 2400  # 200 ms at 24 kHz
PCM16 = b"\x10\x00\xf0\xff" * 1600  # 200 ms at 16 kHz


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)


async def _no_wait(seconds: float) -> None:
    return None


def model(srv: RealtimeMockServer, provider: str, options: str = ""):
    url = srv.openai_url if provider == "openai" else srv.gemini_url
    built = session_model_from_spec(f"{provider}:m@{url}" + (f"?{options}" if options else ""))
    built.sleep = _no_wait
    return built


def turn(provider: str) -> SessionInput:
    return (
        SessionInput("sys", "user", PCM24, 24_000)
        if provider == "openai"
        else SessionInput("sys", "user", PCM16, 16_000)
    )


def answer(srv: RealtimeMockServer, provider: str, options: str = ""):
    built = model(srv, provider, options)
    return built, asyncio.run(built.answer(turn(provider)))


@pytest.mark.parametrize("provider", ["openai", "gemini"])
@pytest.mark.parametrize("fault", ["error_event", "close_1011", "rate_limit", "go_away", "slow_first_byte"])
def test_transient_faults_are_retried_and_partial_audio_is_dropped(provider, fault) -> None:
    with RealtimeMockServer(require_key=SECRET) as srv:
        _, clean = answer(srv, provider)
    plan = SessionFaultPlan(script={1: fault}, slow_seconds=0.05)
    with RealtimeMockServer(faults=plan, require_key=SECRET, audio_seconds=0.3) as srv:
        built, result = answer(srv, provider)
        assert [s.fault for s in srv.sessions] == ([fault, None] if fault != "slow_first_byte" else [fault])
    assert (result.text, result.pcm, result.usage) == (clean.text, clean.pcm, clean.usage)
    assert built.attempts == len(srv.sessions)
    if fault == "slow_first_byte":
        # The mock's 50 ms wait starts on its own thread when it has read the input's end; the client's clock starts
        # when it has sent it: the two may differ by a scheduler tick (measured 49.0 ms once on a loaded machine).
        assert result.first_audio_s is not None and result.first_audio_s >= 0.045


@pytest.mark.parametrize(
    ("provider", "fault", "kind", "reason"),
    [
        ("openai", "error_event", "server", "server_error"),
        ("openai", "close_1011", "server", "code 1011: mock: internal error mid-reply"),
        ("gemini", "go_away", "server", "after goAway, timeLeft 0s"),
        ("gemini", "rate_limit", "rate_limit", "RESOURCE_EXHAUSTED"),
    ],
)
def test_persistent_faults_fail_with_the_providers_reason(provider, fault, kind, reason) -> None:
    with RealtimeMockServer(faults=SessionFaultPlan(rates={fault: 1.0}), require_key=SECRET) as srv:
        built = model(srv, provider, "max_retries=2")
        with pytest.raises(ProviderError) as caught:
            asyncio.run(built.answer(turn(provider)))
    assert caught.value.kind == kind and reason in caught.value.message
    assert built.attempts == 3 and SECRET not in caught.value.message


def test_a_session_that_never_answers_times_out() -> None:
    with RealtimeMockServer(faults=SessionFaultPlan(rates={"silent": 1.0})) as srv:
        built = model(srv, "gemini", "idle_timeout=0.2&max_retries=1")
        with pytest.raises(ProviderError, match=r"sent nothing for 0\.2 s") as caught:
            asyncio.run(built.answer(turn("gemini")))
    assert caught.value.kind == "timeout" and built.attempts == 2


def test_total_timeout_bounds_a_slow_reply() -> None:
    with RealtimeMockServer(faults=SessionFaultPlan(rates={"slow_first_byte": 1.0}, slow_seconds=0.6)) as srv:
        built = model(srv, "openai", "timeout=0.2&max_retries=0")
        with pytest.raises(ProviderError, match=r"longer than 0\.2 s"):
            asyncio.run(built.answer(turn("openai")))


def test_a_wrong_key_is_a_client_error_not_retried() -> None:
    with RealtimeMockServer(require_key="another-key") as srv:
        built = model(srv, "openai")
        with pytest.raises(ProviderError) as caught:
            asyncio.run(built.answer(turn("openai")))
    assert (caught.value.kind, caught.value.status, built.attempts) == ("client", 401, 1)
    assert "invalid API key" in caught.value.message and SECRET not in caught.value.message


def test_nobody_listening_is_a_connection_error() -> None:
    with RealtimeMockServer() as srv:
        url = srv.openai_url
    built = session_model_from_spec(f"openai:m@{url}?max_retries=1&connect_timeout=2")
    built.sleep = _no_wait
    with pytest.raises(ProviderError) as caught:
        asyncio.run(built.answer(turn("openai")))
    assert caught.value.kind == "connection" and built.attempts == 2


def test_max_tokens_cut_is_truncated_once() -> None:
    with RealtimeMockServer() as srv:
        built = model(srv, "openai", "max_tokens=1")
        with pytest.raises(ProviderError) as caught:
            asyncio.run(built.answer(turn("openai")))
    assert caught.value.kind == "truncated" and built.attempts == 1


def test_an_oversized_message_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("voxeval.llm.sessions._ws.MAX_MESSAGE_BYTES", 1000)
    with RealtimeMockServer() as srv:
        built = model(srv, "openai")
        with pytest.raises(ProviderError, match="over 1000 bytes: refused") as caught:
            asyncio.run(built.answer(turn("openai")))
    assert caught.value.retryable is False and built.attempts == 1


def test_cache_answers_repeats_and_keys_never_leave(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("voxeval.llm.sessions._session_spec.request_cache", lambda: RequestCache(tmp_path / "cache"))
    speak_key = lambda t: MockReply(f"key is {SECRET}", tone(0.2))  # noqa: E731 - a responder that leaks the key
    with RealtimeMockServer(speak_key) as srv:
        built, first = answer(srv, "gemini")
        again = asyncio.run(built.answer(turn("gemini")))
        other = asyncio.run(built.answer(SessionInput("sys", "user", PCM16[:-2], 16_000)))
        assert srv.count() == 2  # the repeat came from the cache; different audio did not
        built.forget(turn("gemini"))
        assert not asyncio.run(built.answer(turn("gemini"))).cached and srv.count() == 3
        sent = json.dumps([s.messages for s in srv.sessions])
    assert first.text == "key is ***" and again.cached and not first.cached
    assert (again.text, again.pcm, again.usage) == (first.text, first.pcm, first.usage) and other.pcm == first.pcm
    assert SECRET not in sent
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or SECRET.encode() not in path.read_bytes()


def test_concurrency_limits_open_sessions() -> None:
    with RealtimeMockServer(faults=SessionFaultPlan(rates={"slow_first_byte": 1.0}, slow_seconds=0.05)) as srv:
        built = model(srv, "openai", "concurrency=2")

        async def many() -> None:
            await asyncio.gather(*(built.answer(SessionInput("s", "", bytes([i, 0]) * 480, 24_000)) for i in range(6)))

        asyncio.run(many())
    assert built.limiter.peak == 2 and srv.count() == 6
