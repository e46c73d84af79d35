"""From measurements to the spec's attributes: 0–100 intensities and levels (all cuts in ``THRESHOLDS``)."""

from __future__ import annotations

import math
import statistics
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from voxeval.speech.acoustics._measure import Measurements
from voxeval.speech.acoustics._naturalness import NaturalnessModel, naturalness_model
from voxeval.speech.acoustics._text import Units
from voxeval.speech.acoustics._thresholds import THRESHOLDS, Scale, Thresholds

PitchReference = Literal["absolute", "gender", "model"]
"""Pitch judged on absolute F0 (default), relative to the detected gender's norm, or relative to the same
model's other replies of the same detected gender (batches only; falls back to ``gender``)."""

ORDINAL_LEVELS: dict[str, tuple[str, ...]] = {
    "pitch": ("very_low", "low", "normal", "high", "very_high"),
    "speed": ("very_slow", "slow", "normal", "fast", "very_fast"),
    "volume": ("very_quiet", "quiet", "normal", "loud", "very_loud"),
}
"""The five levels of the ordinal attributes measured here (same keys as ``voxeval.judge.LEVELS``)."""


@dataclass(frozen=True)
class Reading:
    """One attribute as measured."""

    attribute: str
    """``pitch``, ``speed``, ``volume``, ``gender`` or ``age``."""
    level: str | None
    """Level key (``high``, ``female``, ``child`` …); None when the signal does not allow a reading."""
    intensity: float | None
    """0–100 intensity on the seed prompt's scale (ordinal attributes; None otherwise)."""
    value: float | None
    """The measurement the level was read from, on ``basis``'s unit."""
    basis: str
    """What ``value`` is (measure and reference)."""

    def to_json(self) -> dict[str, Any]:
        """Rounded plain values."""
        return {
            "level": self.level,
            "intensity": None if self.intensity is None else round(self.intensity, 1),
            "value": None if self.value is None else round(self.value, 3),
            "basis": self.basis,
        }


def intensity(scale: Scale, value: float, table: Thresholds = THRESHOLDS) -> float:
    """``value`` on the 0–100 scale: linear between the cuts, extrapolated by the outer segments, clipped."""
    xs = [math.log(c) for c in scale.cuts] if scale.log else list(scale.cuts)
    x = math.log(max(value, 1e-9)) if scale.log else value
    ys = table.intensity_cuts
    if x <= xs[0]:
        slope = (ys[1] - ys[0]) / (xs[1] - xs[0])
    elif x >= xs[-1]:
        slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
    else:
        k = max(i for i in range(3) if xs[i] <= x)
        return ys[k] + (ys[k + 1] - ys[k]) * (x - xs[k]) / (xs[k + 1] - xs[k])
    anchor, y0 = (xs[0], ys[0]) if x <= xs[0] else (xs[-1], ys[-1])
    return min(100.0, max(0.0, y0 + slope * (x - anchor)))


def level_of(attribute: str, score: float, table: Thresholds = THRESHOLDS) -> str:
    """The ordinal level of a 0–100 intensity (boundaries belong to the level above)."""
    index = sum(score >= cut for cut in table.intensity_cuts)
    return ORDINAL_LEVELS[attribute][index]


def _ordinal(attribute: str, scale: Scale, value: float | None, basis: str, table: Thresholds) -> Reading:
    if value is None:
        return Reading(attribute, None, None, None, basis)
    score = intensity(scale, value, table)
    return Reading(attribute, level_of(attribute, score, table), score, value, basis)


def _semitones(ratio: float) -> float:
    return 12 * math.log2(ratio)


def gender_score(m: Measurements, table: Thresholds = THRESHOLDS) -> float | None:
    """Semitones of evidence for female (> 0) or male (< 0): F0 median vs the cut, plus weighted formants."""
    if m.f0_median_hz is None:
        return None
    score = _semitones(m.f0_median_hz / table.gender_f0_cut_hz)
    if m.formants_hz is not None:
        upper = (m.formants_hz[2] + m.formants_hz[3]) / 2
        score += table.gender_formant_weight * _semitones(upper / table.gender_formant_ref_hz)
    return score


def read_gender(m: Measurements, table: Thresholds = THRESHOLDS) -> Reading:
    """Male or female from F0 and formants (see :func:`gender_score`)."""
    score = gender_score(m, table)
    level = None if score is None else ("female" if score >= 0 else "male")
    basis = (
        f"score in semitones: F0 median vs {table.gender_f0_cut_hz:g} Hz + {table.gender_formant_weight:g} × "
        f"F3/F4 mean vs {table.gender_formant_ref_hz:g} Hz (> 0 female)"
    )
    return Reading("gender", level, None, score, basis)


def read_pitch(
    m: Measurements,
    reference: PitchReference = "absolute",
    table: Thresholds = THRESHOLDS,
    model_median_hz: float | None = None,
) -> Reading:
    """Pitch level from the F0 90th percentile (absolute) or the F0 median over a reference.

    ``model`` needs ``model_median_hz`` (the same model's median F0 for the detected gender); without it the
    gender norm is used and the basis says so.
    """
    if reference == "absolute":
        return _ordinal("pitch", table.pitch_absolute, m.f0_p90_hz, "F0 p90 (Hz)", table)
    if m.f0_median_hz is None:
        return Reading("pitch", None, None, None, f"F0 median ÷ {reference} reference")
    if reference == "model" and model_median_hz is not None:
        ratio = m.f0_median_hz / model_median_hz
        return _ordinal("pitch", table.pitch_model, ratio, f"F0 median ÷ model median {model_median_hz:.0f} Hz", table)
    gender = read_gender(m, table).level or "female"
    fallback = " (no batch reference)" if reference == "model" else ""
    ratio = m.f0_median_hz / table.gender_norm_hz[gender]
    return _ordinal("pitch", table.pitch_gender, ratio, f"F0 median ÷ {gender} norm{fallback}", table)


def compression_ratio(text: str) -> float:
    """zlib compression ratio of ``text`` (Whisper's repetition measure; loops compress well)."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def read_speed(
    m: Measurements,
    units: Units | None,
    language: str,
    table: Thresholds = THRESHOLDS,
    word_speech_s: float | None = None,
) -> Reading:
    """Speaking rate relative to the language norm: transcript units per second of speaking time.

    The speaking time is the span of the ASR's words (``word_speech_s``, pauses left out) when it has word times,
    else the signal's speech time. Where the language has a ``nuclei_norm``, the ratio is the geometric mean of the
    transcript's ratio and the syllable nuclei's (two estimates of one rate: on vstyle-dev the mean tracked Gemini
    better than either). Without a transcript, or when it is an ASR loop, the syllable nuclei alone are counted.
    """
    norm = table.rate_norm.get(language, table.rate_norm["en"])
    if m.speech_s <= 0:
        return Reading("speed", None, None, None, "units/s ÷ norm")
    if units is None or units.count <= 0:
        per_s, basis = m.nuclei / m.speech_s, f"syllable nuclei/s ÷ {language} norm {norm:g}"
        return _ordinal("speed", table.speed, per_s / norm if per_s > 0 else None, basis, table)
    plural = "morae" if units.unit == "mora" else f"{units.unit}s"
    timed = word_speech_s is not None and word_speech_s > 0
    seconds = word_speech_s if timed and word_speech_s is not None else m.speech_s
    ratio = units.count / seconds / norm
    basis = f"{plural}/s of {'word' if timed else 'signal'} speaking time ÷ {language} norm {norm:g}"
    nuclei_norm = table.nuclei_norm.get(language)
    if nuclei_norm and m.nuclei > 0:
        ratio = math.sqrt(ratio * (m.nuclei / m.speech_s) / nuclei_norm)
        basis = f"geometric mean of ({basis}) and (syllable nuclei/s ÷ {nuclei_norm:g})"
    return _ordinal("speed", table.speed, ratio, basis, table)


def read_volume(m: Measurements, model_median_lufs: float | None = None, table: Thresholds = THRESHOLDS) -> Reading:
    """Volume from LUFS (absolute, or relative to the model's median when given); whispers are ``very_quiet``."""
    if m.lufs is None:
        return Reading("volume", None, None, None, "LUFS")
    if model_median_lufs is None:
        reading = _ordinal("volume", table.volume_absolute, m.lufs, "LUFS", table)
    else:
        delta = m.lufs - model_median_lufs
        reading = _ordinal("volume", table.volume_relative, delta, "LUFS − model median (dB)", table)
    if m.voiced_fraction < table.whisper_voiced_fraction and reading.intensity is not None:
        basis = reading.basis + f"; whisper (voiced {m.voiced_fraction:.2f})"
        return Reading(
            "volume", "very_quiet", min(reading.intensity, table.intensity_cuts[0] / 2), reading.value, basis
        )
    return reading


def read_age(m: Measurements, table: Thresholds = THRESHOLDS) -> Reading:
    """``child`` (high F0 and short vocal tract) or None: adult age groups are not measurable offline."""
    if m.f0_median_hz is None or m.formants_hz is None:
        return Reading("age", None, None, None, "F0 median (Hz) and F3/F4 mean")
    upper = (m.formants_hz[2] + m.formants_hz[3]) / 2
    child = m.f0_median_hz >= table.child_f0_hz and upper >= table.child_formant_hz
    basis = f"F0 median (Hz); child needs ≥ {table.child_f0_hz:g} Hz and F3/F4 mean ≥ {table.child_formant_hz:g} Hz"
    return Reading("age", "child" if child else "adult", None, m.f0_median_hz, basis)


@dataclass(frozen=True)
class BatchReference:
    """What one system's replies sound like together: the reference of relative volume and pitch."""

    median_lufs: float | None = None
    """Median LUFS of the replies; None = volume is judged on absolute LUFS."""
    median_f0_hz: dict[str, float] = field(default_factory=dict)
    """Median F0 per detected gender, and over all replies as ``any`` (each with enough replies only)."""
    replies: int = 0
    """How many replies had a loudness."""

    @classmethod
    def of(cls, replies: Sequence[Measurements], table: Thresholds = THRESHOLDS) -> BatchReference:
        """Medians over ``replies`` (one system's), each only when ``relative_min_replies`` values exist."""
        lufs = [m.lufs for m in replies if m.lufs is not None]
        f0: dict[str, list[float]] = {}
        for m in replies:
            gender = read_gender(m, table).level
            if gender is not None and m.f0_median_hz is not None:
                f0.setdefault(gender, []).append(m.f0_median_hz)
                f0.setdefault("any", []).append(m.f0_median_hz)
        enough = table.relative_min_replies
        return cls(
            statistics.median(lufs) if len(lufs) >= enough else None,
            {g: statistics.median(v) for g, v in f0.items() if len(v) >= enough},
            len(lufs),
        )

    def f0_reference(self, gender: str | None) -> float | None:
        """The median F0 a reply of ``gender`` is compared with: its gender's, else the system's overall one.

        A single-voice system pushed to an extreme pitch can cross the gender cut; its own voice is then still
        the right reference, so the overall median is used when the detected gender has too few replies.
        """
        return self.median_f0_hz.get(gender or "any", self.median_f0_hz.get("any"))

    def describe(self) -> str:
        """Volume's reference, for reports."""
        if self.median_lufs is None:
            return "absolute LUFS (no batch of this system's replies)"
        return f"relative to the system's median {self.median_lufs:.1f} LUFS over {self.replies} replies"


@dataclass(frozen=True)
class Naturalness:
    """The naturalness classifier's verdict (``_naturalness``: real model speech against the project's own TTS)."""

    natural: bool | None
    """The probability of natural speech reaches the model's threshold; None when unmeasurable."""
    probability: float | None
    """The classifier's probability that the reply is natural speech."""
    threshold: float
    """The model's threshold."""
    f0_sd_st: float | None
    """F0 standard deviation, semitones (one of the inputs, reported)."""
    npvi: float | None
    """nPVI of syllable intervals (one of the inputs, reported)."""


def read_naturalness(m: Measurements, model: NaturalnessModel | None = None) -> Naturalness:
    """Natural when the classifier's probability reaches its threshold (the shipped model unless one is given)."""
    model = model or naturalness_model()
    p = model.probability(m)
    natural = None if p is None else p >= model.threshold
    return Naturalness(natural, p, model.threshold, m.f0_sd_st, m.npvi)
