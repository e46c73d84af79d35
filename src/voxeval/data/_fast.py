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
from array import array
from dataclasses import dataclass
from itertools import chain, islice, repeat
from operator import attrgetter
from typing import Annotated, Any, cast

import msgspec
import numpy as np
import numpy.typing as npt

from voxeval import native
from voxeval.acts import LABELS, MAX_STEPS

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
_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, KeyError, OverflowError, RecursionError)
"""What makes the fast path leave a row to the full parser (OverflowError: importances whose sum overflows;
RecursionError: a line nested too deeply). ``msgspec`` itself refuses a lone surrogate escape anywhere in a line
(DecodeError), so such a line always reaches the full reader, which names its field."""


def _acts(sample_id: str | int, steps: list[_Step], failure: str | None = None) -> RawActs | None:
    if sample_id == "" or len(steps) > MAX_STEPS:  # too many acts: the full parser says so
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


@dataclass(frozen=True)
class ActsBlock:
    """Consecutive rows in columns: what scoring needs of each, weights not yet normalised."""

    ids: list[str]
    """Sample id of each row."""
    lengths: npt.NDArray[np.int64]
    """Number of acts of each row (0 for a failed prediction)."""
    codes: npt.NDArray[np.int8]
    """All label codes, concatenated in row order."""
    weights: npt.NDArray[np.float64]
    """All raw weights, concatenated like ``codes``."""
    totals: npt.NDArray[np.float64]
    """``math.fsum`` of each row's raw weights."""
    failures: dict[int, str]
    """Row index → failure reason, for predictions with ``"status": "failed"``."""


_ID, _STEPS, _STATUS = attrgetter("id"), attrgetter("steps"), attrgetter("status")
_GOLD_STEPS = attrgetter("output_dialogue_acts.steps")
_INPUT, _OUTPUT = attrgetter("input.text"), attrgetter("output.text")
_ACT, _IMPORTANCE = attrgetter("act"), attrgetter("importance")


def _valid_utf8(lines: list[bytes]) -> bool:
    """Whether every line decodes as UTF-8 (compiled when built, else :func:`python_valid_utf8`)."""
    found = native.utf8_lines(lines)
    return python_valid_utf8(lines) if found is None else found


def python_valid_utf8(lines: list[bytes]) -> bool:
    """:func:`_valid_utf8` with numpy and one decode of the block's non-ASCII runs."""
    # One check for the block: "\n" is never part of a multi-byte sequence, so the join is valid iff each line is.
    joined = b"\n".join(lines)
    if joined.isascii():
        return True
    # ASCII bytes are always valid and never inside a multi-byte sequence: only the runs of bytes >= 0x80 need
    # decoding, each with the byte after it (ASCII, or the end), which ends a truncated sequence as in place.
    data = np.frombuffer(joined, dtype=np.uint8)
    high = data >= 0x80
    keep = high.copy()
    keep[1:] |= high[:-1]
    try:
        data[keep].tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode_all(decoder: Any, lines: list[bytes]) -> list[Any] | None:
    if not _valid_utf8(lines):
        return None
    try:
        return list(map(decoder.decode, lines))
    except _ERRORS:
        return None


def _columns(raw_ids: list[str | int], step_lists: list[list[_Step]], failures: dict[int, str]) -> ActsBlock | None:
    """The rows as :class:`ActsBlock`, or ``None`` where :func:`_acts` would refuse one of them.

    The compiled :func:`voxeval.native.columns` does it when built and the rows are of the common shape (else
    :func:`python_columns`, the same in Python).
    """
    found = native.columns(raw_ids, step_lists, LABEL_CODES)
    if found is None:
        return python_columns(raw_ids, step_lists, failures)
    codes, weights, lengths, totals = found
    if lengths.size and int(lengths.max()) > MAX_STEPS:  # too many acts in a row: the full parser says so
        return None
    return ActsBlock(cast("list[str]", raw_ids), lengths, codes, weights, totals, failures)


def python_columns(
    raw_ids: list[str | int], step_lists: list[list[_Step]], failures: dict[int, str]
) -> ActsBlock | None:
    """:func:`_columns` in Python: every loop runs in C (``map`` over ``attrgetter`` and bound methods)."""
    ids = cast("list[str]", raw_ids) if set(map(type, raw_ids)) <= {str} else [str(i) for i in raw_ids]
    if "" in ids:
        return None
    steps = list(chain.from_iterable(step_lists))
    try:
        codes = np.frombuffer(bytes(map(LABEL_CODES.__getitem__, map(_ACT, steps))), dtype=np.int8)
    except KeyError:  # a lenient spelling: the full parser maps it
        return None
    raw = list(map(_IMPORTANCE, steps))
    weights = np.frombuffer(array("d", raw), dtype=np.float64)
    if np.signbit(weights).any():  # -0.0, see _acts
        return None
    lengths = list(map(len, step_lists))
    if lengths and max(lengths) > MAX_STEPS:  # too many acts in a row: the full parser says so
        return None
    flat = iter(raw)  # each islice takes the next row's weights from the one iterator
    try:
        totals = np.fromiter(map(math.fsum, map(islice, repeat(flat), lengths)), dtype=np.float64, count=len(lengths))
    except OverflowError:  # importances whose sum overflows: the full parser says so
        return None
    return ActsBlock(ids, np.array(lengths, dtype=np.int64), codes, weights, totals, failures)


def gold_block(lines: list[bytes]) -> ActsBlock | None:
    """A block of gold lines in columns when every line is a valid gold row, else ``None`` (go line by line)."""
    rows = _decode_all(_GOLD, lines)
    if (
        rows is None
        or not native.all_nonblank(list(map(_INPUT, rows)))
        or not native.all_nonblank(list(map(_OUTPUT, rows)))
    ):
        return None
    step_lists = list(map(_GOLD_STEPS, rows))
    if not all(step_lists):
        return None
    return _columns(list(map(_ID, rows)), step_lists, {})


def prediction_block(lines: list[bytes]) -> ActsBlock | None:
    """A block of prediction lines in columns when every line is a valid row, else ``None`` (go line by line)."""
    rows = _decode_all(_PRED, lines)
    if rows is None:
        return None
    step_lists = list(map(_STEPS, rows))
    failures: dict[int, str] = {}
    if "failed" in map(_STATUS, rows):
        failures = {k: row.error or "failed" for k, row in enumerate(rows) if row.status == "failed"}
        for k in failures:
            step_lists[k] = []
    if None in step_lists:
        return None
    return _columns(list(map(_ID, rows)), step_lists, failures)
