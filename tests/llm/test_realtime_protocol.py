"""The pure parts of the realtime/live protocols: messages built, events folded, closes classified, specs parsed."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.errors import ConfigError
from voxeval.llm import ProviderError, SessionInput, classify_close, parse_session_spec, session_model_from_spec
from voxeval.llm.sessions._collect import MAX_REPLY_AUDIO_SECONDS, decode_audio_delta
from voxeval.llm.sessions._live_gemini import LiveFold, LiveSettings, setup_message, turn_messages
from voxeval.llm.sessions._realtime_openai import (
    RealtimeFold,
    RealtimeSettings,
    error_event,
    session_update,
    turn_events,
)
from voxeval.testing.realtime import SessionFaultPlan

TURN = SessionInput("sys", "user", b"\x01\x00" * 3000, 24_000)
WHERE = "ws://h/v1/realtime"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_openai_turn_events_are_literal() -> None:
    events = turn_events(TURN, RealtimeSettings(voice="cedar", chunk_ms=100))
    pcm = {"type": "audio/pcm", "rate": 24000}
    assert events[0] == {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "instructions": "sys",
            "output_modalities": ["audio"],
            "audio": {"input": {"format": pcm, "turn_detection": None}, "output": {"format": pcm, "voice": "cedar"}},
        },
    }
    assert events[1] == {
        "type": "conversation.item.create",
        "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "user"}]},
    }
    # 6000 bytes at 4800 bytes per 100 ms chunk: two appends, the second short; nothing lost.
    appends = [base64.b64decode(e["audio"]) for e in events[2:]]
    assert [len(a) for a in appends] == [4800, 1200] and b"".join(appends) == TURN.pcm


def test_openai_text_mode_sends_no_output_audio_and_no_empty_user_message() -> None:
    turn = SessionInput("sys", "", b"", 24_000)
    events = turn_events(turn, RealtimeSettings(output="text", max_tokens=7))
    assert events == [session_update(turn, RealtimeSettings(output="text", max_tokens=7))]
    session = events[0]["session"]
    assert session["output_modalities"] == ["text"] and "output" not in session["audio"]
    assert session["max_output_tokens"] == 7
    with pytest.raises(ValueError, match="24000 Hz"):
        turn_events(SessionInput("s", "", b"", 16_000), RealtimeSettings())


def test_gemini_messages_are_literal() -> None:
    turn = SessionInput("sys", "user", b"\xff\xfb" * 1700, 16_000)
    assert setup_message("gemini-3.8-live", turn, LiveSettings(voice="Puck", max_tokens=9)) == {
        "setup": {
            "model": "models/gemini-3.8-live",
            "generationConfig": {
                "responseModalities": ["AUDIO"],
                "temperature": 0.0,
                "maxOutputTokens": 9,
                "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": "Puck"}}},
            },
            "systemInstruction": {"parts": [{"text": "sys"}]},
            "inputAudioTranscription": {},
            "outputAudioTranscription": {},
            "realtimeInputConfig": {"automaticActivityDetection": {"disabled": True}},
        }
    }
    messages = turn_messages(turn, LiveSettings())
    assert messages[0] == {
        "clientContent": {"turns": [{"role": "user", "parts": [{"text": "user"}]}], "turnComplete": False}
    }
    assert messages[1] == {"realtimeInput": {"activityStart": {}}}
    audio = [m["realtimeInput"]["audio"] for m in messages[2:]]
    assert {a["mimeType"] for a in audio} == {"audio/pcm;rate=16000"}
    assert all("+" not in a["data"] and "/" not in a["data"] for a in audio)  # URL-safe, as the SDK encodes
    assert b"".join(base64.urlsafe_b64decode(a["data"]) for a in audio) == turn.pcm


def feed_all(fold, events) -> bool:
    return any([fold.feed(e, 0.1 * i) for i, e in enumerate(events)])


def test_openai_fold_collects_audio_transcript_usage_and_times() -> None:
    fold = RealtimeFold(WHERE)
    done = feed_all(
        fold,
        [
            {"type": "session.created", "session": {"model": "gpt-realtime-2025-08-28"}},
            {"type": "response.created", "response": {"id": "r1"}},
            {"type": "response.output_audio_transcript.delta", "delta": "こん"},
            {"type": "response.output_audio.delta", "delta": b64(b"\x01\x02\x03\x04")},
            {"type": "response.output_audio_transcript.delta", "delta": "にちは"},
            {"type": "response.output_audio_transcript.done", "transcript": "こんにちは。"},
            {
                "type": "response.done",
                "response": {"id": "r1", "status": "completed", "usage": {"input_tokens": 5, "output_tokens": 6}},
            },
        ],
    )
    result = fold.result(0.9)
    assert done and result.text == "こんにちは。" and result.pcm == b"\x01\x02\x03\x04"
    assert (result.model_version, result.response_id, result.status) == ("gpt-realtime-2025-08-28", "r1", "completed")
    assert (result.usage.input_tokens, result.usage.output_tokens) == (5, 6)
    assert result.first_text_s == pytest.approx(0.2) and result.first_audio_s == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("response", "kind", "retryable"),
    [
        ({"status": "incomplete", "status_details": {"reason": "max_output_tokens"}}, "truncated", False),
        ({"status": "incomplete", "status_details": {"reason": "content_filter"}}, "refused", False),
        (
            {"status": "failed", "status_details": {"error": {"type": "server_error", "message": "boom"}}},
            "server",
            True,
        ),
        ({"status": "cancelled", "status_details": {"reason": "turn_detected"}}, "server", True),
        ({"status": "failed", "status_details": {"error": {"type": "invalid_request_error"}}}, "client", False),
    ],
)
def test_openai_response_done_statuses(response, kind, retryable) -> None:
    with pytest.raises(ProviderError) as caught:
        RealtimeFold(WHERE).feed({"type": "response.done", "response": response}, 0.0)
    assert (caught.value.kind, caught.value.retryable) == (kind, retryable)


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"type": "server_error", "message": "x"}, "server"),
        ({"type": "rate_limit_exceeded", "code": "rate_limit_exceeded"}, "rate_limit"),
        ({"type": "invalid_request_error", "code": "invalid_value", "message": "bad voice"}, "client"),
        ("not an object", "server"),
    ],
)
def test_error_events_classified_like_http(error, kind) -> None:
    assert error_event(error, WHERE).kind == kind
    with pytest.raises(ProviderError) as caught:
        RealtimeFold(WHERE).feed({"type": "error", "error": error}, 0.0)
    assert caught.value.kind == kind and WHERE in caught.value.message


@pytest.mark.parametrize("delta", ["not base64!!", "AAE", 12, None, b64(b"\x01\x02\x03")])
def test_undecodable_audio_deltas_are_refused_not_retried(delta) -> None:
    with pytest.raises(ProviderError) as caught:
        decode_audio_delta(delta, WHERE)
    assert caught.value.kind == "bad_response" and caught.value.retryable is False
    assert "audio delta" in caught.value.message


def test_reply_audio_over_the_cap_is_refused() -> None:
    fold = RealtimeFold(WHERE)
    second = b"\x00\x00" * 24_000
    fold.reply.pcm += second * int(MAX_REPLY_AUDIO_SECONDS)
    with pytest.raises(ProviderError, match="runs over 600 s") as caught:
        fold.feed({"type": "response.output_audio.delta", "delta": b64(b"\x00\x00")}, 0.0)
    assert caught.value.retryable is False


def test_gemini_fold_audio_transcription_usage_and_refusal() -> None:
    fold = LiveFold(WHERE)
    inline = {
        "inlineData": {"mimeType": "audio/pcm;rate=24000", "data": base64.urlsafe_b64encode(b"\xff\xfe").decode()}
    }
    events = [
        {"setupComplete": {"sessionId": "s1"}},
        {"serverContent": {"modelTurn": {"parts": [inline]}}},
        {"serverContent": {"outputTranscription": {"text": "はい"}}},
        {"goAway": {"timeLeft": "5s"}},
        {"serverContent": {"turnComplete": True}, "usageMetadata": {"promptTokenCount": 3, "responseTokenCount": 4}},
    ]
    assert feed_all(fold, events)
    result = fold.result("gemini-3.8-live", 1.0)
    assert (result.text, result.pcm, result.rate, result.response_id) == ("はい", b"\xff\xfe", 24000, "s1")
    assert (result.usage.input_tokens, result.usage.output_tokens, fold.go_away) == (3, 4, "5s")
    with pytest.raises(ProviderError) as caught:
        LiveFold(WHERE).feed(
            {"serverContent": {"turnComplete": True, "turnCompleteReason": "GENERATED_AUDIO_SAFETY"}}, 0
        )
    assert caught.value.kind == "refused"
    with pytest.raises(ProviderError, match="not audio/pcm"):
        LiveFold(WHERE).feed(
            {"serverContent": {"modelTurn": {"parts": [{"inlineData": {"mimeType": "audio/mp3", "data": ""}}]}}}, 0
        )


@pytest.mark.parametrize(
    ("code", "reason", "kind", "retryable"),
    [
        (1011, "Internal error encountered.", "server", True),
        (1011, "RESOURCE_EXHAUSTED: quota", "rate_limit", True),
        (1013, "", "rate_limit", True),
        (1008, "API key not valid", "client", False),
        (1007, "Request contains an invalid argument.", "client", False),
        (1001, "going away", "server", True),
        (1006, "", "connection", True),
        (1000, "bye", "connection", True),
        (None, "", "connection", True),
    ],
)
def test_close_codes(code, reason, kind, retryable) -> None:
    error = classify_close(code, reason, WHERE)
    assert (error.kind, error.retryable) == (kind, retryable)
    assert str(code if code is not None else "none") in error.message and reason in error.message


def test_session_specs() -> None:
    spec = parse_session_spec("openai:gpt-realtime-2?voice=cedar&concurrency=16&timeout=30&output=text")
    assert (spec.provider, spec.model, spec.url) == ("openai", "gpt-realtime-2", None)
    assert spec.options == {"voice": "cedar", "concurrency": 16, "timeout": 30.0, "output": "text"}
    live = parse_session_spec("gemini:gemini-3.8-live@wss://example.test/ws/x/?temperature=0.7&api_version=v1alpha")
    assert live.url == "wss://example.test/ws/x" and live.options == {"temperature": 0.7, "api_version": "v1alpha"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("anthropic:m", "expected openai:MODEL or gemini:MODEL"),
        ("openai:", "empty"),
        ("openai:m@http://h/v1", "must start with ws://"),
        ("openai:m?temperature=0.5", "unknown option 'temperature'"),
        ("openai:m?voice=a b", "not a valid voice"),
        ("openai:m?concurrency=0", "at least 1"),
        ("openai:m?timeout=0", "must be positive"),
        ("openai:m?chunk_ms=5000", "at most 1000"),
        ("openai:m?output=video", "audio or text"),
        ("openai:m?voice=a&voice=b", "given twice"),
        ("openai:m?voice", "key=value"),
        ("gemini:m?api_version=beta", "not a valid api version"),
        ("gemini:m?key_env=1X", "expected an environment variable name"),
    ],
)
def test_bad_session_specs_are_config_errors(spec, message) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_session_spec(spec)


@settings(max_examples=60, deadline=None)
@given(pcm=st.binary(max_size=20_000).map(lambda b: b[: len(b) // 2 * 2]), chunk_ms=st.integers(10, 1000))
def test_chunks_carry_the_input_exactly(pcm: bytes, chunk_ms: int) -> None:
    """Whatever the audio and chunk size, the appended chunks are the input, in order, each within one chunk."""
    openai = turn_events(SessionInput("s", "", pcm, 24_000), RealtimeSettings(chunk_ms=chunk_ms))[1:]
    sent = [base64.b64decode(e["audio"]) for e in openai]
    assert b"".join(sent) == pcm and all(0 < len(c) <= 48 * chunk_ms for c in sent)
    live = turn_messages(SessionInput("s", "", pcm, 16_000), LiveSettings(chunk_ms=chunk_ms))[1:]
    sent = [base64.urlsafe_b64decode(m["realtimeInput"]["audio"]["data"]) for m in live]
    assert b"".join(sent) == pcm and all(0 < len(c) <= 32 * chunk_ms for c in sent)


@settings(max_examples=60, deadline=None)
@given(pcm=st.binary(max_size=4000).map(lambda b: b[: len(b) // 2 * 2]))
def test_audio_deltas_decode_in_both_alphabets(pcm: bytes) -> None:
    assert decode_audio_delta(base64.b64encode(pcm).decode(), WHERE) == pcm
    assert decode_audio_delta(base64.urlsafe_b64encode(pcm).decode(), WHERE) == pcm


@settings(max_examples=40, deadline=None)
@given(
    audio=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
    attempt=st.integers(0, 50),
    seed=st.integers(0, 10),
)
def test_fault_draws_are_deterministic_and_respect_zero_rates(audio: str, attempt: int, seed: int) -> None:
    plan = SessionFaultPlan(rates={"close_1011": 0.1, "error_event": 0.05}, seed=seed)
    assert plan.pick(1, audio, attempt) == plan.pick(99, audio, attempt)  # order-independent
    assert plan.pick(1, audio, attempt) in (None, "close_1011", "error_event")
    assert SessionFaultPlan(seed=seed).pick(1, audio, attempt) is None


def test_models_from_specs_use_the_documented_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k1")
    monkeypatch.setenv("GOOGLE_API_KEY", "k2")
    realtime = session_model_from_spec("openai:gpt-realtime-2?rps=2&concurrency=3&idle_timeout=5")
    assert realtime.protocol.url() == "wss://api.openai.com/v1/realtime?model=gpt-realtime-2"
    assert realtime.protocol.headers() == {"Authorization": "Bearer k1"}
    assert (realtime.limiter.concurrency, realtime.limiter.rps, realtime.options.timeouts.idle) == (3, 2.0, 5.0)
    live = session_model_from_spec("gemini:m?api_version=v1alpha")
    assert live.protocol.url().endswith(
        "/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContent"
    )
    assert live.protocol.headers() == {"x-goog-api-key": "k2"} and "k2" not in json.dumps(live.describe())
    assert live.describe()["settings"] == {
        "voice": "Kore",
        "output": "audio",
        "max_tokens": None,
        "temperature": 0.0,
        "chunk_ms": 100,
    }


@pytest.mark.parametrize(
    ("fold", "message"),
    [
        (RealtimeFold, {"type": "session.created", "session": "not an object"}),
        (RealtimeFold, {"type": "response.done", "response": {"status": "completed", "usage": [1]}}),
        (RealtimeFold, {"type": "response.output_audio_transcript.delta"}),
        (LiveFold, {"serverContent": {"modelTurn": {"parts": ["text"]}}}),
        (LiveFold, {"serverContent": {"modelTurn": {"parts": [{"inlineData": "x"}]}}}),
        (LiveFold, {"serverContent": {"modelTurn": {"parts": 5}}}),
    ],
)
def test_malformed_messages_are_bad_responses_not_tracebacks(fold, message) -> None:
    with pytest.raises(ProviderError) as caught:
        fold(WHERE).feed(message, 0.0)
    assert caught.value.kind == "bad_response" and WHERE in caught.value.message
