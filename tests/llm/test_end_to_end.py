"""Providers end to end against the loopback mock server, with injected faults."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from voxeval.llm import (
    AudioInput,
    ChatMessage,
    ChatRequest,
    ProviderError,
    RemoteChatModel,
    RequestCache,
    RetryPolicy,
    cached,
    chat_model_from_spec,
    gemini_payload,
    lookup_profile,
    openai_chat_payload,
)
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer, sine_wav

KEY = "sk-e2e-SECRET-0123456789"
WAV = sine_wav(0.05, rate=8000)
REQUEST = ChatRequest(
    messages=(ChatMessage("system", "Be brief."), ChatMessage("user", "What did I say?", AudioInput(WAV))),
    max_tokens=50,
)


def fast(spec: str, **overrides: Any) -> RemoteChatModel:
    """A model from ``spec`` whose backoff is milliseconds, not seconds."""
    model = chat_model_from_spec(spec, **overrides)
    assert isinstance(model, RemoteChatModel)
    model.policy = RetryPolicy(max_retries=model.options.max_retries, base_delay=0.01, max_delay=0.05)
    return model


def reply(endpoint: str, body: dict[str, Any]) -> str:
    return f"{endpoint} says hi"


def test_openai_compat_without_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with MockServer(reply) as srv:
        model = fast(f"openai-compat:local-model@{srv.openai_base_url}")
        response = asyncio.run(model.complete(REQUEST))
        (seen,) = srv.requests
    assert response.text == "chat says hi" and response.model_version == "local-model"
    assert response.usage.input_tokens is not None and response.finish_reason == "stop"
    assert seen.endpoint == "chat" and not seen.auth_present
    assert seen.json == openai_chat_payload("local-model", REQUEST)


def test_openai_with_key_and_audio_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    request = ChatRequest(messages=REQUEST.messages, audio_output=True, voice="verse", max_tokens=20)
    with MockServer(reply, require_key=KEY) as srv:
        response = asyncio.run(fast(f"openai:gpt-4o-audio-preview@{srv.openai_base_url}").complete(request))
        (seen,) = srv.requests
    assert response.text == "chat says hi"  # the transcript: content is null with audio output
    assert response.audio is not None and response.audio[:4] == b"RIFF"
    assert seen.auth_present and seen.headers["authorization"] == "<redacted>"
    assert seen.json == openai_chat_payload(
        "gpt-4o-audio-preview", request, lookup_profile("openai", "gpt-4o-audio-preview")
    )


def test_gemini(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    request = ChatRequest(messages=REQUEST.messages, json_output=True)
    with MockServer(lambda e, b: '{"ok": true}', require_key=KEY) as srv:
        response = asyncio.run(fast(f"gemini:gemini-2.0-flash@{srv.gemini_base_url}").complete(request))
        (seen,) = srv.requests
    assert response.text == '{"ok": true}' and response.model_version == "gemini-2.0-flash"
    assert response.finish_reason == "STOP" and response.usage.output_tokens == 2
    assert seen.endpoint == "gemini" and seen.path == "/v1beta/models/gemini-2.0-flash:generateContent"
    assert seen.json == gemini_payload(request)
    assert seen.headers["x-goog-api-key"] == "<redacted>"


FAULTS = [
    Fault("rate_limit", retry_after=0.01),
    Fault("rate_limit"),
    Fault("server_error"),
    Fault("unavailable", retry_after=0.01),
    Fault("hang", seconds=0.6),
    Fault("drop"),
    Fault("truncated"),
    Fault("invalid_json"),
]


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.kind)
@pytest.mark.parametrize("provider", ["openai-compat", "gemini"])
def test_injected_fault_is_recovered_from(provider: str, fault: Fault, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with MockServer(reply, faults=FaultPlan.sequence(fault)) as srv:
        base = srv.openai_base_url if provider == "openai-compat" else srv.gemini_base_url
        model = fast(f"{provider}:m@{base}?timeout=0.25&max_retries=2")
        response = asyncio.run(model.complete(REQUEST))
        kinds = [r.fault for r in srv.requests]
    assert response.text.endswith("says hi")
    assert kinds == [fault.kind, None]


@pytest.mark.parametrize("provider", ["openai-compat", "gemini"])
def test_empty_content_is_an_empty_reply_asked_once(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with MockServer(reply, faults=FaultPlan.sequence(Fault("empty"))) as srv:
        base = srv.openai_base_url if provider == "openai-compat" else srv.gemini_base_url
        response = asyncio.run(fast(f"{provider}:m@{base}?max_retries=2").complete(REQUEST))
        assert srv.count() == 1
    assert response.text == ""


def test_latency_within_the_timeout_is_not_a_failure() -> None:
    with MockServer(reply, faults=FaultPlan.sequence(Fault("latency", seconds=0.05))) as srv:
        response = asyncio.run(fast(f"openai-compat:m@{srv.openai_base_url}?timeout=2").complete(REQUEST))
        assert srv.count() == 1
    assert response.text == "chat says hi"


def test_hang_past_the_timeout_is_a_timeout_error_quickly() -> None:
    with MockServer(reply, faults=FaultPlan.sequence(Fault("hang", seconds=5))) as srv:
        model = fast(f"openai-compat:m@{srv.openai_base_url}?timeout=0.2&max_retries=0")
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            asyncio.run(model.complete(REQUEST))
        assert time.monotonic() - started < 1.5
    assert info.value.kind == "timeout"


def test_gives_up_after_max_retries_with_the_last_error() -> None:
    plan = FaultPlan(rate=1.0, random_faults=(Fault("unavailable"),))
    with MockServer(reply, faults=plan) as srv:
        with pytest.raises(ProviderError) as info:
            asyncio.run(fast(f"openai-compat:m@{srv.openai_base_url}?max_retries=2").complete(REQUEST))
        assert srv.count() == 3
    assert (info.value.kind, info.value.status) == ("server", 503)


def test_wrong_key_is_not_retried_and_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with MockServer(reply, require_key="the-right-key") as srv:
        for spec in (f"openai:m@{srv.openai_base_url}", f"gemini:m@{srv.gemini_base_url}"):
            with pytest.raises(ProviderError) as info:
                asyncio.run(fast(spec).complete(REQUEST))
            assert info.value.kind == "client" and not info.value.retryable
            assert KEY not in str(info.value) and "***" in str(info.value)
        assert srv.count() == 2


def test_random_faults_under_concurrency_all_recover() -> None:
    plan = FaultPlan(
        rate=0.4,
        random_faults=(Fault("server_error"), Fault("rate_limit", retry_after=0.01), Fault("drop")),
        seed=11,
    )
    request = ChatRequest(messages=(ChatMessage("user", "hello"),))
    with MockServer(faults=plan) as srv:
        model = fast(f"openai-compat:m@{srv.openai_base_url}?concurrency=4&max_retries=10")

        async def main() -> list[str]:
            return [r.text for r in await asyncio.gather(*(model.complete(request) for _ in range(16)))]

        texts = asyncio.run(main())
        faults = [r.fault for r in srv.requests]
    assert texts == ["echo: hello"] * 16
    assert len(faults) == 16 + sum(f is not None for f in faults) and any(faults)


def test_concurrency_option_bounds_requests_in_flight() -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def slow(endpoint: str, body: dict[str, Any]) -> str:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return "done"

    with MockServer(slow) as srv:
        model = fast(f"openai-compat:m@{srv.openai_base_url}?concurrency=2")

        async def main() -> None:
            await asyncio.gather(*(model.complete(REQUEST) for _ in range(6)))

        asyncio.run(main())
    assert state["peak"] == 2


def test_api_key_never_reaches_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    cache = RequestCache(tmp_path / "cache")
    with MockServer(reply, require_key=KEY) as srv:
        models = [
            cached(fast(f"openai:gpt-4o@{srv.openai_base_url}"), cache),
            cached(fast(f"gemini:gemini-2.0-flash@{srv.gemini_base_url}"), cache),
        ]
        audio_request = ChatRequest(messages=REQUEST.messages, audio_output=True)

        async def main() -> None:
            for model in models:
                await model.complete(REQUEST)
                await model.complete(REQUEST)
            await models[0].complete(audio_request)

        asyncio.run(main())
        assert srv.count() == 3
    files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert len(files) == 3
    assert [m.hits for m in models] == [1, 1]
    for path in files:
        assert KEY.encode() not in path.read_bytes()
        assert KEY not in path.name
