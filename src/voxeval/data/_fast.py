"""The fast path of reading gold and prediction rows for scoring: typed decoding, no objects per field.

Each row is decoded by ``msgspec`` straight into the few fields scoring needs, with the checks that the full
parser (:func:`~voxeval.data.parse_gold`, :func:`~voxeval.data.parse_prediction`) makes. A row the fast path
does not accept, for whatever reason, goes through the full parser, which either accepts it (a rare shape the
fast path does not model, e.g. an integer id beyond 64 bits) or raises the error users see today, naming
file, line and field. So the fast path decides nothing on its own: it only skips work on rows that are right.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

import msgspec

from voxeval.acts import LABELS, parse_label

_Weight = Annotated[float, msgspec.Meta(ge=0)]

LABEL_CODES: dict[str, int] = {label: code for code, label in enumerate(LABELS)}
"""Label → small integer code (the index in :data:`~voxeval.acts.LABELS`), as stored in arrays."""


class _Step(msgspec.Struct, gc=False):
    act: str
    importance: _Weight
    rationale: str | None = None
    span: str | None = None


class _Scenario(msgspec.Struct, gc=False):
    background: str | None = None


class _Input(msgspec.Struct, gc=False):
    text: str
    audio: str | None = None


class _Output(msgspec.Struct, gc=False):
    text: str


class _Acts(msgspec.Struct, gc=False):
    steps: list[_Step]


class _Gold(msgspec.Struct, gc=False):
    id: str | int
    scenario_context: _Scenario
    input: _Input
    output: _Output
    output_dialogue_acts: _Acts
    domain: str | None = None
    split: str | None = None


class _Pred(msgspec.Struct, gc=False):
    id: str | int
    steps: list[_Step] | None = None
    text: str | None = None
    status: str | None = None
    error: str | None = None


_GOLD = msgspec.json.Decoder(_Gold)
_PRED = msgspec.json.Decoder(_Pred)


@dataclass(frozen=True)
class FastActs:
    """A row's id and its acts as label codes and normalised weights."""

    id: str
    """Sample id, as :func:`~voxeval.data.parse_id` gives it."""
    codes: list[int]
    """Label codes (see :data:`LABEL_CODES`), in order."""
    weights: list[float]
    """Importances normalised exactly as :func:`~voxeval.acts.normalise` does."""
    failure: str | None = None
    """For a prediction with ``status: failed``: why (the row is excluded, never scored)."""


def _utf8(raw: bytes) -> bool:
    # msgspec does not check fields it skips; the full reader refuses a line that is not UTF-8 anywhere.
    if raw.isascii():
        return True
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _codes_and_weights(steps: list[_Step]) -> tuple[list[int], list[float]] | None:
    codes = []
    for step in steps:
        code = LABEL_CODES.get(step.act)
        if code is None:
            label = parse_label(step.act)
            if label is None:
                return None
            code = LABEL_CODES[label]
        codes.append(code)
    raw = [s.importance for s in steps]
    if not raw:
        return codes, raw
    if 0.0 in raw and any(math.copysign(1.0, w) < 0.0 for w in raw):
        # JSON `-0` is the integer 0 for the full reader but -0.0 here: leave signed zeros to the full parser.
        return None
    total = math.fsum(raw)
    if total == 0.0:
        # As in normalise(): all-zero weights carry no preference, so each act gets an equal share.
        return codes, [1.0 / len(raw)] * len(raw)
    return codes, [w / total for w in raw]


def _id(value: str | int) -> str | None:
    if value == "":
        return None
    return value if isinstance(value, str) else str(value)


def fast_gold(raw: bytes) -> FastActs | None:
    """The acts of a gold line when it is a valid gold row, else ``None`` (let the full parser decide)."""
    if not _utf8(raw):
        return None
    try:
        row = _GOLD.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    sample_id = _id(row.id)
    steps = row.output_dialogue_acts.steps
    if sample_id is None or not steps or not row.input.text.strip() or not row.output.text.strip():
        return None
    parsed = _codes_and_weights(steps)
    return None if parsed is None else FastActs(sample_id, *parsed)


def fast_prediction(raw: bytes) -> FastActs | None:
    """The acts (or failure) of a prediction line when it is a valid row, else ``None``."""
    if not _utf8(raw):
        return None
    try:
        row = _PRED.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    sample_id = _id(row.id)
    if sample_id is None:
        return None
    if row.status == "failed":
        return FastActs(sample_id, [], [], row.error or "failed")
    if row.steps is None:
        return None
    parsed = _codes_and_weights(row.steps)
    return None if parsed is None else FastActs(sample_id, *parsed)
