"""Acoustic measurements of one spoken reply: F0, formants, loudness, spectral balance, timing, rhythm."""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from voxeval.errors import MissingDependencyError
from voxeval.speech.acoustics._thresholds import THRESHOLDS, Thresholds
from voxeval.speech.acoustics._voice import VoiceQuality, voice_quality
from voxeval.speech.audio import Audio, SilentAudioError, frame_rms, resample

ANALYSIS_RATE = 16_000
"""Every clip is resampled to this rate first, so engines with different rates are measured alike."""
FRAME_S = 0.01
"""Analysis hop, seconds."""
MIN_DURATION_S = 0.1
"""Shorter clips hold no measurable speech (Praat needs several periods of the lowest F0)."""


@dataclass(frozen=True)
class Measurements:
    """What the signal says about a reply, before any mapping to levels (None when not measurable)."""

    duration_s: float
    """Length of the file, seconds."""
    speech_s: float
    """Active speech time (pauses of ``min_pause_s`` or more and leading/trailing silence excluded), seconds."""
    voiced_fraction: float
    """Share of the speech time with a detected F0 (whispers are mostly unvoiced)."""
    f0_median_hz: float | None
    """Median F0 over voiced frames, Hz."""
    f0_p10_hz: float | None
    """10th percentile of F0, Hz."""
    f0_p90_hz: float | None
    """90th percentile of F0 (the absolute pitch measure), Hz."""
    f0_sd_st: float | None
    """Standard deviation of F0 in semitones (prosodic variation)."""
    f0_range_st: float | None
    """5th–95th percentile range of F0, semitones."""
    formants_hz: tuple[float, float, float, float] | None
    """Medians of F1–F4 over voiced frames, Hz."""
    lufs: float | None
    """Integrated loudness (ITU-R BS.1770, pyloudnorm), LUFS."""
    alpha_ratio_db: float | None
    """Spectral balance over speech: energy 1–5 kHz minus 50 Hz–1 kHz, dB (higher = more vocal effort)."""
    nuclei: int
    """Syllable nuclei: voiced intensity peaks (a text-free syllable count)."""
    npvi: float | None
    """Normalised pairwise variability of the intervals between nuclei (rhythm variation)."""
    voice: VoiceQuality | None = None
    """Voice quality and micro-prosody (jitter, shimmer, HNR, F0 steps, energy spread, flatness)."""

    def to_json(self) -> dict[str, Any]:
        """Plain values, rounded for reports."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if isinstance(value, float):
                value = round(value, 3)
            elif isinstance(value, dict):
                value = {k: None if v is None else round(v, 4) for k, v in value.items()}
            elif isinstance(value, (list, tuple)):
                value = [round(v, 1) for v in value]
            out[key] = value
        return out


def _parselmouth() -> Any:
    try:
        import parselmouth
    except ImportError:
        raise MissingDependencyError("acoustic measurements", "acoustics", "praat-parselmouth") from None
    return parselmouth


def speech_mask(samples: np.ndarray, rate: int, table: Thresholds = THRESHOLDS) -> np.ndarray:
    """Per 10 ms frame: is it speech? Relative energy threshold, short gaps bridged, pauses left out."""
    frame = round(rate * FRAME_S)
    level = 20 * np.log10(np.maximum(frame_rms(samples, frame), 1e-10))
    loud = float(np.percentile(level, 95))
    if loud <= -90.0:  # below one 16-bit step: digital silence
        raise SilentAudioError("the reply is silent")
    active = level > max(loud - table.speech_floor_db, -90.0)
    gap = round(table.min_pause_s / FRAME_S)
    idx = np.flatnonzero(active)
    for a, b in itertools.pairwise(idx):
        if 1 < b - a <= gap:
            active[a:b] = True
    return active


def _pitch_track(sound: Any, table: Thresholds) -> tuple[np.ndarray, np.ndarray]:
    """Two-pass autocorrelation F0 (times, Hz; 0 = unvoiced): the second pass adapts the range to the voice."""
    lo, hi = table.pitch_range_hz
    first = sound.to_pitch_ac(time_step=FRAME_S, pitch_floor=lo, pitch_ceiling=hi)
    f0 = first.selected_array["frequency"]
    voiced = f0[f0 > 0]
    if voiced.size >= 10:
        q25, q75 = np.percentile(voiced, [25, 75])
        lo, hi = max(lo, 0.75 * q25), min(hi, 1.5 * q75)
        if hi > lo * 1.5:
            first = sound.to_pitch_ac(time_step=FRAME_S, pitch_floor=lo, pitch_ceiling=hi)
    return np.asarray(first.xs()), np.asarray(first.selected_array["frequency"])


def _formants(sound: Any, times: np.ndarray, table: Thresholds) -> tuple[float, float, float, float] | None:
    if times.size < 5:
        return None
    track = sound.to_formant_burg(time_step=FRAME_S, max_number_of_formants=5, maximum_formant=table.formant_ceiling_hz)
    values = np.array([[track.get_value_at_time(k, float(t)) for k in (1, 2, 3, 4)] for t in times])
    medians = np.nanmedian(values, axis=0) if np.isfinite(values).any() else None
    if medians is None or not np.all(np.isfinite(medians)):
        return None
    return (float(medians[0]), float(medians[1]), float(medians[2]), float(medians[3]))


def _lufs(samples: np.ndarray, rate: int) -> float | None:
    try:
        import pyloudnorm
    except ImportError:
        raise MissingDependencyError("loudness measurement", "acoustics", "pyloudnorm") from None
    if len(samples) < int(0.4 * rate) + 1:  # BS.1770 gates 400 ms blocks: shorter clips have no loudness
        return None
    value = float(pyloudnorm.Meter(rate).integrated_loudness(samples.astype(np.float64)))
    return value if np.isfinite(value) else None


def _alpha_ratio(samples: np.ndarray, rate: int, mask: np.ndarray) -> float | None:
    frame = round(rate * FRAME_S)
    win = 2 * frame
    starts = [i * frame for i in np.flatnonzero(mask) if i * frame + win <= len(samples)]
    if not starts:
        return None
    frames = np.stack([samples[s : s + win] for s in starts]).astype(np.float64) * np.hanning(win)
    power = np.square(np.abs(np.fft.rfft(frames, axis=1))).sum(axis=0)
    freqs = np.fft.rfftfreq(win, 1 / rate)
    low = power[(freqs >= 50) & (freqs < 1000)].sum()
    high = power[(freqs >= 1000) & (freqs < 5000)].sum()
    return float(10 * np.log10(high / low)) if low > 0 and high > 0 else None


def _nuclei(sound: Any, f0_times: np.ndarray, f0: np.ndarray, table: Thresholds) -> np.ndarray:
    """Times of syllable nuclei: voiced intensity peaks that rise ``nucleus_dip_db`` above the preceding dip."""
    intensity = sound.to_intensity(minimum_pitch=100.0, time_step=FRAME_S)
    times, db = np.asarray(intensity.xs()), np.asarray(intensity.values[0])
    if db.size < 3:
        return np.zeros(0)
    floor = float(np.percentile(db, 99)) - 25.0
    peaks: list[float] = []
    dip = float(db[0])
    for i in range(1, db.size - 1):
        dip = min(dip, float(db[i]))
        if db[i] >= db[i - 1] and db[i] > db[i + 1] and db[i] > floor and db[i] - dip >= table.nucleus_dip_db:
            k = int(np.argmin(np.abs(f0_times - times[i]))) if f0_times.size else -1
            if k >= 0 and f0[k] > 0:
                peaks.append(float(times[i]))
                dip = float(db[i])
    return np.asarray(peaks)


def _npvi(nuclei: np.ndarray, max_interval_s: float = 0.5) -> float | None:
    """nPVI (Grabe & Low 2002) of inter-nucleus intervals, skipping intervals that span a pause."""
    intervals = np.diff(nuclei)
    pairs = [(a, b) for a, b in itertools.pairwise(intervals) if max(a, b) <= max_interval_s]
    if len(pairs) < 3:
        return None
    return float(100 * np.mean([abs(a - b) / ((a + b) / 2) for a, b in pairs]))


def measure(audio: Audio, table: Thresholds = THRESHOLDS) -> Measurements:
    """Measure ``audio`` (any rate, mono). Raises :class:`SilentAudioError` when there is no speech."""
    parselmouth = _parselmouth()
    if audio.duration_s < MIN_DURATION_S:
        raise SilentAudioError(f"the reply is too short to hold speech ({audio.duration_s:.3f} s)")
    lufs = _lufs(audio.samples, audio.sample_rate)
    a16 = resample(audio, ANALYSIS_RATE)
    samples = a16.samples.astype(np.float64)
    mask = speech_mask(a16.samples, ANALYSIS_RATE, table)
    sound = parselmouth.Sound(samples, sampling_frequency=ANALYSIS_RATE)
    times, f0 = _pitch_track(sound, table)
    frame_of = np.minimum((times / FRAME_S).astype(int), mask.size - 1)
    voiced = (f0 > 0) & mask[frame_of]
    hz = f0[voiced]
    speech_s = float(mask.sum() * FRAME_S)
    nuclei = _nuclei(sound, times, np.where(voiced, f0, 0.0), table)
    stats: dict[str, float | None] = dict.fromkeys(("med", "p10", "p90", "sd", "range"))
    if hz.size >= 5:
        st = 12 * np.log2(hz)
        p5, p10, p50, p90, p95 = np.percentile(hz, [5, 10, 50, 90, 95])
        stats = {"med": p50, "p10": p10, "p90": p90, "sd": float(np.std(st)), "range": 12 * np.log2(p95 / p5)}
    return Measurements(
        duration_s=audio.duration_s,
        speech_s=speech_s,
        voiced_fraction=float(voiced.sum() * FRAME_S / speech_s) if speech_s > 0 else 0.0,
        f0_median_hz=_float(stats["med"]),
        f0_p10_hz=_float(stats["p10"]),
        f0_p90_hz=_float(stats["p90"]),
        f0_sd_st=_float(stats["sd"]),
        f0_range_st=_float(stats["range"]),
        formants_hz=_formants(sound, times[voiced], table),
        lufs=lufs,
        alpha_ratio_db=_alpha_ratio(samples, ANALYSIS_RATE, mask),
        nuclei=int(nuclei.size),
        npvi=_npvi(nuclei),
        voice=voice_quality(sound, f0, samples, ANALYSIS_RATE, mask),
    )


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)
