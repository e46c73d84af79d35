"""Speech detection on the model channel (Silero VAD via faster-whisper) on synthetic speech with silences."""

from __future__ import annotations

import numpy as np
import pytest

from voxeval.duplex import Span, speech_bounds, speech_spans

pytest.importorskip("faster_whisper")
RATE = 24_000


@pytest.fixture(scope="module")
def two_utterances() -> tuple[np.ndarray, list[Span]]:
    """0.5 s of silence, 「今日はいい天気ですね」, 1.0 s of silence, the same again, 0.5 s of silence; and where the
    speech is (from the samples themselves)."""
    pytest.importorskip("pyopenjtalk")
    from voxeval.speech.audio import input_format_pcm
    from voxeval.speech.tts import PyOpenJTalkEngine, VoiceStyle

    clip = input_format_pcm(PyOpenJTalkEngine().synthesize("今日はいい天気ですね", VoiceStyle()))
    bounds = speech_bounds(clip, RATE)
    assert bounds is not None
    gap = np.zeros(RATE // 2, dtype="<i2")
    pcm = np.concatenate([gap, clip, gap, gap, clip, gap])
    first = 0.5 + bounds[0]
    second = 0.5 + clip.size / RATE + 1.0 + bounds[0]
    length = bounds[1] - bounds[0]
    return pcm, [Span(first, first + length), Span(second, second + length)]


def test_two_utterances_are_two_spans_where_the_speech_is(two_utterances) -> None:
    pcm, truth = two_utterances
    spans = speech_spans(pcm, RATE, offset_s=10.0)
    assert len(spans) == 2
    for got, want in zip(spans, truth, strict=True):
        # Silero decides per 32 ms window and may trim a soft start or end: 150 ms either way.
        assert got.start - 10.0 == pytest.approx(want.start, abs=0.15)
        assert got.end - 10.0 == pytest.approx(want.end, abs=0.15)


def test_float_and_int16_input_agree(two_utterances) -> None:
    pcm, _ = two_utterances
    assert speech_spans(pcm.astype(np.float32) / 32768.0, RATE) == speech_spans(pcm, RATE)


@pytest.mark.parametrize("pcm", [np.zeros(0, dtype="<i2"), np.zeros(RATE, dtype="<i2")], ids=["empty", "silence"])
def test_silence_has_no_speech(pcm: np.ndarray) -> None:
    assert speech_spans(pcm, RATE) == []


def test_stereo_is_refused() -> None:
    with pytest.raises(ValueError, match="mono"):
        speech_spans(np.zeros((10, 2), dtype="<i2"), RATE)
