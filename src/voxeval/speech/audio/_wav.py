"""The benchmark's input audio format (24 kHz, 16-bit PCM, mono WAV, 120 ms of exact zeros at both ends)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from voxeval.speech.audio._audio import Audio
from voxeval.speech.audio._dsp import SilentAudioError, resample, trim_silence

INPUT_SAMPLE_RATE = 24_000
"""Sample rate of the input audio, Hz."""
PAD_MS = 120
"""Digital silence before and after the speech, milliseconds."""
PAD_SAMPLES = INPUT_SAMPLE_RATE * PAD_MS // 1000
"""Digital silence before and after the speech, samples (2880)."""
FORMAT_VERSION = 1
"""Bumped whenever :func:`to_input_format` changes its output, so caches keyed on it are invalidated."""
WAV_HEADER_BYTES = 44
"""Size of the canonical RIFF/WAVE header written by :func:`encode_wav`."""


def quantize_int16(samples: np.ndarray) -> np.ndarray:
    """Float samples (full scale ±1) to int16 with rounding and clipping (1.0 → 32767, -1.0 → -32768)."""
    scaled = np.round(samples.astype(np.float64) * 32768.0)
    return np.clip(scaled, -32768, 32767).astype("<i2")


def encode_wav(pcm: np.ndarray, sample_rate: int) -> bytes:
    """A canonical 44-byte-header PCM WAV file of mono int16 ``pcm``."""
    data = np.asarray(pcm, dtype="<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(data),
        b"WAVE",
        b"fmt ",
        16,  # fmt chunk size
        1,  # PCM
        1,  # channels
        sample_rate,
        sample_rate * 2,  # byte rate
        2,  # block align
        16,  # bits per sample
        b"data",
        len(data),
    )
    return header + data


def input_format_pcm(audio: Audio) -> np.ndarray:
    """The int16 samples of :func:`to_input_format`: trimmed, 24 kHz, clipped, zero-padded.

    After quantising, samples that rounded to exactly zero at either end are dropped too, so the sample
    just inside each 120 ms pad is never zero.
    """
    speech = resample(trim_silence(audio), INPUT_SAMPLE_RATE)
    pcm = quantize_int16(speech.samples)
    nonzero = np.flatnonzero(pcm)
    if nonzero.size == 0:
        raise SilentAudioError("engine produced no speech (silent after 16-bit quantisation)")
    pad = np.zeros(PAD_SAMPLES, dtype="<i2")
    return np.concatenate([pad, pcm[nonzero[0] : nonzero[-1] + 1], pad])


def to_input_format(audio: Audio) -> bytes:
    """WAV bytes in the benchmark's input format: trim → 24 kHz → 16-bit (clipped) → 120 ms zeros both ends."""
    return encode_wav(input_format_pcm(audio), INPUT_SAMPLE_RATE)


def wav_duration_s(data: bytes) -> float:
    """Duration of a canonical WAV written by :func:`encode_wav` (from its header)."""
    rate, bits, channels = struct.unpack("<I", data[24:28])[0], struct.unpack("<H", data[34:36])[0], data[22]
    size = struct.unpack("<I", data[40:44])[0]
    return size / (rate * channels * bits // 8)


def write_wav_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename."""
    from voxeval.data import atomic_write_bytes

    atomic_write_bytes(path, data)
