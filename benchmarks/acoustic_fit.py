"""Fitting the acoustic judge on real speech: vstyle-dev replies against Gemini 2.5 Pro's step-1 readings.

Used by ``acoustic_vstyle.py`` (leave one system out, and ``--write`` on all three systems). Training logic stays
out of the runtime package: the judge only reads the fitted values (``calibration/real-speech.json``).
"""

from __future__ import annotations

import itertools
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acoustic_naturalness import Sample
from acoustic_naturalness import fit as fit_naturalness
from acoustic_vstyle_data import MeasureCache, Reply, replies

from voxeval.speech.acoustics import (
    Analysis,
    BatchReference,
    Measurements,
    NaturalnessModel,
    Scale,
    Thresholds,
    gender_score,
    read_speed,
)
from voxeval.speech.acoustics._thresholds import FITTED_SCALES, SYNTHETIC_THRESHOLDS, calibrated

CUT_INTENSITIES = (10.0, 35.0, 65.0, 90.0)
FIT_METHOD = (
    "gender cut: fewest errors against Gemini's gender; en/zh rate and nuclei norms: geometric mean where Gemini "
    "heard a normal rate; scale cuts: fewest errors against Gemini's level (its 0-100 intensity in the seed "
    "prompt's bands), and where either side of a cut has fewer than two replies, linear equating of the "
    "measurement with Gemini's intensity"
)


@dataclass(frozen=True)
class Case:
    """A reply with its measurements (and its analysis when it is an acoustic-attribute reply)."""

    reply: Reply
    """The reply and Gemini's view of it."""
    m: Measurements
    """Acoustic measurements."""
    analysis: Analysis | None
    """Measurements with ASR, for the acoustic-attribute replies."""


def load(root: Path, cached_only: bool = False) -> list[Case]:
    """Every reply measured; acoustic-attribute replies also transcribed (cached; ASR loaded only when needed).

    ``cached_only`` leaves out the acoustic-attribute replies not transcribed yet (for development only: the
    figures are then not over the whole set, and the output says how many were used).
    """
    from voxeval.speech.asr import WhisperASR

    cache = MeasureCache(None if cached_only else WhisperASR())
    cases = []
    for r in replies(root):
        acoustic = r.item.ability.startswith("acoustic_attributes/")
        try:
            analysis = cache.analysis(r.path, r.language) if acoustic else None
        except RuntimeError:  # not transcribed yet, and cached_only
            continue
        cases.append(Case(r, analysis.measurements if analysis else cache.measurements(r.path), analysis))
    return cases


# ---------------------------------------------------------------- fitting on real speech


def equate(pairs: list[tuple[float, float]], log: bool) -> tuple[float, float, float, float] | None:
    """Cuts by linear equating: the measurement's mean and spread matched to Gemini's 0–100 intensities.

    A regression would shrink towards "normal" (Gemini's extremes are rare); equating keeps the spread, so the
    judge reads the extreme levels about as often as Gemini does. None when the relation is not increasing.
    """
    if len(pairs) < 8:
        return None
    xs = [math.log(x) if log else x for x, _ in pairs]
    ys = [y for _, y in pairs]
    if statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0 or statistics.correlation(xs, ys) <= 0:
        return None
    mx, sx, my, sy = statistics.fmean(xs), statistics.pstdev(xs), statistics.fmean(ys), statistics.pstdev(ys)
    cuts = [mx + (i - my) / sy * sx for i in CUT_INTENSITIES]
    out = [math.exp(c) if log else c for c in cuts]
    return (out[0], out[1], out[2], out[3])


def level_index(intensity: float) -> int:
    """Gemini's 0–100 intensity as a level index 0–4 (the seed prompt's bands)."""
    return sum(intensity >= c for c in CUT_INTENSITIES)


def fewest_errors(
    pairs: list[tuple[float, float]], log: bool, fallback: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """Cut k separates Gemini's levels ≤ k from ≥ k+1 with the fewest errors (middle of the best interval).

    A cut with fewer than two replies on either side keeps ``fallback``'s value (Gemini rarely hears the extremes).
    """
    tr = math.log if log else (lambda v: v)
    points = [(tr(x), level_index(y)) for x, y in pairs]
    values = sorted({x for x, _ in points})
    cuts: list[float] = []
    for k in range(4):
        above = sum(lvl > k for _, lvl in points)
        if above < 2 or len(points) - above < 2:
            cuts.append(tr(fallback[k]))
            continue
        candidates = [(a + b) / 2 for a, b in itertools.pairwise(values)]
        errors = [sum((lvl > k) != (x >= c) for x, lvl in points) for c in candidates]
        tied = [c for c, e in zip(candidates, errors, strict=True) if e == min(errors)]
        cuts.append((tied[0] + tied[-1]) / 2)
    for k in range(1, 4):
        cuts[k] = max(cuts[k], cuts[k - 1] + (0.01 if log else 0.1))
    back = math.exp if log else (lambda v: v)
    a, b, c, d = (back(x) for x in cuts)
    return (a, b, c, d)


def _rate(case: Case, table: Thresholds) -> float | None:
    """Transcript units per second of the words' speaking time (the signal's without word times)."""
    a = case.analysis
    if a is None or a.units is None:
        return None
    seconds = a.word_speech_s or case.m.speech_s
    return a.units.count / seconds if seconds > 0 else None


def _nuclei_rate(case: Case, table: Thresholds) -> float | None:
    """Syllable nuclei per second of the signal's speech time."""
    return case.m.nuclei / case.m.speech_s if case.m.speech_s > 0 and case.m.nuclei > 0 else None


def _norms(cases: list[Case], table: Thresholds, rate: Any) -> dict[str, float]:
    """Per language: geometric mean of ``rate`` over the replies where Gemini heard a normal speaking rate."""
    norms = {}
    for language in ("en", "zh"):
        normal = [
            r
            for c in cases
            if c.reply.language == language
            and c.reply.gemini.speed is not None
            and 35 <= c.reply.gemini.speed < 65
            and (r := rate(c, table))
        ]
        if normal:
            norms[language] = round(math.exp(statistics.fmean(math.log(r) for r in normal)), 3)
    return norms


def _gender_cut(cases: list[Case], table: Thresholds) -> float:
    labelled = [(c.m, c.reply.gemini.gender) for c in cases if c.reply.gemini.gender and c.m.f0_median_hz]
    best: tuple[int, list[float]] = (len(labelled) + 1, [])
    for hz in range(120, 221):
        t = replace(table, gender_f0_cut_hz=float(hz))
        errors = sum(((gender_score(m, t) or 0) >= 0) != (g == "female") for m, g in labelled)
        if errors < best[0]:
            best = (errors, [float(hz)])
        elif errors == best[0]:
            best[1].append(float(hz))
    return statistics.median(best[1]) if best[1] else table.gender_f0_cut_hz


def references(cases: list[Case], table: Thresholds) -> dict[str, BatchReference]:
    """Each system's batch reference over all its replies (as ``judge_batch`` computes it on a VStyle run)."""
    by_system: dict[str, list[Measurements]] = defaultdict(list)
    for c in cases:
        by_system[c.reply.system].append(c.m)
    return {s: BatchReference.of(ms, table) for s, ms in by_system.items()}


def fit_table(cases: list[Case], base: Thresholds = SYNTHETIC_THRESHOLDS) -> dict[str, Any]:
    """Values fitted on ``cases`` (real replies with Gemini's step-1 attributes), in the calibration file's form.

    Gender cut: fewest errors against Gemini's gender. Rate and nuclei norms (en, zh): geometric mean where Gemini
    heard a normal rate. Scale cuts: :func:`fewest_errors` against Gemini's level, :func:`equate` as the fallback.
    """
    values: dict[str, Any] = {"gender_f0_cut_hz": _gender_cut(cases, base)}
    table = calibrated(base, values)
    values["rate_norm"] = {**base.rate_norm, **_norms(cases, table, _rate)}
    values["nuclei_norm"] = _norms(cases, table, _nuclei_rate)
    table = calibrated(base, values)
    refs = references(cases, table)
    measured: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for c in cases:
        g = c.reply.gemini
        if g.pitch is not None and c.m.f0_p90_hz:
            measured["pitch_absolute"].append((c.m.f0_p90_hz, g.pitch))
        if g.speed is not None and c.analysis is not None:
            a = c.analysis
            speed = read_speed(c.m, a.units, c.reply.language, table, a.word_speech_s).value
            if speed:
                measured["speed"].append((speed, g.speed))
        if g.volume is not None and c.m.lufs is not None:
            measured["volume_absolute"].append((c.m.lufs, g.volume))
            median = refs[c.reply.system].median_lufs
            if median is not None:
                measured["volume_relative"].append((c.m.lufs - median, g.volume))
    for name in FITTED_SCALES:
        scale: Scale = getattr(base, name)
        fallback = equate(measured[name], scale.log) or scale.cuts
        cuts = fewest_errors(measured[name], scale.log, fallback) if measured[name] else None
        if cuts is not None:
            values[name] = [round(x, 4) for x in cuts]
    return values


def naturalness_for(cases: list[Case], synthetic: list[Sample]) -> NaturalnessModel:
    """The classifier fitted on these systems' replies (natural) and the synthetic clips."""
    natural = [Sample(c.reply.system, True, c.m, c.reply.key) for c in cases]
    return fit_naturalness(natural + synthetic)
