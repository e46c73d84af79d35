"""The naturalness classifier: human-like (recorded or neural) speech against the flat cadence of HTS / formant TTS.

A logistic regression over prosodic and voice-quality measurements, trained by
``benchmarks/acoustic_naturalness.py`` on real replies of speech models (natural) and on the project's own TTS
engines (synthetic). The model is a JSON file beside this module (weights, standardisation, threshold, the training
data's sha256 and the command that made it): no pickle, and the runtime needs numpy only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from voxeval.speech.acoustics._measure import Measurements

MODEL_FILE = "naturalness.json"
"""The shipped model, in ``voxeval/speech/acoustics/calibration/``."""


def features(m: Measurements) -> dict[str, float | None]:
    """The classifier's inputs, by name (None where not measurable)."""
    v = m.voice
    return {
        "f0_sd_st": m.f0_sd_st,
        "f0_range_st": m.f0_range_st,
        "npvi": m.npvi,
        "voiced_fraction": m.voiced_fraction,
        "alpha_ratio_db": m.alpha_ratio_db,
        "jitter": None if v is None else v.jitter,
        "shimmer": None if v is None else v.shimmer,
        "hnr_db": None if v is None else v.hnr_db,
        "f0_step_st": None if v is None else v.f0_step_st,
        "energy_sd_db": None if v is None else v.energy_sd_db,
        "flatness": None if v is None else v.flatness,
    }


@dataclass(frozen=True)
class NaturalnessModel:
    """A standardised logistic regression over :func:`features`."""

    features: tuple[str, ...]
    """Input names, in weight order."""
    mean: tuple[float, ...]
    """Training mean per feature (also the value of a missing feature)."""
    scale: tuple[float, ...]
    """Training standard deviation per feature."""
    weights: tuple[float, ...]
    """Logistic weights of the standardised features."""
    intercept: float
    """Logistic intercept."""
    threshold: float
    """Probability of natural from which a reply counts as natural."""
    meta: dict[str, Any]
    """Training data (with sha256), counts, validation and the command that reproduces the model."""

    def probability(self, m: Measurements) -> float | None:
        """Probability that the reply is natural speech; None when it has no voiced speech to measure."""
        values = features(m)
        if m.f0_sd_st is None:
            return None
        z = self.intercept
        for name, mean, scale, weight in zip(self.features, self.mean, self.scale, self.weights, strict=True):
            value = values.get(name)
            z += weight * (0.0 if value is None or not math.isfinite(value) else (value - mean) / scale)
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def to_json(self) -> dict[str, Any]:
        """The file format."""
        return {
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "intercept": self.intercept,
            "threshold": self.threshold,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NaturalnessModel:
        """Read the file format (lengths checked)."""
        names = tuple(data["features"])
        mean, scale, weights = (tuple(float(x) for x in data[k]) for k in ("mean", "scale", "weights"))
        if not len(mean) == len(scale) == len(weights) == len(names):
            raise ValueError("naturalness model: mean, scale and weights must have one value per feature")
        meta = dict(data.get("meta", {}))
        return cls(names, mean, scale, weights, float(data["intercept"]), float(data["threshold"]), meta)


@cache
def naturalness_model() -> NaturalnessModel:
    """The shipped model."""
    text = resources.files("voxeval.speech.acoustics").joinpath("calibration", MODEL_FILE).read_text("utf-8")
    return NaturalnessModel.from_json(json.loads(text))
