"""The ``realtime:`` / ``live:`` systems: spec and key errors, input conversion, the Reply they build, the CLI."""

from __future__ import annotations

import asyncio
import io
import json
import wave
from collections.abc import Iterator

import numpy as np
import pytest

from voxeval.errors import ConfigError, InputError
from voxeval.llm import _cache, set_request_cache
from voxeval.systems import ReplyTiming, Turn, system_from_spec
from voxeval.systems._realtime import input_pcm
from voxeval.testing.mockserver import sine_wav
from voxeval.testing.realtime import MockReply, RealtimeMockServer, tone

KEY = "sk-test-system-DO-NOT-LEAK"


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    saved = _cache._request_cache
    set_request_cache(None)
    yield
    _cache._request_cache = saved


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("realtime:gemini:m", "expected realtime:openai:MODEL"),
        ("live:openai:m", "expected live:gemini:MODEL"),
        ("realtime:openai:m", "set the environment variable OPENAI_API_KEY"),
        ("live:gemini:m", "GEMINI_API_KEY or GOOGLE_API_KEY"),
        ("live:gemini:m?key_env=MY_LIVE_KEY", "MY_LIVE_KEY"),
    ],
)
def test_spec_and_key_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        system_from_spec(spec)


def test_input_pcm_passes_matching_wav_through_and_resamples_others() -> None:
    wav24 = sine_wav(0.1, rate=24_000)
    with wave.open(io.BytesIO(wav24)) as reader:
        frames = reader.readframes(reader.getnframes())
    assert input_pcm(wav24, 24_000, "s") == frames
    at16 = np.frombuffer(input_pcm(wav24, 16_000, "s"), dtype="<i2")
    assert len(at16) == 1600 and np.abs(at16).max() > 5000  # 0.1 s at 16 kHz, still a tone
    stereo = io.BytesIO()
    with wave.open(stereo, "wb") as out:
        out.setnchannels(2), out.setsampwidth(2), out.setframerate(24_000)
        out.writeframes(np.zeros(480, dtype="<i2").tobytes())
    assert len(input_pcm(stereo.getvalue(), 24_000, "s")) == 480  # 240 frames down-mixed to mono, 2 bytes each


@pytest.mark.parametrize("audio", [b"", b"RIFF\x00\x00", b"not audio at all" * 10])
def test_undecodable_input_audio_is_an_input_error(audio: bytes) -> None:
    with pytest.raises(InputError, match="input audio of s1"):
        input_pcm(audio, 24_000, "s1")


def test_reply_carries_audio_meta_and_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with RealtimeMockServer(lambda t: MockReply("はい。", tone(0.25)), require_key=KEY) as srv:
        system = system_from_spec(f"realtime:openai:gpt-realtime-2@{srv.openai_url}?concurrency=3&voice=cedar")
        reply = asyncio.run(system.respond(Turn("s1", sine_wav(0.2), "sys", "user")))
    assert system.concurrency == 3 and reply.text == "はい。"
    with wave.open(io.BytesIO(reply.audio or b"")) as reader:
        assert (reader.getframerate(), reader.getnchannels(), reader.getnframes()) == (24_000, 1, 6000)
    assert reply.meta["status"] == "completed" and reply.meta["output_tokens"] > 0 and not reply.meta["cached"]
    assert isinstance(reply.timing, ReplyTiming)
    timing = reply.timing
    assert (
        timing.first_audio_s is not None and timing.total_s is not None and 0 <= timing.first_audio_s <= timing.total_s
    )
    described = json.dumps(system.describe())
    assert KEY not in described and '"voice": "cedar"' in described and '"key_env": null' in described


def test_text_mode_returns_no_audio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with RealtimeMockServer() as srv:
        system = system_from_spec(f"live:gemini:m@{srv.gemini_url}?output=text")
        reply = asyncio.run(system.respond(Turn("s1", sine_wav(0.2), "sys", "")))
        sent = srv.sessions[0].messages
    assert reply.audio is None and reply.meta["audio_rate"] is None
    assert sent[0]["setup"]["generationConfig"]["responseModalities"] == ["TEXT"]
    assert not any("clientContent" in m for m in sent)  # an empty user prompt sends no text turn


def test_cli_reports_a_missing_key_as_a_config_error(tmp_path, capsys) -> None:
    from voxeval.cli import main

    code = main(["run", "--dataset", "ja-assistant", "--limit", "1", "--system", "realtime:openai:gpt-realtime-2",
                 "--annotator", "gold", "--out", str(tmp_path / "out"), "--quiet"])  # fmt: skip
    assert code == 2 and "voxeval: error:" in capsys.readouterr().err
