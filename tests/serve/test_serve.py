"""``voxeval serve``: a system behind the OpenAI Realtime protocol, driven by voxeval's own ``realtime:openai:``
client (turn detection off) and by a raw WebSocket client streaming speech through server VAD (turns, barge-in)."""

from __future__ import annotations

import asyncio
import base64
import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tests.serve._client import KEY, RATE, Client, silence
from voxeval.errors import VoxevalError
from voxeval.llm import _cache, set_request_cache
from voxeval.serve import RealtimeServer, ServeOptions, SystemRunner
from voxeval.systems import Turn, open_conversation, system_from_spec
from voxeval.testing.mockserver import sine_wav


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    saved = _cache._request_cache
    set_request_cache(None)
    yield
    _cache._request_cache = saved


@pytest.fixture(scope="module")
def served() -> Iterator[RealtimeServer]:
    """The echo system at real-time pace, behind a key (one server for the module)."""
    runner = SystemRunner(system_from_spec("python:tests.serve._echo:answer"))
    with RealtimeServer(runner, ServeOptions("default-instructions", "en"), key=KEY) as server:
        yield server
    runner.close()


def test_voxeval_client_keeps_the_conversation(served: RealtimeServer) -> None:
    system = system_from_spec(f"realtime:openai:served@{served.url}")

    async def dialogue() -> list[Any]:
        conversation = open_conversation(system, "d1")
        try:
            return [await conversation.respond(Turn(f"t{i}", sine_wav(0.3), "be brief", "hi")) for i in range(2)]
        finally:
            await conversation.close()

    first, second = asyncio.run(dialogue())
    assert first.text == "history=0 prompt=hi system=be brief lang=en heard=300"
    assert second.text.startswith("history=2 prompt=hi")  # the session kept turn 1 and its reply
    assert first.meta["status"] == "completed" and first.meta["model_version"] == "served"
    assert first.audio is not None and len(first.audio) == 44 + RATE  # 0.5 s of 16-bit audio, as the system said


def test_a_wrong_key_is_refused(served: RealtimeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVED_KEY", "wrong")
    system = system_from_spec(f"realtime:openai:served@{served.url}?key_env=SERVED_KEY&max_retries=0")
    with pytest.raises(Exception, match="401"):
        asyncio.run(system.respond(Turn("t", sine_wav(0.2), "s", "u")))


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [("/v1/realtime", {}, 401), ("/v1/realtime", {"Authorization": KEY}, 401), ("/other", {}, 404)],
    ids=["no-key", "no-bearer", "wrong-path"],
)
def test_handshakes_refused(served: RealtimeServer, path: str, headers: dict[str, str], status: int) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with pytest.raises(InvalidStatus) as refused:
        connect(served.url.replace("/v1/realtime", path), additional_headers=headers)
    assert refused.value.response.status_code == status


@pytest.fixture(scope="module")
def speech() -> tuple[np.ndarray, float]:
    """「今日はいい天気ですね」 (pyopenjtalk, 24 kHz) and where its speech starts in the clip."""
    pytest.importorskip("pyopenjtalk")
    pytest.importorskip("faster_whisper")
    from voxeval.duplex import speech_bounds
    from voxeval.speech.audio import input_format_pcm
    from voxeval.speech.tts import PyOpenJTalkEngine, VoiceStyle

    clip = input_format_pcm(PyOpenJTalkEngine().synthesize("今日はいい天気ですね", VoiceStyle()))
    bounds = speech_bounds(clip, RATE)
    assert bounds is not None
    return clip, bounds[0]


def test_server_vad_detects_the_turn_and_answers(served: RealtimeServer, speech: tuple[np.ndarray, float]) -> None:
    clip, onset = speech
    client = Client(served.url)
    client.send({"type": "session.update", "session": {"instructions": "vad", "audio": {"input": {
        "turn_detection": {"type": "server_vad", "silence_duration_ms": 400, "prefix_padding_ms": 200}}}}})  # fmt: skip
    assert client.until("session.updated")["session"]["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 400
    client.audio(np.concatenate([silence(3.0), clip, silence(1.0)]))  # more silence than the 2 s kept before speech
    started = client.until("input_audio_buffer.speech_started")
    stopped = client.until("input_audio_buffer.speech_stopped")
    committed = client.until("input_audio_buffer.committed")
    done = client.until("response.done")
    client.close()
    # Speech starts at 3.0 s + its onset in the clip; the reported start includes the 200 ms prefix (±100 ms: Silero).
    assert started["audio_start_ms"] == pytest.approx((3.0 + onset) * 1000 - 200, abs=100)
    speech_end_ms = (3.0 + len(clip) / RATE - onset) * 1000  # the clip's trailing padding mirrors its leading one
    assert speech_end_ms + 400 - 100 <= stopped["audio_end_ms"] <= speech_end_ms + 400 + 150
    assert started["item_id"] == stopped["item_id"] == committed["item_id"]
    assert done["response"]["status"] == "completed"
    assert done["response"]["output"][0]["content"] == [{"type": "output_audio", "transcript": transcript_of(client)}]
    kinds = [e["type"] for e in client.events]
    transcript = next(e for e in client.events if e["type"] == "response.output_audio_transcript.done")
    heard = stopped["audio_end_ms"] - started["audio_start_ms"]  # the committed turn: padded start to end
    assert transcript["transcript"] == f"history=0 prompt= system=vad lang=en heard={heard}"
    audio = b"".join(base64.b64decode(e["delta"]) for e in client.events if e["type"] == "response.output_audio.delta")
    assert len(audio) == RATE  # 0.5 s, whole
    assert kinds.index("response.created") < kinds.index("response.output_audio.delta") < kinds.index("response.done")


def test_barge_in_cancels_the_reply(served: RealtimeServer, speech: tuple[np.ndarray, float]) -> None:
    clip, _ = speech
    client = Client(served.url)
    client.send({"type": "session.update", "session": {"instructions": "long", "audio": {"input": {
        "turn_detection": {"type": "server_vad", "silence_duration_ms": 300}}}}})  # fmt: skip
    client.audio(np.concatenate([silence(0.5), clip, silence(0.6)]))
    rid = client.until("response.created")["response"]["id"]
    client.until("response.output_audio.delta")  # the 5 s reply is streaming at real-time pace
    client.audio(np.concatenate([silence(0.2), clip]))  # the user speaks again
    client.until("input_audio_buffer.speech_started")
    at_barge_in = len(client.events)
    done = client.until("response.done")
    client.close()
    assert done["response"]["id"] == rid and done["response"]["status"] == "cancelled"
    assert done["response"]["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    after = [e["type"] for e in client.events[at_barge_in:]]
    assert "response.output_audio.delta" not in after  # no audio after the server heard the user
    sent = sum(1 for e in client.events if e["type"] == "response.output_audio.delta")
    assert 1 <= sent < 50  # cut short of the 50 deltas of the whole reply


def vad_session(url: str, instructions: str, **vad: object) -> Client:
    client = Client(url)
    detection = {"type": "server_vad", "silence_duration_ms": 300, **vad}
    client.send({"type": "session.update", "session": {"instructions": instructions, "audio": {"input": {
        "turn_detection": detection}}}})  # fmt: skip
    return client


def test_without_interrupt_response_the_reply_goes_on(served: RealtimeServer, speech: tuple[np.ndarray, float]) -> None:
    clip, _ = speech
    client = vad_session(served.url, "medium", interrupt_response=False)
    client.audio(np.concatenate([silence(0.5), clip, silence(0.4)]))
    client.until("response.output_audio.delta")
    client.audio(np.concatenate([clip, silence(0.4)]))  # a whole second turn while the 1.0 s reply streams
    client.until("input_audio_buffer.speech_started")
    error = client.until("error")["error"]
    done = client.until("response.done")
    client.close()
    assert error["code"] == "conversation_already_has_active_response"  # no second response over the first
    assert done["response"]["status"] == "completed"
    assert sum(1 for e in client.events if e["type"] == "response.output_audio.delta") == 10  # all of it


def test_client_cancel_and_a_new_response_with_history(served: RealtimeServer) -> None:
    client = Client(served.url)
    client.send({"type": "session.update", "session": {"instructions": "long", "audio": {"input": {
        "turn_detection": None}}}})  # fmt: skip
    client.audio(np.asarray(np.frombuffer(sine_wav(0.3)[44:], dtype="<i2")))
    client.send({"type": "input_audio_buffer.commit"})
    client.send({"type": "response.create"})
    client.until("response.output_audio.delta")
    client.send({"type": "response.cancel"})
    done = client.until("response.done")
    assert done["response"]["status_details"]["reason"] == "client_cancelled"
    client.send({"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": [
        {"type": "input_audio", "audio": base64.b64encode(sine_wav(0.2)[44:]).decode()}]}})  # fmt: skip
    client.send({"type": "response.create", "response": {"instructions": "short", "output_modalities": ["text"]}})
    client.until("response.done")
    client.close()
    transcript = next(e for e in client.events if e["type"] == "response.output_audio_transcript.done")["transcript"]
    full = "history=0 prompt= system=long lang=en heard=300"
    assert 0 < len(transcript) < len(full) and full.startswith(transcript)  # what was said before the cancel
    text = client.events[-2]  # text output for this response only; the cancelled turn stays in the history
    said = [{"type": "output_text", "text": "history=2 prompt= system=short lang=en heard=200"}]
    assert (text["type"], text["item"]["content"]) == ("response.output_item.done", said)
    kinds = [e["type"] for e in client.events[-5:]]
    assert kinds == ["response.output_item.added", "response.output_text.delta", "response.output_text.done",
                     "response.output_item.done", "response.done"]  # fmt: skip


BAD = [
    ("not json", "invalid_json", None),
    (json.dumps([1]), "invalid_json", None),
    (json.dumps({"type": "input_audio_buffer.nope"}), "invalid_event", "type"),
    (json.dumps({"type": "input_audio_buffer.append", "audio": "!!"}), "invalid_value", "audio"),
    (json.dumps({"type": "input_audio_buffer.append"}), "invalid_value", "audio"),
    (json.dumps({"type": "input_audio_buffer.commit", "event_id": "c1"}), "input_audio_buffer_commit_empty", None),
    (json.dumps({"type": "response.cancel"}), "response_cancel_not_active", "response_id"),
    (json.dumps({"type": "response.create"}), "nothing_to_answer", None),
    (json.dumps({"type": "session.update", "session": {"audio": {"input": {"format": {"type": "audio/pcmu"}}}}}),
     "unsupported", "session.audio.input.format"),
    (json.dumps({"type": "session.update", "session": {"audio": {"input": {"turn_detection": {
        "type": "semantic_vad"}}}}}), "unsupported", "session.audio.input.turn_detection"),
    (json.dumps({"type": "session.update", "session": {"audio": {"input": {"turn_detection": {
        "type": "server_vad", "threshold": 2}}}}}), "invalid_value", "session.audio.input.turn_detection.threshold"),
    (json.dumps({"type": "session.update", "session": {"tools": [{"type": "function", "name": "f"}]}}),
     "unsupported", "session.tools"),
    (json.dumps({"type": "conversation.item.create", "item": {"type": "function_call"}}), "unsupported", "item.type"),
    (json.dumps({"type": "conversation.item.create", "previous_item_id": "item_x", "item": {"type": "message",
     "role": "user", "content": [{"type": "input_text", "text": "hi"}]}}), "unsupported", "previous_item_id"),
    (json.dumps({"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": []}}),
     "invalid_value", "item.content"),
]  # fmt: skip


def test_bad_input_gets_an_error_event_and_the_session_goes_on(served: RealtimeServer) -> None:
    client = Client(served.url)
    for raw, code, param in BAD:
        client.ws.send(raw)
        error = client.until("error")["error"]
        assert (error["type"], error["code"], error["param"]) == ("invalid_request_error", code, param), raw
    assert error["event_id"] is None and client.events[-2:] != []
    client.send({"type": "input_audio_buffer.commit", "event_id": "mine"})
    assert client.until("error")["error"]["event_id"] == "mine"  # the client's id comes back
    client.send({"type": "session.update", "session": {"instructions": "still here"}})
    assert client.until("session.updated")["session"]["instructions"] == "still here"
    client.close()


@pytest.mark.parametrize(("pace", "speed"), [("realtime", 1.0), ("instant", math.inf), ("2.5", 2.5)])
def test_pace(pace: str, speed: float) -> None:
    from voxeval.cli._serve import parse_pace

    assert parse_pace(pace) == speed


@pytest.mark.parametrize("pace", ["0", "-1", "nan", "fast"])
def test_bad_pace_is_refused(pace: str) -> None:
    from voxeval.cli._serve import parse_pace

    with pytest.raises(VoxevalError, match="--pace"):
        parse_pace(pace)


def test_the_openai_sdk_is_a_client(served: RealtimeServer) -> None:
    """The ``openai`` SDK's own realtime client talks to the server (its key as the bearer)."""
    openai = pytest.importorskip("openai")

    async def one_turn() -> tuple[str, str]:
        client = openai.AsyncOpenAI(api_key=KEY, websocket_base_url=served.url.removesuffix("/realtime"))
        async with client.realtime.connect(model="served") as connection:
            session = {"type": "realtime", "instructions": "sdk", "audio": {"input": {"turn_detection": None}}}
            await connection.session.update(session=session)
            await connection.input_audio_buffer.append(audio=base64.b64encode(sine_wav(0.3)[44:]).decode())
            await connection.input_audio_buffer.commit()
            await connection.response.create()
            transcript = ""
            async for event in connection:
                if event.type == "response.output_audio_transcript.done":
                    transcript = event.transcript
                if event.type == "response.done":
                    return transcript, str(event.response.status)
        raise AssertionError("the session ended before response.done")

    assert asyncio.run(one_turn()) == ("history=0 prompt= system=sdk lang=en heard=300", "completed")


def test_without_create_response_the_client_asks(served: RealtimeServer, speech: tuple[np.ndarray, float]) -> None:
    clip, _ = speech
    client = vad_session(served.url, "asked", create_response=False)
    client.audio(np.concatenate([silence(0.3), clip, silence(0.4)]))
    item = client.until("input_audio_buffer.committed")["item_id"]
    client.send({"type": "input_audio_buffer.clear"})  # a marker: all the server did for the turn came before it
    client.until("input_audio_buffer.cleared")
    assert not any(e["type"].startswith("response.") for e in client.events)  # the turn ended, nobody answered
    client.send({"type": "response.create"})
    done = client.until("response.done")
    client.close()
    assert done["response"]["status"] == "completed" and item in [e.get("item", {}).get("id") for e in client.events]


@pytest.mark.parametrize(("instructions", "reason"), [("fail", "asked to fail"), ("garbled", "reply audio of")])
def test_a_failing_system_gives_a_failed_response(served: RealtimeServer, instructions: str, reason: str) -> None:
    client = Client(served.url)
    client.send({"type": "session.update", "session": {"instructions": instructions, "audio": {"input": {
        "turn_detection": None}}}})  # fmt: skip
    client.audio(np.asarray(np.frombuffer(sine_wav(0.2)[44:], dtype="<i2")))
    client.send({"type": "input_audio_buffer.commit"})
    client.send({"type": "response.create"})
    failed = client.until("response.done")["response"]
    client.send({"type": "session.update", "session": {"instructions": "fine"}})  # the session goes on
    client.until("session.updated")
    client.close()
    assert failed["status"] == "failed" and reason in failed["status_details"]["error"]["message"]
    assert not any(e["type"] == "response.output_audio.delta" for e in client.events)


def transcript_of(client: Client) -> str:
    return str(next(e for e in client.events if e["type"] == "response.output_audio_transcript.done")["transcript"])


# Last in the module: the cancelled call keeps the worker thread asleep for its 0.8 s (it cannot be interrupted).
def test_barge_in_while_the_reply_is_being_made(served: RealtimeServer, speech: tuple[np.ndarray, float]) -> None:
    clip, _ = speech
    client = vad_session(served.url, "slow")  # the system blocks its thread for 0.8 s
    client.audio(np.concatenate([silence(0.5), clip, silence(0.4)]))
    rid = client.until("response.created")["response"]["id"]
    client.audio(clip)  # at once: the socket loop hears it while the system is still thinking
    client.until("input_audio_buffer.speech_started")
    done = client.until("response.done", timeout=0.5)  # long before the system would have answered
    client.close()
    assert (done["response"]["id"], done["response"]["status"]) == (rid, "cancelled")
    assert not any(e["type"].startswith("response.output") for e in client.events)  # it never said a thing
