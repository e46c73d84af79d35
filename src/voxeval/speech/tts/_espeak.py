"""``espeak-ng``: the formant synthesiser as a subprocess (Debian package ``espeak-ng``); robotic but fast."""

from __future__ import annotations

import math
import shutil
import subprocess
from typing import Any

from voxeval.errors import ConfigError, Location
from voxeval.speech.audio import Audio, apply_gain, decode_audio
from voxeval.speech.tts._protocol import VoiceStyle, tts_engines

DEFAULT_WPM = 175
"""espeak-ng's normal speaking rate, words per minute (``-s``)."""
PITCH_STEPS_PER_SEMITONE = 5
"""Approximate ``-p`` steps per semitone around the default 50 (measured: p 50 → 96 Hz, p 99 → 163 Hz for en-us)."""
_TIMEOUT_S = 60


def espeak_args(voice: str, style: VoiceStyle) -> tuple[list[str], float]:
    """The espeak-ng options for ``style`` and the gain (dB) left to apply digitally.

    rate → ``-s`` = 175 × rate words per minute (80–1000); pitch → ``-p`` = 50 + 5 per semitone (0–99, an
    approximation: espeak-ng's pitch scale is not in semitones); gain → ``-a`` = 100 × 10^(dB/20) within
    1–200, any remainder applied by scaling. Values outside espeak-ng's ranges raise ConfigError.
    """
    speed = round(DEFAULT_WPM * style.rate)
    if not 80 <= speed <= 1000:
        raise ConfigError(f"espeak-ng rate {style.rate} gives {speed} words/minute; allowed 80–1000 (rate 0.46–5.7)")
    pitch = round(50 + PITCH_STEPS_PER_SEMITONE * style.pitch_semitones)
    if not 0 <= pitch <= 99:
        raise ConfigError(f"espeak-ng pitch {style.pitch_semitones:+g} semitones is outside its range (−10 to +9.8)")
    amplitude = min(200, max(1, round(100 * 10 ** (style.gain_db / 20))))
    residual_db = style.gain_db - 20 * math.log10(amplitude / 100)
    args = ["-v", voice, "-s", str(speed), "-p", str(pitch), "-a", str(amplitude), "--stdout"]
    return args, residual_db


def hanzi_to_pinyin(text: str) -> str:
    """Chinese characters → tone-numbered pinyin (``ni3 hao3``) for espeak-ng's ``cmn-latn-pinyin`` voice.

    espeak-ng's own ``cmn`` voice misreads many characters; reading pinyin is robotic but correct.
    """
    try:
        from pypinyin import Style, lazy_pinyin
    except ImportError:
        raise ConfigError("Chinese with espeak-ng needs pypinyin: pip install 'voxeval[acoustics]'") from None
    return " ".join(lazy_pinyin(text, style=Style.TONE3, neutral_tone_with_five=True))


class EspeakEngine:
    """espeak-ng via ``espeak-ng -v VOICE -s RATE -p PITCH -a AMP --stdout`` (text on stdin)."""

    name = "espeak-ng"

    def __init__(self, voice: str | None = None, program: str = "espeak-ng") -> None:
        found = shutil.which(program)
        if found is None:
            raise ConfigError(
                f"the espeak-ng TTS engine needs the {program!r} program (Debian: apt-get install espeak-ng)"
            )
        self.program = found
        self.voice = voice or "en-us"
        self.language = self.voice.split("-")[0].split("+")[0]
        self._version: str | None = None

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """Run espeak-ng once for ``text``; its WAV (streamed, 22.05 kHz) is decoded in memory."""
        if not text.strip():
            raise ValueError("nothing to say: the text is empty")
        voice = style.voice or self.voice
        args, residual_db = espeak_args(voice, style)
        if voice.startswith("cmn-latn-pinyin"):
            text = hanzi_to_pinyin(text)
        try:
            done = subprocess.run(
                [self.program, *args, "--stdin"], input=text.encode("utf-8"), capture_output=True, timeout=_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"espeak-ng took longer than {_TIMEOUT_S} s") from None
        if done.returncode != 0 or not done.stdout:
            detail = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
            raise RuntimeError(f"espeak-ng failed: {detail}")
        audio = decode_audio(done.stdout, Location("<espeak-ng output>")).audio
        return apply_gain(audio, residual_db)

    def version(self) -> str:
        """``espeak-ng --version`` (first line), cached."""
        if self._version is None:
            out = subprocess.run([self.program, "--version"], capture_output=True, text=True, timeout=_TIMEOUT_S)
            first = out.stdout.strip().splitlines()[0] if out.stdout.strip() else "unknown"
            self._version = first.split("Data at")[0].strip()  # the data path differs between machines
        return self._version

    def describe(self) -> dict[str, Any]:
        """Engine, version line, voice and the option mapping."""
        return {
            "engine": self.name,
            "version": self.version(),
            "voice": self.voice,
            "settings": {
                "controls": {"rate": "-s 175*rate", "pitch": "-p 50+5*semitones", "gain": "-a 100*10^(dB/20)"}
            },
        }


@tts_engines.register("espeak-ng")
def make_espeak(voice: str | None = None, program: str = "espeak-ng") -> EspeakEngine:
    """espeak-ng voices (``en-us``, ``en-gb``, ``ja``, ``cmn-latn-pinyin``, …)."""
    return EspeakEngine(voice, program)
