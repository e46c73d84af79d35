"""The streamed session's wire, pure: turn-detection payloads against literal dicts, option errors, and server
messages read into duplex events (both protocols)."""

from __future__ import annotations

import base64

import pytest

from voxeval.duplex import ModelAudioReceived, PlaybackFlushed, ServerEvent
from voxeval.errors import ConfigError
from voxeval.llm import ProviderError
from voxeval.llm.stream import GeminiWire, OpenAIWire, StreamSettings, TurnDetection, to_rate, turn_detection

PCM = base64.b64encode(b"\x01\x00" * 2400).decode()  # 0.1 s at 24 kHz


def test_openai_turn_detection_payloads() -> None:
    assert turn_detection([]).openai() == {"type": "server_vad", "create_response": True, "interrupt_response": True}
    given = turn_detection(["threshold=0.6", "prefix_padding_ms=300", "silence_duration_ms=400"])
    assert given.openai() == {
        "type": "server_vad",
        "create_response": True,
        "interrupt_response": True,
        "threshold": 0.6,
        "prefix_padding_ms": 300,
        "silence_duration_ms": 400,
    }
    semantic = turn_detection(["type=semantic_vad", "eagerness=high", "interrupt_response=false"])
    assert semantic.openai() == {
        "type": "semantic_vad",
        "create_response": True,
        "interrupt_response": False,
        "eagerness": "high",
    }
    assert not semantic.interrupts("openai")


def test_gemini_activity_detection_payloads() -> None:
    assert turn_detection([]).gemini() == {"automaticActivityDetection": {"disabled": False}}
    items = ["start_sensitivity=low", "end_sensitivity=high", "silence_duration_ms=700", "prefix_padding_ms=20"]
    assert turn_detection([*items, "activity_handling=no_interruption"]).gemini() == {
        "automaticActivityDetection": {
            "disabled": False,
            "startOfSpeechSensitivity": "START_SENSITIVITY_LOW",
            "endOfSpeechSensitivity": "END_SENSITIVITY_HIGH",
            "prefixPaddingMs": 20,
            "silenceDurationMs": 700,
        },
        "activityHandling": "NO_INTERRUPTION",
    }


@pytest.mark.parametrize(
    ("items", "says"),
    [
        (["silence=3"], "KEY=VALUE"),
        (["threshold=2"], "[0, 1]"),
        (["eagerness=now"], "one of"),
        (["silence_duration_ms=-1"], "0–10000"),
        (["silence_duration_ms=x"], "a number"),
        (["threshold=0.5", "threshold=0.6"], "twice"),
    ],
)
def test_bad_options_say_what_is_wrong(items: list[str], says: str) -> None:
    with pytest.raises(ConfigError, match=r"--turn-detection.*" + __import__("re").escape(says)):
        turn_detection(items)


def test_options_that_do_not_fit_the_detector_are_refused() -> None:
    with pytest.raises(ConfigError, match="semantic_vad only"):
        TurnDetection(eagerness="low").openai()
    with pytest.raises(ConfigError, match="server_vad only"):
        TurnDetection(type="semantic_vad", threshold=0.5).openai()
    with pytest.raises(ConfigError, match="20–100 ms"):
        StreamSettings(frame_ms=10)


def test_openai_messages_become_events() -> None:
    wire = OpenAIWire("marin", TurnDetection(), "ws://x")
    assert wire.read({"type": "response.created", "response": {"id": "r1"}}, 1.0) == [
        (ServerEvent(1.0, "response_created", "r1", "", "response.created"), None)
    ]
    [(audio, pcm)] = wire.read({"type": "response.output_audio.delta", "response_id": "r1", "delta": PCM}, 1.1)
    assert audio == ModelAudioReceived(1.1, 0.1, "r1") and pcm == b"\x01\x00" * 2400
    barge = wire.read({"type": "input_audio_buffer.speech_started"}, 1.2)
    assert [type(e) for e, _ in barge] == [ServerEvent, PlaybackFlushed]  # a response is active: flush
    done = wire.read({"type": "response.done", "response": {"id": "r1", "status": "cancelled"}}, 1.3)
    assert done[0][0] == ServerEvent(1.3, "response_cancelled", "r1", "", "response.done")
    assert wire.active == set() and wire.created == {"r1": 1.0}
    assert [type(e) for e, _ in wire.read({"type": "input_audio_buffer.speech_started"}, 2.0)] == [ServerEvent]
    error = wire.read({"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}, 2.1)
    assert error[0][0].kind == "error" and error[0][0].text == "no"  # recorded; the session goes on
    with pytest.raises(ProviderError) as raised:
        wire.read({"type": "error", "error": {"type": "rate_limit_exceeded"}}, 2.2)
    assert raised.value.kind == "rate_limit"  # retried as a whole scenario


def test_gemini_messages_become_numbered_turns_and_late_audio_stays_with_its_turn() -> None:
    wire = GeminiWire("m", "Kore", TurnDetection(), "ws://x")
    wire.read({"setupComplete": {}}, 0.0)
    assert wire.ready
    part = {"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": PCM}}
    [(first, _)] = wire.read({"serverContent": {"modelTurn": {"parts": [part]}}}, 1.0)
    assert first == ModelAudioReceived(1.0, 0.1, "turn-1")
    cut = wire.read({"serverContent": {"interrupted": True}}, 1.2)
    assert [e for e, _ in cut] == [
        ServerEvent(1.2, "interrupted", "turn-1", "", "serverContent.interrupted"),
        PlaybackFlushed(1.2, "serverContent.interrupted"),
    ]
    [(late, _)] = wire.read({"serverContent": {"modelTurn": {"parts": [part]}}}, 1.3)
    assert late.response_id == "turn-1"  # audio after the cancel, counted against turn 1
    wire.read({"serverContent": {"turnComplete": True}}, 1.4)
    [(second, _)] = wire.read({"serverContent": {"modelTurn": {"parts": [part]}}}, 2.0)
    assert second.response_id == "turn-2" and wire.created == {"turn-1": 1.0, "turn-2": 2.0}
    bad = {"inlineData": {"mimeType": "audio/pcm;rate=16000", "data": PCM}}
    with pytest.raises(ProviderError, match="audio/pcm;rate=16000"):
        wire.read({"serverContent": {"modelTurn": {"parts": [bad]}}}, 2.1)


def test_frames_on_the_wire() -> None:
    frame = b"\x10\x00" * 480  # 20 ms at 24 kHz
    assert OpenAIWire("marin", TurnDetection()).frame(frame) == {
        "type": "input_audio_buffer.append",
        "audio": base64.b64encode(frame).decode(),
    }
    gemini = GeminiWire("m", "Kore", TurnDetection()).frame(frame)["realtimeInput"]["audio"]
    assert gemini["mimeType"] == "audio/pcm;rate=16000"
    assert base64.b64decode(gemini["data"]) == b"\x10\x00" * 320  # 24 → 16 kHz: 480 samples → 320
    assert to_rate(b"", 16_000) == b""


@pytest.mark.parametrize("delta", ["not base64!", 17, base64.b64encode(b"\x01\x02\x03").decode()])
def test_audio_that_is_not_16_bit_pcm_is_refused(delta: object) -> None:
    wire = OpenAIWire("marin", TurnDetection(), "ws://x")
    with pytest.raises(ProviderError) as raised:
        wire.read({"type": "response.output_audio.delta", "response_id": "r1", "delta": delta}, 1.0)
    assert raised.value.kind == "bad_response" and not raised.value.retryable
