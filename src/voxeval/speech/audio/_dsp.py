"""Pure signal operations on :class:`Audio`: resampling, gain and silence trimming."""

from __future__ import annotations

import math
from typing import Any

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


PSOLA_PITCH_RANGE_HZ = (60.0, 600.0)
"""Pitch range Praat analyses before a PSOLA shift (covers adult male to child voices)."""


def shift_pitch(audio: Audio, semitones: float) -> Audio:
    """``audio`` with its F0 contour multiplied by 2^(semitones/12), duration and formants kept.

    Praat's pitch-synchronous overlap-add (Manipulation → multiply the pitch tier → overlap-add resynthesis,
    via parselmouth); the result is scaled back to the input's RMS, since resynthesis changes the level by up to
    3 dB. For engines without a pitch control of their own. The same object when ``semitones`` is 0.
    """
    if not math.isfinite(semitones):
        raise ValueError(f"pitch shift must be finite, got {semitones}")
    if semitones == 0.0:
        return audio
    sound, call = _praat_sound(audio, "a PSOLA pitch shift")
    manipulation = call(sound, "To Manipulation", 0.01, *PSOLA_PITCH_RANGE_HZ)
    tier = call(manipulation, "Extract pitch tier")
    call(tier, "Multiply frequencies", sound.xmin, sound.xmax, 2.0 ** (semitones / 12.0))
    call([tier, manipulation], "Replace pitch tier")
    return _at_level_of(audio, call(manipulation, "Get resynthesis (overlap-add)").values[0])


def _praat_sound(audio: Audio, what: str) -> tuple[Any, Any]:
    """``audio`` as a Praat sound and parselmouth's ``call`` (``what`` names the operation if it is missing)."""
    try:
        import parselmouth
        from parselmouth.praat import call
    except ImportError:
        raise MissingDependencyError(what, "acoustics", "praat-parselmouth") from None
    return parselmouth.Sound(audio.samples.astype(np.float64), sampling_frequency=audio.sample_rate), call


def _at_level_of(audio: Audio, samples: np.ndarray) -> Audio:
    """``samples`` scaled to the RMS of ``audio`` (Praat's resynthesis changes the level), at its sample rate."""
    out = np.asarray(samples, dtype=np.float64)
    before, after = (float(np.sqrt(np.mean(np.square(x)))) for x in (audio.samples.astype(np.float64), out))
    if after > 0.0:
        out = out * (before / after)
    return Audio(np.ascontiguousarray(out, dtype=np.float32), audio.sample_rate)


RATE_RANGE = (0.25, 4.0)
"""Speaking-rate factors :func:`change_rate` accepts."""


def change_rate(audio: Audio, rate: float) -> Audio:
    """``audio`` spoken ``rate`` times as fast (1.25: 25% faster), pitch and formants kept.

    Praat's pitch-synchronous overlap-add lengthening (``Lengthen (overlap-add)`` by 1/rate, via parselmouth),
    scaled back to the input's RMS. For engines without a rate control of their own. The same object at rate 1.
    """
    if not math.isfinite(rate) or not RATE_RANGE[0] <= rate <= RATE_RANGE[1]:
        raise ValueError(f"rate must be within {RATE_RANGE}, got {rate}")
    if rate == 1.0:
        return audio
    sound, call = _praat_sound(audio, "a PSOLA rate change")
    return _at_level_of(audio, call(sound, "Lengthen (overlap-add)", *PSOLA_PITCH_RANGE_HZ, 1.0 / rate).values[0])
