"""Pure signal operations on :class:`Audio`: resampling, gain and silence trimming."""

from __future__ import annotations

import math

import numpy as np

from voxeval.errors import MissingDependencyError, VoxevalError
from voxeval.speech.audio._audio import Audio

SILENCE_FLOOR = 1.0 / 32768
"""Frames quieter than one 16-bit step (about -90 dBFS RMS) are silent whatever the threshold."""


class SilentAudioError(VoxevalError):
    """The audio has no frame above the silence threshold: nothing to trim to."""


def resample(audio: Audio, sample_rate: int) -> Audio:
    """``audio`` at ``sample_rate`` (soxr, high quality); the same object when the rate already matches."""
    if sample_rate <= 0:
        raise ValueError(f"sample rate must be positive, got {sample_rate}")
    if sample_rate == audio.sample_rate:
        return audio
    try:
        import soxr
    except ImportError:  # pragma: no cover - soxr is in the audio extra
        raise MissingDependencyError("resampling audio", "audio", "soxr") from None
    out = soxr.resample(audio.samples, audio.sample_rate, sample_rate, quality="HQ")
    return Audio(np.ascontiguousarray(out, dtype=np.float32), sample_rate)


def apply_gain(audio: Audio, gain_db: float) -> Audio:
    """``audio`` scaled by ``gain_db`` decibels (no clipping here; quantising clips)."""
    if not math.isfinite(gain_db):
        raise ValueError(f"gain must be finite, got {gain_db}")
    if gain_db == 0.0:
        return audio
    factor = 10.0 ** (gain_db / 20.0)
    return Audio((audio.samples.astype(np.float64) * factor).astype(np.float32), audio.sample_rate)


def frame_rms(samples: np.ndarray, frame: int) -> np.ndarray:
    """RMS of consecutive non-overlapping frames of ``frame`` samples (the last one may be shorter)."""
    n = len(samples)
    if n == 0:
        return np.zeros(0)
    starts = np.arange(0, n, frame)
    squares = np.square(samples.astype(np.float64))
    sums = np.add.reduceat(squares, starts)
    lengths = np.diff(np.append(starts, n))
    rms: np.ndarray = np.sqrt(sums / lengths)
    return rms


def trim_silence(audio: Audio, threshold_db: float = -50.0, frame_ms: float = 10.0) -> Audio:
    """Cut leading and trailing silence, frame by frame.

    A frame (``frame_ms`` long) counts as sound when its RMS is at least ``threshold_db`` relative to the
    loudest frame and above :data:`SILENCE_FLOOR`; everything before the first and after the last such
    frame is dropped. Being relative, the cut does not depend on the gain. Audio with no such frame
    raises :class:`SilentAudioError`.
    """
    if threshold_db >= 0 or not math.isfinite(threshold_db):
        raise ValueError(f"threshold_db must be a negative number of dB, got {threshold_db}")
    frame = max(1, round(audio.sample_rate * frame_ms / 1000))
    rms = frame_rms(audio.samples, frame)
    if rms.size == 0 or float(rms.max()) <= SILENCE_FLOOR:
        raise SilentAudioError("engine produced no speech (the audio is silent)")
    level = max(float(rms.max()) * 10.0 ** (threshold_db / 20.0), SILENCE_FLOOR)
    loud = np.flatnonzero(rms >= level)
    start = int(loud[0]) * frame
    stop = min(len(audio.samples), (int(loud[-1]) + 1) * frame)
    return Audio(np.ascontiguousarray(audio.samples[start:stop]), audio.sample_rate)
