"""The loop guard of the full-window decode, fed looping decoder output directly (no model, any CPU).

A fake faster-whisper model answers each ``transcribe`` call with the next scripted text, so these tests see what
the guard does with a loop whether or not this machine's Whisper would loop.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from voxeval.speech.asr._loop import loop_symptom
from voxeval.speech.asr._whisper import PAD, RECOVERY, _decode_full, decode_guarded

pytest.importorskip("ctranslate2")  # the guard seeds CTranslate2's sampler before each decode

CLEAN = "3分のタイマーをスタートしました。"
LOOPS = [
    CLEAN + "はぁ" + "ぁ" * 60,  # issue 39's full-window decode
    CLEAN + "はっ" * 40,
    "Okay, the timer is set. the the the the the the",
    "抱歉,我愛了這條,林留帕的帕林,我愛了這條,林留帕的帕林,我愛了這條,",
]
LOOP_IDS = ["issue-39", "ha-ha", "the-the", "zh-clause"]
SPEECH = [(8_000, 40_000)]
"""VAD speech of the fake 3 s clip: 0.5–2.5 s."""


class FakeWhisper:
    """Answers ``transcribe`` with the scripted texts in turn (the last one again when they run out)."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.calls: list[dict[str, Any]] = []

    def transcribe(self, audio: Any, language: str | None = None, **options: Any) -> tuple[Any, Any]:
        self.calls.append({"samples": len(audio), **options})
        text = self.texts[min(len(self.calls), len(self.texts)) - 1]
        word = SimpleNamespace(word=text[:3], start=0.1, end=0.4)
        segment = SimpleNamespace(text=text, words=[word])
        info = SimpleNamespace(language=language or "ja", language_probability=0.9, duration=len(audio) / 16_000)
        return iter([segment]), info


AUDIO = np.zeros(48_000, dtype=np.float32)


@pytest.mark.parametrize("loop", LOOPS, ids=LOOP_IDS)
def test_a_loop_is_decoded_again_and_the_clean_text_returned(loop: str) -> None:
    model = FakeWhisper(loop, CLEAN)
    heard, extra = decode_guarded(model, AUDIO, "ja", SPEECH)
    assert loop_symptom(loop, "ja", 2.0) is not None  # the scripted first decode does loop
    assert (heard.text, heard.looped, extra, len(model.calls)) == (CLEAN, None, 1, 2)
    options = RECOVERY[0][1]
    assert {k: model.calls[1][k] for k in options} == options  # the recovery's settings were used
    assert model.calls[0]["temperature"] == 0.0  # the first decode is the plain one


@pytest.mark.parametrize("loop", LOOPS, ids=LOOP_IDS)
def test_a_loop_every_recovery_repeats_is_returned_marked(loop: str) -> None:
    model = FakeWhisper(loop)
    heard = _decode_full(model, AUDIO, "ja", SPEECH)
    assert heard.text == loop and heard.looped == loop_symptom(loop, "ja", 2.0) is not None
    assert len(model.calls) == 1 + len(RECOVERY)  # every recovery was tried, then it gave up and said so


def test_a_clean_decode_costs_one_call() -> None:
    model = FakeWhisper(CLEAN, LOOPS[0])
    heard, extra = decode_guarded(model, AUDIO, "ja", SPEECH)
    assert (heard.text, heard.looped, extra, len(model.calls)) == (CLEAN, None, 0, 1)


def test_the_trimmed_recovery_decodes_the_speech_only_and_keeps_clip_times() -> None:
    trimmed = next(i for i, (trim, _) in enumerate(RECOVERY) if trim)
    model = FakeWhisper(*[LOOPS[0]] * (trimmed + 1), CLEAN)
    heard, extra = decode_guarded(model, AUDIO, "ja", SPEECH)
    assert heard.text == CLEAN and extra == trimmed + 1
    assert model.calls[-1]["samples"] == SPEECH[0][1] - SPEECH[0][0] + 2 * PAD
    assert heard.words[0].start == pytest.approx((SPEECH[0][0] - PAD) / 16_000 + 0.1)


def test_a_rate_loop_needs_the_speech_time() -> None:
    fast = "明日は晴れ、明後日は雨、その次は曇りで、週末は雪でしょう。来週も雨でしょう。"
    assert decode_guarded(FakeWhisper(fast, CLEAN), AUDIO, "ja", [(0, 16_000)])[0].text == CLEAN  # 1 s: too fast
    assert decode_guarded(FakeWhisper(fast, CLEAN), AUDIO, "ja", [(0, 64_000)])[0].text == fast  # 4 s: speech
