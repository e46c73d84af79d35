"""Bit-exact input format with the default engine (pyopenjtalk) on short Japanese texts."""

from __future__ import annotations

import numpy as np
import pytest

from tests.speech.helpers import parse_header, pcm
from voxeval.speech.audio import PAD_SAMPLES, load_audio, to_input_format
from voxeval.speech.tts import VoiceStyle, engine_from_spec

TEXTS = ["10分のタイマーをセットして", "今日の東京の天気は？", "はい。"]


@pytest.fixture(scope="module")
def rendered() -> dict[str, bytes]:
    engine = engine_from_spec("pyopenjtalk")
    return {text: to_input_format(engine.synthesize(text, VoiceStyle())) for text in TEXTS}


@pytest.mark.parametrize("text", TEXTS)
def test_riff_header_is_24k_16bit_mono_pcm(rendered, text) -> None:
    data = rendered[text]
    h = parse_header(data)
    assert (h.riff, h.wave, h.fmt, h.data) == (b"RIFF", b"WAVE", b"fmt ", b"data")
    assert (h.fmt_size, h.audio_format, h.channels, h.sample_rate, h.bits) == (16, 1, 1, 24000, 16)
    assert (h.byte_rate, h.block_align) == (48000, 2)
    assert h.riff_size == len(data) - 8 and h.data_size == len(data) - 44


@pytest.mark.parametrize("text", TEXTS)
def test_exactly_120_ms_of_zeros_then_speech_at_both_ends(rendered, text) -> None:
    samples = pcm(rendered[text])
    assert PAD_SAMPLES == 2880
    assert not samples[:2880].any() and not samples[-2880:].any()
    assert samples[2880] != 0 and samples[-2881] != 0  # the engine's own silence was trimmed
    assert len(samples) > 2 * 2880 + 2400  # some speech in between


def test_output_is_byte_identical_across_runs(rendered) -> None:
    engine = engine_from_spec("pyopenjtalk")
    for text in TEXTS:
        assert to_input_format(engine.synthesize(text, VoiceStyle())) == rendered[text]


def test_output_loads_back_without_conversion(rendered, tmp_path) -> None:
    path = tmp_path / "x.wav"
    path.write_bytes(rendered[TEXTS[0]])
    loaded = load_audio(path)
    assert loaded.conversion == () and loaded.audio.sample_rate == 24000
    assert np.array_equal(np.round(loaded.audio.samples * 32768).astype(np.int16), pcm(rendered[TEXTS[0]]))
