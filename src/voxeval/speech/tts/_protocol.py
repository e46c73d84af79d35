"""The TTS extension point: voice style, the engine protocol, the registry and ``NAME[:VOICE]`` specs."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from voxeval.errors import ConfigError, MissingDependencyError
from voxeval.languages import LANGUAGES
from voxeval.registry import Registry
from voxeval.speech.audio import Audio


@dataclass(frozen=True)
class VoiceStyle:
    """How to speak: voice and prosody controls that every engine maps to its own settings."""

    voice: str | None = None
    """Engine voice name; None uses the engine's default (or the voice of its spec)."""
    rate: float = 1.0
    """Speaking-rate multiplier (1.0 = the engine's normal rate, 1.2 = 20 % faster)."""
    pitch_semitones: float = 0.0
    """Pitch shift in semitones (engines without a pitch control refuse a non-zero value)."""
    gain_db: float = 0.0
    """Level change in decibels."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rate) and self.rate > 0):
            raise ConfigError(f"rate must be a positive number, got {self.rate}")
        if not (math.isfinite(self.pitch_semitones) and abs(self.pitch_semitones) <= 24):
            raise ConfigError(f"pitch must be between -24 and 24 semitones, got {self.pitch_semitones}")
        if not (math.isfinite(self.gain_db) and abs(self.gain_db) <= 60):
            raise ConfigError(f"gain must be between -60 and 60 dB, got {self.gain_db}")
        if self.voice is not None and not self.voice.strip():
            raise ConfigError("voice must be a non-empty name")


class TTSEngine(Protocol):
    """Text → speech. Implementations import their heavy dependencies lazily, on first use."""

    name: str
    """Engine name as registered (``pyopenjtalk``, ``kokoro``, …)."""
    language: str
    """Language the engine speaks (``ja``, ``en``; ``mul`` for multilingual engines)."""

    def synthesize(self, text: str, style: VoiceStyle) -> Audio:
        """Speak ``text`` in ``style``; raises ConfigError for a style the engine cannot honour."""
        ...

    def describe(self) -> dict[str, Any]:
        """``{"engine", "version", "voice", "settings"}``: everything that determines the output."""
        ...


TTSFactory = Callable[..., TTSEngine]
tts_engines: Registry[TTSFactory] = Registry("TTS engine")
"""TTS factories by name; each takes keyword options (``voice=`` at least) and returns a :class:`TTSEngine`."""


DEFAULT_ENGINES = {code: d.tts for code, d in LANGUAGES.items() if d.tts}
"""The engine spec used for a language when none is given (from :data:`voxeval.languages.LANGUAGES`)."""


def default_engine_spec(locales: Iterable[str]) -> str:
    """The default engine for rows in ``locales`` (``ja-JP`` → pyopenjtalk); mixed or unknown languages need a spec."""
    languages = {locale.split("-")[0].split("_")[0].lower() for locale in locales}
    if len(languages) == 1 and (language := languages.pop()) in DEFAULT_ENGINES:
        return DEFAULT_ENGINES[language]
    known = ", ".join(f"{k}: {v}" for k, v in DEFAULT_ENGINES.items())
    raise ConfigError(f"no default TTS engine for locales {sorted(set(locales))}; pass --engine (defaults: {known})")


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``"kokoro:jm_kumo"`` → ``("kokoro", "jm_kumo")``; ``"pyopenjtalk"`` → ``("pyopenjtalk", None)``."""
    name, sep, voice = spec.strip().partition(":")
    if not name or (sep and not voice):
        raise ConfigError(f"bad TTS engine spec {spec!r}; expected NAME or NAME:VOICE, e.g. kokoro:jm_kumo")
    return name, (voice or None)


def engine_from_spec(spec: str, **options: Any) -> TTSEngine:
    """The engine named by ``NAME[:VOICE]`` (``pyopenjtalk``, ``kokoro:jm_kumo``, ``espeak-ng:en-us``)."""
    name, voice = parse_spec(spec)
    if voice is not None:
        if options.get("voice") not in (None, voice):
            raise ConfigError(f"voice given twice: {voice!r} in the spec and {options['voice']!r}")
        options["voice"] = voice
    engine: TTSEngine = tts_engines.get(name)(**options)
    return engine


def require(module: str, what: str, extra: str, package: str) -> None:
    """Raise MissingDependencyError unless ``module`` can be imported (checked without importing it)."""
    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(what, extra, package)


def package_version(package: str) -> str:
    """Installed version of a distribution, or ``"unknown"``."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


PSOLA = "Praat PSOLA shift (voxeval.speech.audio.shift_pitch; formants and duration kept)"
"""How engines without a pitch control of their own shift pitch (described in their settings)."""

PSOLA_RATE = "Praat PSOLA lengthening (voxeval.speech.audio.change_rate; pitch and formants kept)"
"""How engines without a rate control of their own change the speaking rate."""


def refuse_pitch(engine: str, style: VoiceStyle) -> None:
    """Engines without a pitch control refuse a pitch shift rather than silently ignoring it."""
    if style.pitch_semitones != 0.0:
        raise ConfigError(f"TTS engine {engine!r} has no pitch control; use --pitch 0 or another engine")


def check_voice(engine: str, voice: str, known: tuple[str, ...]) -> str:
    """``voice`` if it is one of ``known``; a ConfigError listing them otherwise."""
    if voice not in known:
        raise ConfigError(f"TTS engine {engine!r} has no voice {voice!r}; voices: {', '.join(known)}")
    return voice
