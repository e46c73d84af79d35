"""Loading whole gold and prediction files, with duplicate-id checks."""

from __future__ import annotations

from pathlib import Path

from voxeval.data._schema import GoldSample, Prediction, parse_gold, parse_prediction
from voxeval.errors import InputError, Location
from voxeval.io import read_jsonl


def load_gold(path: str | Path) -> list[GoldSample]:
    """All gold rows of a JSONL file in the paper's schema; ids must be unique and the file non-empty."""
    samples: list[GoldSample] = []
    seen: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        sample = parse_gold(row, where)
        if sample.id in seen:
            raise InputError(where.child("id"), f"duplicate id {sample.id!r} (first on line {seen[sample.id]})")
        seen[sample.id] = line
        samples.append(sample)
    if not samples:
        raise InputError(Location(str(path)), "no rows: a gold file needs at least one sample")
    return samples


def load_predictions(path: str | Path) -> dict[str, Prediction]:
    """Prediction rows by id; ids must be unique."""
    preds: dict[str, Prediction] = {}
    lines: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        pred = parse_prediction(row, where)
        if pred.id in preds:
            raise InputError(where.child("id"), f"duplicate id {pred.id!r} (first on line {lines[pred.id]})")
        preds[pred.id] = pred
        lines[pred.id] = line
    return preds
