"""Voice-quality and micro-prosody measurements: what separates recorded or neural speech from HTS and formant TTS.

Jitter, shimmer and the harmonics-to-noise ratio come from Praat (periodic cross-correlation point process and
harmonicity); the frame-to-frame F0 change, the energy spread and the spectral flatness are computed here. They
feed the naturalness classifier (``_naturalness``); none of them moves an attribute level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

FRAME_S = 0.01
"""Analysis hop, seconds (the same as the other measurements)."""


@dataclass(frozen=True)
class VoiceQuality:
    """Voice-quality measurements of the voiced speech (None when there is too little of it)."""

    jitter: float | None
    """Local jitter (mean absolute period difference ÷ mean period), Praat's definition."""
    shimmer: float | None
    """Local shimmer (mean absolute amplitude difference ÷ mean amplitude)."""
    hnr_db: float | None
    """Mean harmonics-to-noise ratio over voiced frames, dB."""
    f0_step_st: float | None
    """Median absolute F0 change between consecutive voiced 10 ms frames, semitones (micro-prosody)."""
    energy_sd_db: float | None
    """Standard deviation of the frame energy over speech frames, dB."""
    flatness: float | None
    """Mean spectral flatness (geometric ÷ arithmetic mean of the power spectrum, 50 Hz–7 kHz) over speech frames."""


def _praat_call() -> Any:
    from parselmouth.praat import call

    return call


def _jitter_shimmer(sound: Any, f0: np.ndarray) -> tuple[float | None, float | None]:
    voiced = f0[f0 > 0]
    if voiced.size < 10:
        return None, None
    call = _praat_call()
    lo, hi = float(max(50.0, 0.7 * np.percentile(voiced, 5))), float(min(900.0, 1.4 * np.percentile(voiced, 95)))
    points = call(sound, "To PointProcess (periodic, cc)", lo, max(hi, lo * 2))
    jitter = call(points, "Get jitter (local)", 0, 0, 0.0001, 0.02, 1.3)
    shimmer = call([sound, points], "Get shimmer (local)", 0, 0, 0.0001, 0.02, 1.3, 1.6)
    return _finite(jitter), _finite(shimmer)


def _hnr(sound: Any, f0: np.ndarray) -> float | None:
    voiced = f0[f0 > 0]
    if voiced.size < 10:
        return None
    harmonicity = sound.to_harmonicity_cc(time_step=FRAME_S, minimum_pitch=float(max(50.0, np.percentile(voiced, 5))))
    values = np.asarray(harmonicity.values[0])
    values = values[values > -199]  # Praat marks unvoiced frames with -200 dB
    return float(np.mean(values)) if values.size else None


def _f0_step(f0: np.ndarray) -> float | None:
    both = (f0[1:] > 0) & (f0[:-1] > 0)
    if both.sum() < 10:
        return None
    steps = np.abs(12 * np.log2(f0[1:][both] / f0[:-1][both]))
    return float(np.median(steps))


def _spectral(samples: np.ndarray, rate: int, mask: np.ndarray) -> tuple[float | None, float | None]:
    frame = round(rate * FRAME_S)
    win = 2 * frame
    starts = [i * frame for i in np.flatnonzero(mask) if i * frame + win <= len(samples)]
    if len(starts) < 5:
        return None, None
    frames = np.stack([samples[s : s + win] for s in starts]).astype(np.float64) * np.hanning(win)
    power = np.square(np.abs(np.fft.rfft(frames, axis=1))) + 1e-12
    freqs = np.fft.rfftfreq(win, 1 / rate)
    band = power[:, (freqs >= 50) & (freqs <= 7000)]
    flatness = np.exp(np.mean(np.log(band), axis=1)) / np.mean(band, axis=1)
    energy = 10 * np.log10(power.sum(axis=1))
    return float(np.std(energy)), float(np.mean(flatness))


def voice_quality(sound: Any, f0: np.ndarray, samples: np.ndarray, rate: int, mask: np.ndarray) -> VoiceQuality:
    """Voice quality of ``sound`` (parselmouth Sound of ``samples`` at ``rate``) given its F0 track and speech mask."""
    jitter, shimmer = _jitter_shimmer(sound, f0)
    energy_sd, flatness = _spectral(samples, rate, mask)
    return VoiceQuality(jitter, shimmer, _hnr(sound, f0), _f0_step(f0), energy_sd, flatness)


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None
