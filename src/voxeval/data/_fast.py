"""The fast path of reading gold and prediction rows for scoring: typed decoding, no objects per field.

Each row is decoded by ``msgspec`` straight into the few fields scoring needs, with the checks that the full
parser (:func:`~voxeval.data.parse_gold`, :func:`~voxeval.data.parse_prediction`) makes. A row the fast path
does not accept, for whatever reason, goes through the full parser, which either accepts it (a rare shape the
fast path does not model, e.g. an integer id beyond 64 bits or a lenient label spelling) or raises the error
users see today, naming file, line and field. So the fast path decides nothing on its own: it only skips work
on rows that are right.
"""

from __future__ import annotations

import math
from typing import Annotated

import msgspec

from voxeval.acts import LABELS

_Weight = Annotated[float, msgspec.Meta(ge=0)]

LABEL_CODES: dict[str, int] = {label: code for code, label in enumerate(LABELS)}
"""Label → small integer code (the index in :data:`~voxeval.acts.LABELS`), as stored in arrays."""

RawActs = tuple[str, list[int], list[float], float, "str | None"]
"""A row as the fast path gives it: ``(id, label codes, raw weights, fsum of the weights, failure)``.

Weights are not yet normalised: callers divide by the sum over whole arrays (the same IEEE division as
:func:`~voxeval.acts.normalise`; a zero sum means equal shares). A tuple, not a record: one is made per row.
"""


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
_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, KeyError)


def _acts(sample_id: str | int, steps: list[_Step], failure: str | None = None) -> RawActs | None:
    if sample_id == "":
        return None
    # Exact spellings only; a lenient one (`check question`) raises KeyError and the full parser maps it.
    codes = [LABEL_CODES[s.act] for s in steps]
    weights = [s.importance for s in steps]
    if 0.0 in weights and any(math.copysign(1.0, w) < 0.0 for w in weights):
        # JSON `-0` is the integer 0 for the full reader but -0.0 here: leave signed zeros to the full parser.
        return None
    return (sample_id if isinstance(sample_id, str) else str(sample_id)), codes, weights, math.fsum(weights), failure


def fast_gold(raw: bytes) -> RawActs | None:
    """The acts of a gold line when it is a valid gold row, else ``None`` (let the full parser decide)."""
    try:
        if not raw.isascii():
            raw.decode("utf-8")  # msgspec does not check the fields it skips; the full reader checks every byte
        row = _GOLD.decode(raw)
        steps = row.output_dialogue_acts.steps
        if not steps or not row.input.text.strip() or not row.output.text.strip():
            return None
        return _acts(row.id, steps)
    except _ERRORS:
        return None


def fast_prediction(raw: bytes) -> RawActs | None:
    """The acts (or failure) of a prediction line when it is a valid row, else ``None``."""
    try:
        if not raw.isascii():
            raw.decode("utf-8")
        row = _PRED.decode(raw)
        if row.status == "failed":
            return _acts(row.id, [], row.error or "failed")
        return None if row.steps is None else _acts(row.id, row.steps)
    except _ERRORS:
        return None
