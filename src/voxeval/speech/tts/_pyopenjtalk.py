"""``pyopenjtalk``: the default Japanese engine (HTS, bundled dictionary and ``mei_normal`` voice, deterministic)."""

from __future__ import annotations

from typing import Any

from voxeval.speech.audio import Audio, apply_gain
from voxeval.speech.tts._protocol import VoiceStyle, check_voice, package_version, require, tts_engines

VOICES = ("mei_normal",)
"""Voices bundled with pyopenjtalk-plus."""
_PACKAGE = "pyopenjtalk-plus"


class PyOpenJTalkEngine:
    """Open JTalk via pyopenjtalk-plus: 48 kHz output, rate → ``speed``, pitch → ``half_tone``, gain by scaling."""

    name = "pyopenjtalk"
    language = "ja"

    def __init__(self, voice: str | None = None) -> None:
        require("pyopenjtalk", "the pyopenjtalk TTS engine", "audio", _PACKAGE)
        self.voice = check_voice(self.name, voice or VOICES[0], VOICES)

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """Speak ``text``; the waveform is int16-range float64 at 48 kHz, scaled here to [-1, 1]."""
        import pyopenjtalk

        check_voice(self.name, style.voice or self.voice, VOICES)
        if not text.strip():
            raise ValueError("nothing to say: the text is empty")
        wave, rate = pyopenjtalk.tts(text, speed=style.rate, half_tone=style.pitch_semitones)
        return apply_gain(Audio.from_array(wave, int(rate), scale=32768.0), style.gain_db)

    def describe(self) -> dict[str, Any]:
        """Engine, package version, voice and the fixed settings."""
        return {
            "engine": self.name,
            "version": package_version(_PACKAGE),
            "voice": self.voice,
            "settings": {"sample_rate": 48000, "controls": {"rate": "speed", "pitch": "half_tone", "gain": "scaling"}},
        }


@tts_engines.register("pyopenjtalk")
def make_pyopenjtalk(voice: str | None = None) -> PyOpenJTalkEngine:
    """The default Japanese engine."""
    return PyOpenJTalkEngine(voice)
