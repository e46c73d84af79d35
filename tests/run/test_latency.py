"""The latency record of a reply, the scored channel of a reply row, and the recorded reply settings (pure)."""

from __future__ import annotations

import json

import pytest

from tests.run.asr_doubles import clip
from voxeval.errors import InputError
from voxeval.run import RunSettings
from voxeval.run._latency import audio_seconds, measure_latency
from voxeval.run._reply_asr import scored_reply
from voxeval.systems import ReplyTiming, Turn
from voxeval.systems._replay import ReplaySystem


@pytest.mark.parametrize(
    ("timing", "has_text", "has_audio", "audio_s", "expected"),
    [
        # request/response: every "first" is the whole call, when that channel is there at all
        (None, True, True, 2.0, (1.0, 1.0, 1.0, 2.0, 0.5, "call")),
        (None, False, True, 4.0, (1.0, None, 1.0, 4.0, 0.25, "call")),
        (None, True, False, None, (None, 1.0, 1.0, None, None, "call")),
        (None, False, True, None, (1.0, None, 1.0, None, None, "call")),  # audio that cannot be decoded
        (None, False, True, 0.0, (1.0, None, 1.0, 0.0, None, "call")),  # 0 s of audio: no real-time factor
        # streaming: the system's own times, whatever the reply stage measured around the call
        (ReplyTiming(0.2, 0.1, 0.8), True, True, 1.6, (0.2, 0.1, 0.8, 1.6, 0.5, "system")),
        (ReplyTiming(None, 0.1, None), True, False, None, (None, 0.1, None, None, None, "system")),
    ],
)
def test_measure_latency(timing, has_text, has_audio, audio_s, expected) -> None:
    got = measure_latency(timing, 1.0, has_text=has_text, has_audio=has_audio, audio_s=audio_s)
    assert (got.first_audio_s, got.first_text_s, got.total_s, got.audio_s, got.rtf, got.timed_by) == expected
    assert set(got.to_json()) == {"first_audio_s", "first_text_s", "total_s", "audio_s", "rtf", "timed_by"}


def test_audio_seconds_reads_wav_and_refuses_what_is_not_audio() -> None:
    assert audio_seconds(clip("x", seconds=0.75)) == pytest.approx(0.75)
    assert audio_seconds(b"") is None
    assert audio_seconds(b"RIFF\x00\x00\x00\x00WAVEjunk") is None
    assert audio_seconds(b"\x00" * 64) is None


REPLY = {"status": "empty", "outcome": "empty", "text": "", "audio": "a.wav", "dataset": "d", "system": "s", "id": "1"}
TEXT_ONLY = {"status": "ok", "outcome": "ok", "text": "はい。", "dataset": "d", "system": "s", "id": "2"}
FAILED = {
    "status": "failed",
    "outcome": "failed",
    "text": "",
    "error": "boom",
    "dataset": "d",
    "system": "s",
    "id": "3",
}
HEARD = {"status": "ok", "text": "聞こえた。"}


@pytest.mark.parametrize(
    ("reply", "heard", "mode", "expected"),
    [
        (REPLY, HEARD, "speech", ("ok", "聞こえた。", "speech")),
        (REPLY, HEARD, "model", ("empty", "", "model")),  # the model channel: a speech-only reply is empty
        (REPLY, {"status": "ok", "text": "  "}, "speech", ("empty", "", "speech")),  # silence heard: empty
        (REPLY, None, "speech", ("failed", "", "speech")),  # not transcribed yet: not scored, listed
        (REPLY, {"status": "failed", "error": "x"}, "speech", ("failed", "", "speech")),
        (REPLY, {"status": "ok", "text": "x\ufffd"}, "speech", ("failed", "", "speech")),  # undecodable text
        (TEXT_ONLY, None, "speech", ("ok", "はい。", "model")),  # no audio: its text, whatever the mode
        (FAILED, None, "speech", ("failed", "", "model")),
    ],
)
def test_scored_reply(reply, heard, mode, expected) -> None:
    row = scored_reply(reply, heard, mode)
    assert (row["status"], row["text"], row["text_source"]) == expected
    assert row["model_text"] == reply["text"]
    assert ("asr_text" in row) == bool(heard and heard["status"] == "ok")


def test_scored_reply_says_why_it_is_not_scored() -> None:
    assert (
        scored_reply(REPLY, {"status": "failed", "error": "Error: bad"}, "speech")["error"] == "reply ASR: Error: bad"
    )
    assert scored_reply(REPLY, None, "speech")["outcome"] == "pending"
    assert "error" not in scored_reply({**REPLY, "error": "old"}, HEARD, "speech")


def test_settings_of_earlier_runs_keep_their_fingerprint() -> None:
    legacy = RunSettings("da", ("ja-assistant",), ("s",), "offline", "pyopenjtalk")
    assert "reply" not in legacy.to_json()["extra"]  # model text, no ASR: what every earlier run did
    speech = RunSettings("da", ("ja-assistant",), ("s",), "offline", "pyopenjtalk", reply_text="speech",
                         reply_asr="whisper-base")  # fmt: skip
    assert speech.fingerprint() != legacy.fingerprint()
    for settings in (legacy, speech):
        assert RunSettings.from_json(json.loads(json.dumps(settings.to_json()))) == settings


def _replay(tmp_path, latency) -> ReplaySystem:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"id": "1", "text": "はい", "latency": latency}) + "\n", encoding="utf-8")
    return ReplaySystem(path)


def test_replay_keeps_the_recorded_latency(tmp_path) -> None:
    import asyncio

    system = _replay(tmp_path, {"first_audio_s": 0.4, "first_text_s": None, "total_s": 1.2, "rtf": 0.3})
    reply = asyncio.run(system.respond(Turn("1", b"", "", "")))
    assert reply.timing == ReplyTiming(0.4, None, 1.2)


@pytest.mark.parametrize("latency", [[1.0], "fast", {"total_s": -1}, {"total_s": "1"}, {"total_s": True},
                                     {"first_text_s": {}}])  # fmt: skip
def test_replay_refuses_a_bad_latency(tmp_path, latency) -> None:
    with pytest.raises(InputError, match="latency"):
        _replay(tmp_path, latency)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.1, "1.0", True])
def test_a_system_reporting_impossible_times_is_refused(bad) -> None:
    with pytest.raises(ValueError, match=r"Reply\.timing\.total_s must be a finite number of seconds"):
        measure_latency(ReplyTiming(0.1, 0.1, bad), 1.0, has_text=True, has_audio=True, audio_s=1.0)


class Streaming:
    """A system that reports its own timings (as the streaming systems do)."""

    name = "streaming"
    concurrency = 1

    def __init__(self, timing: ReplyTiming) -> None:
        self.timing = timing

    async def respond(self, turn: Turn):
        from voxeval.systems import Reply

        return Reply("はい。", clip("はい。", seconds=0.4), timing=self.timing)

    def describe(self) -> dict:
        return {}


def _reply_row(tmp_path, timing: ReplyTiming) -> dict:
    import asyncio

    from voxeval.run._replies import ReplyItem, ReplyWorker

    (tmp_path / "in.wav").write_bytes(clip("入力"))
    worker = ReplyWorker(Streaming(timing), tmp_path, {"d/1": {"audio": "in.wav"}}, ("system", "user"))
    (row,) = asyncio.run(worker(ReplyItem("d", "1", "")))
    return row


def test_reply_stage_keeps_a_streaming_systems_own_times(tmp_path) -> None:
    row = _reply_row(tmp_path, ReplyTiming(0.25, 0.125, 0.8))
    assert row["status"] == "ok" and row["audio"].startswith("audio/replies/")
    assert row["latency"] == {"first_audio_s": 0.25, "first_text_s": 0.125, "total_s": 0.8, "audio_s": 0.4,
                              "rtf": 2.0, "timed_by": "system"}  # fmt: skip


def test_reply_with_impossible_times_fails_and_writes_no_audio(tmp_path) -> None:
    row = _reply_row(tmp_path, ReplyTiming(0.25, 0.125, -1.0))
    assert row["status"] == "failed" and "Reply.timing.total_s must be a finite number" in row["error"]
    assert not (tmp_path / "audio").exists()
