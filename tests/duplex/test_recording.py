"""The stereo recording: user frames where they were sent, model audio where it played, one timeline."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.duplex.records import flush, record, speech
from voxeval.duplex import (
    ModelAudioReceived,
    UserAudioSent,
    encode_stereo_wav,
    speech_bounds,
    stereo_recording,
)

RATE = 1000  # a small rate keeps the arrays readable; the function takes any


def tone(seconds: float, level: int) -> np.ndarray:
    return np.full(round(seconds * RATE), level, dtype="<i2")


def test_user_left_model_right_queued_back_to_back_and_cut_by_a_flush() -> None:
    events = [
        UserAudioSent(0.0, 0.1, None),
        UserAudioSent(0.1, 0.1, 0),
        ModelAudioReceived(0.5, 0.2, "r1"),
        ModelAudioReceived(0.5, 0.2, "r1"),  # a burst: plays after the first chunk
        ModelAudioReceived(0.55, 0.3, "r1"),
        flush(0.8),  # the third chunk had not begun: it never plays
        ModelAudioReceived(1.0, 0.1, "r2"),
    ]
    made = record("end_of_turn", events)
    user = [tone(0.1, 0), tone(0.1, 100)]
    model = [tone(0.2, 1), tone(0.2, 2), tone(0.3, 3), tone(0.1, 4)]
    frames = stereo_recording(made.events, user, model, RATE)
    left, right = frames[:, 0], frames[:, 1]
    assert frames.shape[0] >= round(made.events[-1].t * RATE)
    assert (left[100:200] == 100).all() and not left[:100].any() and not left[200:].any()
    assert (right[500:700] == 1).all() and (right[700:800] == 2).all()
    assert not (right == 3).any() and (right[1000:1100] == 4).all() and not right[1100:].any()


def test_a_flush_cuts_the_chunk_that_is_playing() -> None:
    events = [ModelAudioReceived(0.0, 1.0, "r1"), flush(0.4)]
    frames = stereo_recording(record("end_of_turn", events).events, [], [tone(1.0, 7)], RATE)
    assert (frames[:400, 1] == 7).all() and not frames[400:, 1].any()


def test_overlapping_user_frames_mix_and_clip() -> None:
    events = [UserAudioSent(0.0, 0.2, 0), UserAudioSent(0.1, 0.2, 0)]
    frames = stereo_recording(record("end_of_turn", events).events, [tone(0.2, 30000), tone(0.2, 30000)], [], RATE)
    assert frames[50, 0] == 30000 and frames[150, 0] == 32767


@pytest.mark.parametrize(
    ("user", "model", "words"),
    [
        ([], [], "1 user audio events but 0"),
        ([tone(0.1, 1)], [], "1 model audio events but 0"),
        ([tone(0.3, 1)], [tone(0.2, 1)], "user audio chunk 0: 300 samples"),
    ],
)
def test_pcm_that_does_not_match_its_events_is_refused(user, model, words) -> None:
    events = record("end_of_turn", [UserAudioSent(0.0, 0.1, 0), ModelAudioReceived(0.2, 0.2)]).events
    with pytest.raises(ValueError, match=words):
        stereo_recording(events, user, model, RATE)


def test_the_wav_is_24_khz_stereo_16_bit() -> None:
    frames = np.array([[1, -1], [2, -2], [3, -3]], dtype="<i2")
    data, rate = soundfile.read(io.BytesIO(encode_stereo_wav(frames)), dtype="int16")
    assert rate == 24_000 and data.tolist() == frames.tolist()
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        encode_stereo_wav(np.zeros(4, dtype="<i2"))


def test_speech_bounds_of_a_clip() -> None:
    assert speech_bounds(np.concatenate([tone(0.12, 0), tone(0.5, 900), tone(0.12, 0)]), RATE) == (0.12, 0.62)
    assert speech_bounds(tone(0.3, 10), RATE) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3000), st.integers(1, 200)), max_size=6),
    st.lists(st.tuples(st.integers(0, 3000), st.integers(1, 500)), max_size=6),
    st.lists(st.integers(0, 3000), max_size=2),
)
def test_the_recording_covers_every_event_and_every_sample(sent, received, flushes) -> None:
    events = [UserAudioSent(t / RATE, n / RATE, None) for t, n in sent]
    events += [ModelAudioReceived(t / RATE, n / RATE, "r") for t, n in received]
    events += [flush(t / RATE) for t in flushes]
    made = record("end_of_turn", events, speech(0, 0.1, 0.2))
    user = [tone(n / RATE, 5) for _, n in sorted(sent, key=lambda x: x[0])]
    model = [tone(n / RATE, 9) for _, n in sorted(received, key=lambda x: x[0])]
    frames = stereo_recording(made.events, user, model, RATE)
    assert frames.shape[0] >= made.events[-1].t * RATE
    assert frames.shape[0] >= max([(t + n) for t, n in sent], default=0)
    heard = int(np.count_nonzero(frames[:, 1]))  # the model never plays more than it sent, nor two chunks at once
    assert heard <= sum(n for _, n in received)
    if not flushes:
        assert heard == sum(n for _, n in received)
