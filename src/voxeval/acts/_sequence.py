"""Dialogue-act steps and sequences, and the one place where importances are normalised."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxeval.acts._labels import LABELS, Label, parse_label
from voxeval.errors import InputError, Location


@dataclass(frozen=True)
class Step:
    """One dialogue act in a reply.

    >>> Step("Answer", 0.8)
    Step(act='Answer', importance=0.8, rationale=None, span=None)
    """

    act: Label
    """Dialogue-act label."""
    importance: float
    """Importance weight; within a normalised sequence the weights sum to 1."""
    rationale: str | None = None
    """Why the act is there (free text), when the source gives one."""
    span: str | None = None
    """The substring of the reply that realises the act, when known."""

    def to_json(self) -> dict[str, Any]:
        """The step as a JSON object, leaving out absent optional fields."""
        row: dict[str, Any] = {"act": self.act, "importance": self.importance}
        if self.rationale is not None:
            row["rationale"] = self.rationale
        if self.span is not None:
            row["span"] = self.span
        return row


Acts = tuple[Step, ...]
"""A dialogue-act sequence, in the order the acts occur in the reply."""

MAX_STEPS = 256
"""Most dialogue acts one reply may have (the paper's replies have 1-6). Scoring a pair takes time and memory
quadratic in its lengths (2,000 + 2,000 acts took 27 s, 28,000 exhausted 4 GB), so a longer sequence, which no
reply's acts are, is refused where it is read: at most 257 x 257 cells per pair (0.5 MB, ~0.3 s in Python)."""


def _importance(value: object, where: Location) -> float:
    # bool is an int subclass; `true` as a weight is a data error, not 1.0.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(where, f"importance must be a number, got {value!r}")
    try:
        weight = float(value)
    except OverflowError:  # a JSON integer of hundreds of digits: valid JSON, beyond any float
        raise InputError(where, f"importance is too large, got an integer of {len(str(value))} digits") from None
    if math.isnan(weight) or math.isinf(weight):
        raise InputError(where, f"importance must be finite, got {value!r}")
    if weight < 0:
        raise InputError(where, f"importance must not be negative, got {value!r}")
    return weight


def _optional_text(row: dict[str, Any], key: str, where: Location) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(where.child(key), f"must be a string, got {type(value).__name__}")
    return value


def parse_step(raw: object, where: Location) -> Step:
    """Parse one raw step object (``{"act", "importance", "rationale"?, "span"?}``) without normalising."""
    if not isinstance(raw, dict):
        raise InputError(where, f"a step must be an object, got {type(raw).__name__}")
    if "act" not in raw:
        raise InputError(where.child("act"), "missing")
    label = parse_label(raw["act"])
    if label is None:
        raise InputError(
            where.child("act"), f"unknown dialogue act {raw['act']!r}; expected one of {', '.join(LABELS)}"
        )
    if "importance" not in raw:
        raise InputError(where.child("importance"), "missing")
    weight = _importance(raw["importance"], where.child("importance"))
    return Step(label, weight, _optional_text(raw, "rationale", where), _optional_text(raw, "span", where))


def normalise(steps: Sequence[Step]) -> Acts:
    """Rescale importances to sum to 1 (eq. 3 of the spec); all-zero weights become uniform.

    An empty sequence stays empty: it means the reply performed no act (for a prediction, the model said
    nothing). Weights must already be validated as finite and non-negative.

    >>> [round(s.importance, 6) for s in normalise([Step("Answer", 0.7), Step("Inform", 0.2)])]
    [0.777778, 0.222222]
    >>> [s.importance for s in normalise([Step("Answer", 0.0), Step("Inform", 0.0)])]
    [0.5, 0.5]
    """
    if not steps:
        return ()
    total = math.fsum(s.importance for s in steps)
    if total == 0.0:
        # All-zero weights carry no preference between acts: treat them as equally important.
        return tuple(Step(s.act, 1.0 / len(steps), s.rationale, s.span) for s in steps)
    return tuple(Step(s.act, s.importance / total, s.rationale, s.span) for s in steps)


def parse_acts(raw: object, where: Location, *, allow_empty: bool) -> Acts:
    """Parse and normalise a raw ``steps`` list. ``allow_empty=False`` makes an empty list an error (gold)."""
    if not isinstance(raw, list):
        raise InputError(where, f"steps must be a list, got {type(raw).__name__}")
    if not raw and not allow_empty:
        raise InputError(where, "gold dialogue-act sequence is empty; every gold reply needs at least one act")
    if len(raw) > MAX_STEPS:
        raise InputError(
            where,
            f"{len(raw)} dialogue acts; a reply has at most {MAX_STEPS} (voxeval.acts.MAX_STEPS, docs/reliability.md)",
        )
    steps = [parse_step(item, where.child(f"[{i}]")) for i, item in enumerate(raw)]
    try:
        return normalise(steps)
    except OverflowError:  # math.fsum: the sum is beyond the largest float
        raise InputError(
            where, "the importances are too large to add up (their sum overflows); give relative weights such as 0.7"
        ) from None


def acts_to_json(acts: Sequence[Step]) -> list[dict[str, Any]]:
    """A sequence as a JSON list of step objects."""
    return [s.to_json() for s in acts]
