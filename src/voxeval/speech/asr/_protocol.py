"""The ASR extension point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from voxeval.registry import Registry
from voxeval.speech.asr._loop import LoopSymptom


@dataclass(frozen=True)
class Word:
    """One recognised word with its time span (engines that align words)."""

    text: str
    """The word as recognised (Chinese and Japanese: often one or a few characters)."""
    start: float
    """Start time, seconds from the beginning of the audio."""
    end: float
    """End time, seconds."""


@dataclass(frozen=True)
class Transcript:
    """What an ASR engine heard."""

    text: str
    """Recognised text (segments joined)."""
    language: str | None
    """Detected or forced language code (``ja``, ``en``, ``zh``)."""
    language_probability: float | None = None
    """Confidence of the language ID, when detected."""
    speech_seconds: float | None = None
    """Duration of the speech the engine decoded (after its VAD, when it has one)."""
    words: tuple[Word, ...] = ()
    """Word time spans, when the engine aligns words (Whisper: cross-attention alignment); empty otherwise."""
    looped: LoopSymptom | None = None
    """The repetition-loop symptom the text still shows after the engine's recovery (``compression``, ``repeat``,
    ``rate``: :func:`voxeval.speech.asr.loop_symptom`); ``None`` when it shows none. A looped transcript is not
    what was said: callers exclude it (and say so) rather than score it."""


class ASREngine(Protocol):
    """Speech → text."""

    name: str
    """Engine name recorded with results."""

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        """Transcribe WAV bytes; ``language`` forces the language when known (no language ID then)."""
        ...

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        """Transcribe several clips in one go (engines batch what they can); one transcript per clip, in order."""
        ...

    def describe(self) -> dict[str, Any]:
        """Engine, model and settings, for ``config.json``."""
        ...


asr_engines: Registry = Registry("ASR engine")
"""ASR factories by name (keyword options only)."""


def asr_from_spec(spec: str) -> ASREngine:
    """``whisper-base`` (default offline engine)."""
    engine: ASREngine = asr_engines.get(spec)()
    return engine
