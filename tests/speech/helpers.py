"""Helpers shared by the speech tests: synthetic signals and a WAV header parser."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from voxeval.speech.audio import Audio


def tone(seconds: float, rate: int, *, freq: float = 220.0, amplitude: float = 0.5, silence: float = 0.0) -> Audio:
    """A sine of ``seconds`` with ``silence`` seconds of exact zeros before and after."""
    t = np.arange(round(seconds * rate)) / rate
    body = amplitude * np.sin(2 * np.pi * freq * t)
    pad = np.zeros(round(silence * rate))
    return Audio(np.concatenate([pad, body, pad]).astype(np.float32), rate)


@dataclass(frozen=True)
class WavHeader:
    """Fields of a canonical 44-byte PCM WAV header."""

    riff: bytes
    riff_size: int
    wave: bytes
    fmt: bytes
    fmt_size: int
    audio_format: int
    channels: int
    sample_rate: int
    byte_rate: int
    block_align: int
    bits: int
    data: bytes
    data_size: int


def parse_header(data: bytes) -> WavHeader:
    """The 44-byte header of ``data`` as named fields."""
    return WavHeader(*struct.unpack("<4sI4s4sIHHIIHH4sI", data[:44]))


def pcm(data: bytes) -> np.ndarray:
    """The int16 samples after a 44-byte header."""
    return np.frombuffer(data[44:], dtype="<i2")
