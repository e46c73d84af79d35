"""Dialogue acts: the seven labels, steps with importances, and their normalisation."""

from voxeval.acts._labels import LABELS, Label, parse_label
from voxeval.acts._sequence import MAX_STEPS, Acts, Step, acts_to_json, normalise, parse_acts, parse_step

__all__ = [
    "LABELS",
    "MAX_STEPS",
    "Acts",
    "Label",
    "Step",
    "acts_to_json",
    "normalise",
    "parse_acts",
    "parse_label",
    "parse_step",
]
