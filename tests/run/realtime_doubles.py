"""Doubles for realtime/live end-to-end runs: an instant TTS for inputs and mock responders keyed by the audio."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from tests.run.mock_replies import GOLD_REPLIES
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


def gold_by_pcm(turn: MockTurn) -> str:
    """A gold reply chosen by the input audio's hash (so the gold annotator labels it)."""
    digest = hashlib.sha256(turn.pcm).digest()
    return GOLD_REPLIES[int.from_bytes(digest[:4], "big") % len(GOLD_REPLIES)]


def high_voice(turn: MockTurn) -> MockReply:
    """Speaks a 300 Hz tone (the style doubles' judge scores pitch)."""
    return MockReply("content", tone(0.5, frequency=300.0))
