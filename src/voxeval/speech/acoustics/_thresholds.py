"""Every threshold of the acoustic judge, in one table (rendered into docs/acoustic-judge.md).

Level cuts were first fitted by ``benchmarks/acoustic_calibration.py`` on synthesised clips with known settings
(``SYNTHETIC_THRESHOLDS``, kept as the sanity-check baseline); ``benchmarks/acoustic_vstyle.py --write`` refits the
pitch, speed and volume cuts, the en/zh rate norms and the gender cut on real model speech against Gemini 2.5 Pro
and stores them, with the data's sha256, in ``calibration/real-speech.json``, which ``THRESHOLDS`` applies. The other
values come from the literature or from the seed prompt and are marked as such in their docstrings.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Scale:
    """Cut points mapping a measurement to a 0–100 intensity and to a level, piecewise linearly."""

    measure: str
    """What is measured, with its unit."""
    cuts: tuple[float, float, float, float]
    """Measurement at intensities 10, 35, 65 and 90 (the boundaries between the five levels), increasing."""
    log: bool = False
    """Interpolate on a logarithmic scale (ratios, Hz)."""

    def __post_init__(self) -> None:
        if any(b <= a for a, b in zip(self.cuts, self.cuts[1:], strict=False)):
            raise ValueError(f"scale cuts must increase: {self.cuts}")
        if self.log and self.cuts[0] <= 0:
            raise ValueError(f"a log scale needs positive cuts: {self.cuts}")


@dataclass(frozen=True)
class Thresholds:
    """The acoustic judge's thresholds; ``THRESHOLDS`` is the one instance the code uses."""

    # --- analysis ---
    speech_floor_db: float = 35.0
    """Frames more than this many dB below the loudest 5 % are not speech (relative, so gain-independent)."""
    min_pause_s: float = 0.3
    """Silences shorter than this are part of speech (stop closures); longer ones are pauses, not timed."""
    pitch_range_hz: tuple[float, float] = (50.0, 900.0)
    """First-pass F0 search range; the second pass uses 0.75 × q25 … 1.5 × q75 of the first (Hirst 2011)."""
    formant_ceiling_hz: float = 5500.0
    """Burg formant analysis ceiling (Praat's default for mixed speakers)."""
    nucleus_dip_db: float = 2.0
    """A syllable nucleus is an intensity peak at least this far above the dip before it (de Jong & Wempe 2009)."""
    # --- levels (intensity 0–100 → level, from the seed prompt) ---
    intensity_cuts: tuple[float, float, float, float] = (10.0, 35.0, 65.0, 90.0)
    """Intensity boundaries of the five ordinal levels (seed prompt: 0–10, 10–35, 35–65, 65–90, 90–100)."""
    pitch_absolute: Scale = Scale("F0 90th percentile, Hz", (80.0, 97.0, 213.0, 620.0), log=True)
    """Pitch scale on absolute F0 (the default). Cuts fitted on real speech (``calibration/real-speech.json``)."""
    pitch_gender: Scale = Scale("F0 median ÷ the gender norm", (0.71, 0.85, 1.09, 1.73), log=True)
    """Pitch scale relative to the detected gender's norm (``pitch_reference="gender"``)."""
    pitch_model: Scale = Scale("F0 median ÷ the model's median F0 (same gender)", (0.76, 0.92, 1.1, 1.37), log=True)
    """Pitch scale relative to the same system's other replies (``pitch_reference="model"``, batches)."""
    gender_norm_hz: dict[str, float] = field(default_factory=lambda: {"male": 100.0, "female": 244.0})
    """Typical speaking F0 median per gender, Hz."""
    speed: Scale = Scale("speech units per second ÷ the language norm", (0.72, 0.88, 1.1, 1.33), log=True)
    """Speaking-rate scale, relative to the language's norm. Cuts fitted on real speech."""
    rate_norm: dict[str, float] = field(default_factory=lambda: {"ja": 7.9, "zh": 3.9, "en": 5.3})
    """Normal rate per language: morae/s (ja), syllables/s (zh: one per character; en: vowel groups); en and zh fitted
    on real speech (where Gemini heard a normal rate), ja on synthetic clips."""
    nuclei_norm: dict[str, float] = field(default_factory=dict)
    """Normal rate of syllable nuclei per second of signal speech time, per language (fitted on real speech): where
    present, the rate is the geometric mean of the transcript's and the nuclei's ratios to their norms."""
    volume_absolute: Scale = Scale("integrated loudness, LUFS (ITU-R BS.1770)", (-34.0, -24.0, -16.0, -10.5))
    """Volume scale on the file's loudness (single replies). Cuts fitted on real speech."""
    volume_relative: Scale = Scale("LUFS minus the same model's median LUFS, dB", (-15.0, -5.0, 3.0, 7.5))
    """Volume scale relative to the same system's other replies (batches). Cuts fitted on real speech."""
    relative_min_replies: int = 5
    """Replies of one model needed before volume (and pitch, reference ``model``) is judged against its median."""
    whisper_voiced_fraction: float = 0.25
    """Speech with less voicing than this is whispered: volume is at most ``very_quiet``."""
    gender_f0_cut_hz: float = 165.0
    """F0 median separating male (below) from female voices (fitted on real speech against Gemini's gender)."""
    gender_formant_ref_hz: float = 3300.0
    """Mean of F3 and F4 separating male (below) from female vocal tracts."""
    gender_formant_weight: float = 3.0
    """Semitones of F0 evidence per semitone of formant evidence in the gender score."""
    child_f0_hz: float = 250.0
    """Age ``child`` needs an F0 median above this (uncalibrated: no child voices offline) …"""
    child_formant_hz: float = 3900.0
    """… and a mean F3/F4 above this (short vocal tract)."""
    # --- language and content ---
    language_min_probability: float = 0.8
    """A detected language other than the expected one fails the reply only at this confidence or more."""
    asr_max_compression: float = 2.4
    """Transcripts more repetitive than this (zlib ratio) are ASR loops: rate falls back to syllable nuclei."""
    content_max_error: dict[str, float] = field(default_factory=lambda: {"ja": 0.2, "zh": 0.2, "en": 0.25})
    """Largest normalised edit distance (kana / toneless pinyin / words) of the required content still compliant."""
    content_max_extra: float = 3.0
    """Largest ratio of unmatched reply tokens (greetings, offers) to the required content's length."""


SYNTHETIC_THRESHOLDS = Thresholds()
"""The table fitted on synthesised clips (``benchmarks/acoustic_calibration.py``): the sanity-check baseline."""

CALIBRATION_FILE = "real-speech.json"
"""Values fitted on real model speech, in ``voxeval/speech/acoustics/calibration/`` (with the data's sha256)."""
FITTED_SCALES = ("pitch_absolute", "speed", "volume_absolute", "volume_relative")
"""Scales whose cuts the real-speech calibration replaces."""
FITTED_VALUES = ("rate_norm", "nuclei_norm", "gender_f0_cut_hz")
"""Other fields it replaces."""


def real_speech_calibration() -> dict[str, Any]:
    """The shipped real-speech calibration file (fitted values, data hash, command)."""
    text = resources.files("voxeval.speech.acoustics").joinpath("calibration", CALIBRATION_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def calibrated(base: Thresholds, values: dict[str, Any]) -> Thresholds:
    """``base`` with the fitted scale cuts and values of a calibration file's ``values``."""
    changes: dict[str, Any] = {}
    for name in FITTED_SCALES:
        if name in values:
            scale: Scale = getattr(base, name)
            a, b, c, d = (float(x) for x in values[name])
            changes[name] = replace(scale, cuts=(a, b, c, d))
    for name in FITTED_VALUES:
        if name in values:
            value = values[name]
            changes[name] = {k: float(v) for k, v in value.items()} if isinstance(value, dict) else float(value)
    return replace(base, **changes)


THRESHOLDS = calibrated(SYNTHETIC_THRESHOLDS, real_speech_calibration()["values"])
"""The table in force: the synthetic calibration with the values fitted on real model speech."""


def _field_docs() -> dict[str, str]:
    """Each field's docstring, read from this class's source (the single place it is written)."""
    tree = ast.parse(inspect.getsource(Thresholds))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in itertools.pairwise(body):
        named = isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        if named and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            docs[node.target.id] = " ".join(str(after.value.value).split())
    return docs


def _format(value: Any) -> str:
    if isinstance(value, Scale):
        cuts = ", ".join(f"{c:g}" for c in value.cuts)
        return f"{value.measure}: {cuts}{' (log)' if value.log else ''}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:g}" for k, v in value.items())
    if isinstance(value, tuple):
        return ", ".join(f"{v:g}" for v in value)
    return f"{value:g}"


def thresholds_markdown(table: Thresholds = THRESHOLDS) -> str:
    """The table as Markdown (name | value | meaning), as printed in docs/acoustic-judge.md."""
    docs = _field_docs()
    lines = ["| name | value | meaning |", "|---|---|---|"]
    for f in fields(table):
        lines.append(f"| `{f.name}` | {_format(getattr(table, f.name))} | {docs.get(f.name, '')} |")
    return "\n".join(lines)
