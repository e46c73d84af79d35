"""The core end to end, without a socket: plan → clips → a simulated session's events → stereo recording → VAD on
the model channel → record on disk → figures by both evidences (real pyopenjtalk speech on both channels)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import soundfile

from voxeval.duplex import (
    RECORDING_RATE,
    Event,
    ModelAudioReceived,
    ScenarioSource,
    SessionEnded,
    SessionRecord,
    Span,
    UserAudioSent,
    check_record_row,
    encode_stereo_wav,
    end_of_turn,
    onset_latency,
    read_records,
    record_row,
    render_clip,
    send_start,
    session_key,
    speech_markers,
    speech_spans,
    stereo_recording,
)
from voxeval.io import AppendLog

pytest.importorskip("faster_whisper")
pytest.importorskip("pyopenjtalk")
FRAME = 2400  # 100 ms frames
REPLY_AFTER_S = 0.6


def test_a_simulated_session_gives_the_same_onset_by_server_and_by_vad(tmp_path: Path) -> None:
    from voxeval.speech.audio import encode_wav, input_format_pcm
    from voxeval.speech.tts import PyOpenJTalkEngine, VoiceStyle

    engine = PyOpenJTalkEngine()
    request = input_format_pcm(engine.synthesize("明日の天気を教えて", VoiceStyle()))
    plan = end_of_turn(ScenarioSource("ja-assistant", "s1", "ja", "明日の天気を教えて"), seed=0)
    clip = render_clip(plan.segments[0], lambda _: encode_wav(request, RECORDING_RATE), None)
    start = send_start(plan.segments[0], clip, previous_offset=None, reply_onset=None, not_before=0.0)
    assert start is not None
    onset, offset = speech_markers(0, start, clip)

    # The user's side: silence frames until the clip, the clip, then silence; 100 ms frames at real-time pace.
    pcm = np.concatenate([np.zeros(round(start * RECORDING_RATE)), np.frombuffer(clip.pcm, "<i2")]).astype("<i2")
    pcm = np.concatenate([pcm, np.zeros(FRAME * 30 - pcm.size % FRAME, dtype="<i2")])
    frames = [pcm[k : k + FRAME] for k in range(0, pcm.size, FRAME)]
    events: list[Event] = [UserAudioSent(k * 0.1, 0.1, None) for k in range(len(frames))]
    # The model's side: its reply (120 ms of silence, then speech) in one burst of 200 ms chunks.
    reply = input_format_pcm(engine.synthesize("明日は晴れです", VoiceStyle()))
    chunks = [reply[k : k + 4800] for k in range(0, reply.size, 4800)]
    arrival = offset.t + REPLY_AFTER_S
    events += [ModelAudioReceived(arrival, c.size / RECORDING_RATE, "r1") for c in chunks]
    events += [onset, offset]
    events.sort(key=lambda e: e.t)
    events.append(SessionEnded(len(frames) * 0.1 + 0.1, "answered"))

    stereo = stereo_recording(events, frames, chunks)
    wav = tmp_path / "rec.wav"
    wav.write_bytes(encode_stereo_wav(stereo))
    channels, rate = soundfile.read(io.BytesIO(wav.read_bytes()), dtype="int16")
    assert rate == RECORDING_RATE and channels.shape == stereo.shape
    heard = tuple(speech_spans(channels[:, 1], rate))
    record = SessionRecord(session_key("simulated", plan), "simulated", plan, "s1", tuple(events), "rec.wav", heard)

    with AppendLog(tmp_path / "sessions.jsonl", check=check_record_row) as log:
        log.append(record_row(record))
    [(_, back)] = list(read_records(tmp_path / "sessions.jsonl"))
    assert back == record

    server, vad = onset_latency(back, "server"), onset_latency(back, "vad")
    assert server.latency_s == pytest.approx(REPLY_AFTER_S)
    # Server evidence counts the reply's leading 120 ms of silence as audio; the VAD hears where speech begins.
    assert vad.latency_s is not None and vad.latency_s - server.latency_s == pytest.approx(0.12, abs=0.1)
    # And the VAD hears the user's speech where the plan put it (left channel).
    [user] = speech_spans(channels[:, 0], rate)
    assert user.start == pytest.approx(onset.t, abs=0.1) and user.end == pytest.approx(offset.t, abs=0.15)
    assert isinstance(user, Span)
