"""Send times from the plan, and segment audio from input audio or a TTS engine (test doubles, no synthesis)."""

from __future__ import annotations

import numpy as np
import pytest

from voxeval.duplex import (
    Clip,
    InputAudio,
    Segment,
    SendAt,
    SpokenText,
    render_clip,
    send_start,
    speech_markers,
)
from voxeval.errors import InputError
from voxeval.speech.audio import Audio, encode_wav

CLIP = Clip(b"\0\0" * 24_000, 0.12, 0.88)

SENDS = [
    # (anchor, offset, previous_offset, reply_onset, not_before, expected start)
    ("start", 0.5, None, None, 0.0, 0.38),
    ("previous_offset", 1.5, 2.0, None, 2.12, 3.38),
    ("previous_offset", 0.0, 2.0, None, 2.12, 2.12),  # never mixed into the previous clip
    ("previous_offset", 1.0, None, None, 0.0, None),
    ("reply_onset", 1.2, 2.0, 4.0, 2.12, 5.08),
    ("reply_onset", 1.2, 2.0, None, 2.12, None),  # no reply yet: wait
]


@pytest.mark.parametrize(("anchor", "offset", "previous", "reply", "not_before", "expected"), SENDS)
def test_send_start(anchor, offset, previous, reply, not_before, expected) -> None:
    segment = Segment("request", SpokenText("x", "ja"), SendAt(anchor, offset))
    got = send_start(segment, CLIP, previous_offset=previous, reply_onset=reply, not_before=not_before)
    assert got == (None if expected is None else pytest.approx(expected))
    if got is not None:
        onset, offset_marker = speech_markers(1, got, CLIP)
        assert onset.t == pytest.approx(got + 0.12) and offset_marker.t == pytest.approx(got + 0.88)
        assert (onset.edge, offset_marker.edge, onset.segment) == ("onset", "offset", 1)


class ToneEngine:
    """A TTS double: a 0.4 s tone at 16 kHz, whatever the text (or silence for the empty text)."""

    name, language = "tone", "ja"

    def synthesize(self, text: str, style: object) -> Audio:
        level = 0.0 if not text.strip() else 0.3
        return Audio(np.full(6400, level, dtype=np.float32), 16_000)


def test_render_input_audio_and_spoken_text() -> None:
    pcm = np.concatenate([np.zeros(2880), np.full(12_000, 3000), np.zeros(2880)]).astype("<i2")
    wavs = {InputAudio("d", "s1"): encode_wav(pcm, 24_000)}
    request = render_clip(Segment("request", InputAudio("d", "s1"), SendAt("start", 0.5)), wavs.__getitem__, None)
    assert (request.onset_s, request.offset_s, request.duration_s) == (0.12, 0.62, 0.74)
    nod = render_clip(
        Segment("backchannel", SpokenText("うん", "ja"), SendAt("reply_onset", 1.0)), None, lambda _: ToneEngine()
    )
    assert nod.onset_s == pytest.approx(0.12) and nod.offset_s == pytest.approx(0.52)


def test_a_silent_clip_is_an_error() -> None:
    wavs = {InputAudio("d", "s1"): encode_wav(np.zeros(4800, dtype="<i2"), 24_000)}
    with pytest.raises(InputError, match="silent"):
        render_clip(Segment("request", InputAudio("d", "s1"), SendAt("start", 0.5)), wavs.__getitem__, None)
