"""Strict validation of a dataset file (``voxeval dataset validate``) and its statistics."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from voxeval.acts import LABELS
from voxeval.data._schema import GoldSample, parse_gold

if TYPE_CHECKING:
    from voxeval.data._dialogue import Dialogue
from voxeval.errors import InputError, Location
from voxeval.io import read_jsonl

T = TypeVar("T")

SUM_TOLERANCE = 1e-6
"""Stored importances must sum to 1 within this (the loader renormalises anyway; validation wants clean data)."""


@dataclass
class ValidationReport:
    """Problems found in a dataset file, and the samples that parsed."""

    path: str
    """The file validated."""
    errors: list[str] = field(default_factory=list)
    """One line per problem: ``FILE:LINE, field F: message``."""
    samples: list[GoldSample] = field(default_factory=list)
    """Rows that parsed."""
    dialogues: list[Dialogue] = field(default_factory=list)
    """Dialogues that parsed, when the file is a dialogue set."""

    @property
    def ok(self) -> bool:
        """No problems."""
        return not self.errors

    @property
    def count(self) -> str:
        """What parsed, for the summary line (``336 samples``, ``150 dialogues``)."""
        return f"{len(self.dialogues)} dialogues" if self.dialogues else f"{len(self.samples)} samples"


def _check_steps(raw_steps: list[Any], reply: str, where: Location, require_spans: bool) -> list[str]:
    problems: list[str] = []
    total = math.fsum(float(s["importance"]) for s in raw_steps)
    if abs(total - 1.0) > SUM_TOLERANCE:
        problems.append(f"{where}: importances sum to {total:.6f}, not 1")
    weights = [float(s["importance"]) for s in raw_steps]
    if len(weights) > 1 and weights.count(max(weights)) > 1:
        # The guide: the central act of a reply gets the unique maximum (ties make "the key act" undefined).
        problems.append(
            f"{where}: the largest importance {max(weights):g} is shared; the central act needs the unique maximum"
        )
    cursor = 0
    for i, step in enumerate(raw_steps):
        here = where.child(f"[{i}]")
        if step["act"] not in LABELS:
            problems.append(f"{here.child('act')}: label {step['act']!r} is not spelled canonically")
        span = step.get("span")
        if span is None:
            if require_spans:
                problems.append(f"{here.child('span')}: missing")
            continue
        found = reply.find(span, cursor)
        if not span or found < 0:
            where_else = reply.find(span)
            why = "overlaps or is out of order" if where_else >= 0 else "is not a substring of output.text"
            problems.append(f"{here.child('span')}: {span!r} {why}")
        else:
            cursor = found + len(span)
    return problems


def _check_one_language(samples: list[GoldSample], path: str) -> list[str]:
    """A dataset holds one language (reports and ``voxeval compare`` treat the language as the dataset's)."""
    first: dict[str, GoldSample] = {}
    for s in samples:
        first.setdefault(s.language, s)
    if len(first) <= 1:
        return []
    seen = ", ".join(f"{lang!r} (first on line {s.line}, id {s.id!r})" for lang, s in first.items())
    return [f"{path}: input.locale mixes languages {seen}; a dataset holds one language"]


def parsed_rows(
    path: str | Path, parse: Callable[[dict[str, Any], Location], T], report: ValidationReport
) -> Iterator[tuple[Location, dict[str, Any], T]]:
    """Every row of ``path`` that parses and has an id not seen before, with its location; a row that does not parse,
    a repeated id, or the file itself unreadable past a line is an error added to ``report`` (reading goes on)."""
    seen: dict[str, int] = {}
    try:
        for line, row in read_jsonl(path):
            where = Location(str(path), line)
            try:
                parsed = parse(row, where)
            except InputError as exc:
                report.errors.append(str(exc))
                continue
            row_id = str(getattr(parsed, "id"))  # noqa: B009 - every parsed record has an id
            if row_id in seen:
                report.errors.append(f"{where.child('id')}: duplicate id {row_id!r} (first on line {seen[row_id]})")
                continue
            seen[row_id] = line
            yield where, row, parsed
    except InputError as exc:  # the file itself is unreadable past this line
        report.errors.append(str(exc))


def validate_file(path: str | Path, *, require_spans: bool = False) -> ValidationReport:
    """Check schema, labels, weights (sum to 1 within 1e-6), spans (exact, in order) and unique ids."""
    report = ValidationReport(str(path))
    for where, row, sample in parsed_rows(path, parse_gold, report):
        steps_where = where.child("output_dialogue_acts.steps")
        report.errors += _check_steps(
            row["output_dialogue_acts"]["steps"], sample.output_text, steps_where, require_spans
        )
        report.samples.append(sample)
    if not report.samples and not report.errors:
        report.errors.append(f"{path}: no rows")
    report.errors += _check_one_language(report.samples, str(path))
    return report


def dataset_stats(samples: list[GoldSample]) -> dict[str, Any]:
    """Counts of domains, splits, labels (per step and per sample) and sequence lengths."""
    return {
        "samples": len(samples),
        "splits": dict(Counter(s.split or "-" for s in samples).most_common()),
        "domains": dict(Counter(s.domain or "-" for s in samples).most_common()),
        "label_steps": {label: sum(1 for s in samples for a in s.acts if a.act == label) for label in LABELS},
        "label_samples": {label: sum(1 for s in samples if any(a.act == label for a in s.acts)) for label in LABELS},
        "sequence_lengths": dict(sorted(Counter(len(s.acts) for s in samples).items())),
        "languages": dict(Counter(s.language for s in samples).most_common()),
        "mean_reply_chars": round(sum(len(s.output_text) for s in samples) / max(len(samples), 1), 1),
    }
