"""Tiny WAV clips for audio replies and test inputs."""

from __future__ import annotations

import io
import wave

import numpy as np


def _wav(samples: np.ndarray, rate: int) -> bytes:
    pcm = np.clip(samples, -1.0, 1.0)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((pcm * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


def sine_wav(seconds: float = 0.5, *, frequency: float = 440.0, rate: int = 24000, amplitude: float = 0.3) -> bytes:
    """A mono 16-bit PCM WAV of a sine tone (at most 60 s)."""
    count = round(min(max(seconds, 0.0), 60.0) * rate)
    t = np.arange(count) / rate
    return _wav(amplitude * np.sin(2 * np.pi * frequency * t), rate)


def silence_wav(seconds: float = 0.5, *, rate: int = 24000) -> bytes:
    """A mono 16-bit PCM WAV of digital silence (at most 60 s)."""
    return _wav(np.zeros(round(min(max(seconds, 0.0), 60.0) * rate)), rate)
