"""Doubles for realtime/live end-to-end runs: an instant TTS for inputs and mock responders keyed by the audio."""

from __future__ import annotations

import hashlib
import wave
from typing import Any

import numpy as np

from tests.run.asr_doubles import SaidASR
from tests.run.mock_replies import GOLD_REPLIES
from voxeval.speech.asr import asr_engines
from voxeval.speech.audio import Audio
from voxeval.speech.tts import VoiceStyle, tts_engines
from voxeval.testing.realtime import MockReply, MockTurn, tone


class ToneTTS:
    """Speaks any text as a 0.3 s tone whose pitch comes from the text's hash: instant, distinct per text."""

    name = "tone-tts"
    language = "mul"

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        step = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:2], "big") % 400
        t = np.arange(7200) / 24_000
        return Audio((0.3 * np.sin(2 * np.pi * (150.0 + step) * t)).astype(np.float32), 24_000)

    def describe(self) -> dict[str, Any]:
        return {"engine": "tone-tts", "version": "1", "voice": None, "settings": {}}


if "tone-tts" not in tts_engines.names():
    tts_engines.register("tone-tts")(lambda voice=None, **options: ToneTTS())


def _spoken_tone(index: int) -> bytes:
    return tone(0.4, frequency=180.0 + 9 * index)


SPOKEN: dict[str, str] = {hashlib.sha256(_spoken_tone(i)).hexdigest(): g for i, g in enumerate(GOLD_REPLIES)}
"""What each reply's audio says, by the sha256 of its PCM (the same in every process: a resumed run hears the
replies an earlier, killed process was given; heard by ``pcm-said``)."""


def gold_by_pcm(turn: MockTurn) -> MockReply:
    """A gold reply chosen by the input audio's hash (so the gold annotator labels it), spoken as a tone of its own
    pitch, which the ``pcm-said`` reply ASR double hears as that reply."""
    digest = hashlib.sha256(turn.pcm).digest()
    index = int.from_bytes(digest[:4], "big") % len(GOLD_REPLIES)
    return MockReply(GOLD_REPLIES[index], _spoken_tone(index))


class PcmSaidASR(SaidASR):
    """Hears what :data:`SPOKEN` says a reply's PCM says (the realtime systems wrap the mock's PCM in their own WAV
    header); audio it was not told about fails like a decoder."""

    name = "pcm-said"
    said = SPOKEN

    def heard_bytes(self, wav: bytes, handle: wave.Wave_read) -> bytes:
        """The clip's PCM frames."""
        return handle.readframes(handle.getnframes())


if "pcm-said" not in asr_engines.names():
    asr_engines.register("pcm-said")(PcmSaidASR)


def high_voice(turn: MockTurn) -> MockReply:
    """Speaks a 300 Hz tone (the style doubles' judge scores pitch)."""
    return MockReply("content", tone(0.5, frequency=300.0))
