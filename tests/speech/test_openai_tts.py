"""The OpenAI speech adapter: the payload as a literal dict, and requests against the loopback mock server."""

from __future__ import annotations

import numpy as np
import pytest

from voxeval.errors import ConfigError
from voxeval.llm import ProviderError
from voxeval.speech.tts import VoiceStyle, engine_from_spec, openai_speech_payload
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer

KEY = "sk-test-123456"


def test_payload_is_the_documented_body() -> None:
    assert openai_speech_payload("こんにちは", model="gpt-4o-mini-tts", voice="alloy", speed=1.25) == {
        "model": "gpt-4o-mini-tts",
        "input": "こんにちは",
        "voice": "alloy",
        "response_format": "wav",
        "speed": 1.25,
    }
    with pytest.raises(ConfigError, match=r"between 0\.25 and 4"):
        openai_speech_payload("x", model="m", voice="v", speed=5.0)


def test_synthesize_posts_the_payload_with_the_key_and_decodes_the_wav(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with MockServer(require_key=KEY) as server:
        engine = engine_from_spec("openai:nova", base_url=server.openai_base_url, model="tts-1")
        audio = engine.synthesize("twenty characters!!", VoiceStyle(rate=1.5, gain_db=-6.0206))
        (request,) = server.requests
    assert request.endpoint == "speech" and request.auth_present
    assert request.json == {
        "model": "tts-1",
        "input": "twenty characters!!",
        "voice": "nova",
        "response_format": "wav",
        "speed": 1.5,
    }
    assert audio.sample_rate == 24000 and len(audio.samples) == round(0.05 * 19 * 24000)
    assert float(np.abs(audio.samples).max()) == pytest.approx(0.15, abs=0.002)  # the mock's 0.3 sine, -6 dB
    assert KEY not in str(engine.describe())


def test_retryable_failures_are_retried(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    plan = FaultPlan.sequence(Fault("rate_limit", retry_after=0), Fault("unavailable", retry_after=0))
    with MockServer(faults=plan) as server:
        audio = engine_from_spec("openai", base_url=server.openai_base_url).synthesize("hello", VoiceStyle())
        assert server.count("speech") == 3
    assert audio.duration_s == pytest.approx(0.25)


def test_a_wrong_key_fails_without_echoing_it(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with MockServer(require_key="sk-other") as server:
        engine = engine_from_spec("openai", base_url=server.openai_base_url)
        with pytest.raises(ProviderError) as caught:
            engine.synthesize("hello", VoiceStyle())
        assert server.count("speech") == 1  # a client error is not retried
    assert caught.value.status == 401 and KEY not in str(caught.value)


def test_empty_audio_is_an_error(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with MockServer(faults=FaultPlan.sequence(Fault("empty"), Fault("empty"))) as server:
        engine = engine_from_spec("openai", base_url=server.openai_base_url, max_retries=1)
        with pytest.raises(ProviderError, match="empty audio"):
            engine.synthesize("hello", VoiceStyle())


def test_the_key_comes_only_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    engine = engine_from_spec("openai", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="set the environment variable OPENAI_API_KEY"):
        engine.synthesize("hello", VoiceStyle())
