"""A test-double ASR engine: says what a test told it each clip says (no model; registered as ``test-said``)."""

from __future__ import annotations

import hashlib
import io
import wave
from typing import Any

import numpy as np

from voxeval.speech.asr import Transcript, asr_engines
from voxeval.speech.asr._loop import loop_symptom

SAID: dict[str, str] = {}
"""What each clip says, by the sha256 of its WAV bytes (filled by :func:`clip`)."""


def clip(text: str, seconds: float = 0.5, rate: int = 16_000) -> bytes:
    """A short tone WAV that the double hears as ``text`` (the tone's pitch keeps clips of equal length apart)."""
    t = np.arange(int(seconds * rate)) / rate
    pcm = (0.3 * np.sin(2 * np.pi * (200 + len(SAID) * 7) * t) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(pcm.tobytes())
    data = buf.getvalue()
    SAID[hashlib.sha256(data).hexdigest()] = text
    return data


class SaidASR:
    """Hears what :data:`SAID` says; audio it was not told about, or that is not WAV, fails like a decoder; a text
    that loops (:func:`~voxeval.speech.asr._loop.loop_symptom`) is returned marked ``looped``."""

    name = "test-said"
    said = SAID
    """What each clip says, by the sha256 of :meth:`heard_bytes`."""

    def heard_bytes(self, wav: bytes, handle: wave.Wave_read) -> bytes:
        """What a clip is known by: the whole WAV."""
        return wav

    def transcribe(self, wav: bytes, language: str | None = None) -> Transcript:
        """The registered text of the clip."""
        with wave.open(io.BytesIO(wav)) as handle:  # wave.Error on bytes that are not WAV
            seconds = handle.getnframes() / handle.getframerate()
            digest = hashlib.sha256(self.heard_bytes(wav, handle)).hexdigest()
        if digest not in self.said:
            raise ValueError(f"{self.name} was not told what clip {digest[:12]} says")
        text = self.said[digest]
        # A clip said to loop comes back marked, as from an engine whose loop recovery failed.
        return Transcript(text, language, speech_seconds=seconds, looped=loop_symptom(text, language, None))

    def transcribe_batch(self, wavs: list[bytes], language: str | None = None) -> list[Transcript]:
        """One by one."""
        return [self.transcribe(w, language) for w in wavs]

    def describe(self) -> dict[str, Any]:
        """The double."""
        return {"asr": self.name}


if "test-said" not in asr_engines.names():
    asr_engines.register("test-said")(SaidASR)
