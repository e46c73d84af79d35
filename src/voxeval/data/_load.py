"""Loading whole gold and prediction files, with duplicate-id checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from voxeval.data._schema import GoldSample, Prediction, parse_gold, parse_prediction
from voxeval.errors import InputError, Location
from voxeval.io import read_jsonl

T = TypeVar("T")


def load_unique(path: str | Path, parse: Callable[[dict[str, Any], Location], T], empty: str) -> list[T]:
    """Every row of a JSONL file parsed by ``parse``; ids (``.id``) must be unique and the file non-empty (else
    ``no rows: EMPTY``)."""
    rows: list[T] = []
    seen: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        parsed = parse(row, where)
        row_id = str(getattr(parsed, "id"))  # noqa: B009 - every parsed record has an id
        if row_id in seen:
            raise InputError(where.child("id"), f"duplicate id {row_id!r} (first on line {seen[row_id]})")
        seen[row_id] = line
        rows.append(parsed)
    if not rows:
        raise InputError(Location(str(path)), f"no rows: {empty}")
    return rows


def load_gold(path: str | Path) -> list[GoldSample]:
    """All gold rows of a JSONL file in the paper's schema; ids must be unique and the file non-empty."""
    return load_unique(path, parse_gold, "a gold file needs at least one sample")


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
