"""``scores.jsonl`` rows of a scored batch as text, byte-identical to ``dumps(SampleScore.to_json())``.

Rows are assembled from fixed pieces and ``float.__repr__`` (which is what :func:`json.dumps` writes for a
float), so no object is built per edit operation. The breakdown sums are exactly what
:func:`weighted_edit_distance` computes: ``math.fsum`` per kind along the path (with at most two non-zero
terms a plain float sum is the same correctly rounded number; longer groups are summed exactly in double-double).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
import numpy as np

from voxeval.io import dumps_str
from voxeval.metrics._batch import F64, I64, OP_DELETION, OP_INSERTION, OP_SUBSTITUTION, BatchScores

_ENCODE = msgspec.json.Encoder().encode

_BOOL = {False: "false", True: "true"}
_MAX_INDEX = 64
"""Op prefixes are precomputed for indices below this; longer sequences use the scalar path."""


def _prefixes() -> list[str]:
    table = [""] * (4 * 65 * 65)
    for p in range(-1, _MAX_INDEX):
        for g in range(-1, _MAX_INDEX):
            key = (p + 1) * 65 + (g + 1)
            ps, gs = ("null" if p < 0 else str(p)), ("null" if g < 0 else str(g))
            for kind, name in enumerate(("match", "substitution", "deletion", "insertion")):
                table[kind * 65 * 65 + key] = f'{{"op":"{name}","pred":{ps},"gold":{gs},"cost":'
    return table


_PREFIX = _prefixes()


@dataclass(frozen=True)
class BatchRows:
    """Row texts and the per-pair numbers of one scored batch."""

    data: bytes
    """The ``scores.jsonl`` lines of the batch, in batch order, UTF-8, each ending with a newline."""
    ends: I64
    """Where each row ends in ``data`` (one past its newline)."""
    wed: F64
    """WED totals (deletion + insertion + substitution)."""
    deletion: F64
    """Deletion costs along each path."""
    insertion: F64
    """Insertion costs along each path."""
    substitution: F64
    """Substitution costs along each path."""

    @property
    def text(self) -> list[str]:
        """Each row as a string, newline included."""
        starts = [0, *self.ends[:-1].tolist()]
        return [self.data[lo:hi].decode("utf-8") for lo, hi in zip(starts, self.ends.tolist(), strict=True)]


def _forward(scores: BatchScores) -> tuple[np.ndarray, np.ndarray]:
    """(step, pair) indices of every operation, pairs in order and each path front to back."""
    count = scores.op_count
    pair = np.repeat(np.arange(count.size), count)
    starts = np.cumsum(count) - count
    within = np.arange(int(count.sum())) - np.repeat(starts, count)
    return np.repeat(count, count) - 1 - within, pair


def _float_texts(values: F64) -> list[str]:
    """``float.__repr__`` of each value (what ``json.dumps`` writes), several at a time.

    msgspec writes the same shortest round-trip digits as ``repr`` but its own exponent style, which ``repr``
    uses below 1e-4 and from 1e16: those few values are written by ``repr`` itself.
    """
    flat = values.tolist()
    if not flat:
        return []
    texts = _ENCODE(flat).decode("ascii")[1:-1].split(",")
    odd = np.flatnonzero((values != 0.0) & ((np.abs(values) < 1e-4) | (np.abs(values) >= 1e15)))
    for k in odd.tolist():
        texts[k] = repr(flat[k])
    return texts


def _two_sum(a: F64, b: F64) -> tuple[F64, F64]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _sums(scores: BatchScores, kind: np.ndarray, cost: np.ndarray, bounds: np.ndarray) -> list[F64]:
    """Per-kind ``math.fsum`` of the path costs, for every pair at once.

    Each sum is accumulated as ``high + low`` with Knuth's TwoSum, which keeps ``high + Σ errors`` equal to
    the exact sum; the errors are summed with TwoSum again. Where that second sum lost nothing, ``high + low``
    is the exact sum, so the one IEEE addition ``high + low`` rounds it correctly (half to even), which is
    what ``fsum`` returns. Pairs where the second sum was inexact (rare) are summed by ``fsum`` itself.
    """
    steps = np.arange(scores.op_kind.shape[0])[:, None] < scores.op_count[None, :]
    sums, exact = [], np.ones(scores.op_count.size, dtype=bool)
    for code in (OP_DELETION, OP_INSERTION, OP_SUBSTITUTION):
        terms = np.where(steps & (scores.op_kind == code), scores.op_cost, 0.0)
        high, low = np.zeros(terms.shape[1]), np.zeros(terms.shape[1])
        for row in terms:
            high, err = _two_sum(high, row)
            low, lost = _two_sum(low, err)
            exact &= lost == 0.0
        sums.append(high + low + 0.0)  # + 0.0: fsum gives 0.0 for a lone -0.0 as well
    if not exact.all():
        kinds, costs = kind.tolist(), cost.tolist()
        for b in np.flatnonzero(~exact).tolist():
            lo, hi = int(bounds[b]), int(bounds[b + 1])
            for out, code in zip(sums, (OP_DELETION, OP_INSERTION, OP_SUBSTITUTION), strict=True):
                out[b] = math.fsum(c for k, c in zip(kinds[lo:hi], costs[lo:hi], strict=True) if k == code)
    return sums


class _Op(msgspec.Struct, gc=False):
    # Field order is key order: msgspec writes ``{"op":...,"pred":...,"gold":...,"cost":...}`` as dumps does.
    op: str
    pred: int | None
    gold: int | None
    cost: float


class _Row(msgspec.Struct, gc=False):
    id: str
    wlcs: float
    gold_coverage: float
    wed: float
    deletion: float
    insertion: float
    substitution: float
    ops: list[_Op]
    missing_prediction: bool


_KINDS = ("match", "substitution", "deletion", "insertion")
_ENCODE_LINES = msgspec.json.Encoder().encode_lines


def _plain(values: F64) -> bool:
    """True when msgspec writes every value as ``repr`` does (see :func:`_float_texts`)."""
    return not bool(((values != 0.0) & ((np.abs(values) < 1e-4) | (np.abs(values) >= 1e15))).any())


def _encoded(
    ids: Sequence[str], columns: list[F64], missing: Sequence[bool], scores: BatchScores, ops: tuple[I64, I64]
) -> bytes:
    """The rows by ``msgspec``: one struct per row and per operation, built by ``map`` (no Python code per item)."""
    step, pair = ops
    index = [None, *range(max(scores.op_kind.shape[0], 1))]  # -1 (no index) → null
    op = map(
        _Op,
        map(_KINDS.__getitem__, scores.op_kind[step, pair].tolist()),
        map(index.__getitem__, (scores.op_pred[step, pair] + 1).tolist()),
        map(index.__getitem__, (scores.op_gold[step, pair] + 1).tolist()),
        scores.op_cost[step, pair].tolist(),
    )
    flat = list(op)
    ends = np.cumsum(scores.op_count)
    per_row = map(flat.__getitem__, map(slice, (ends - scores.op_count).tolist(), ends.tolist()))
    return _ENCODE_LINES(list(map(_Row, ids, *(c.tolist() for c in columns), per_row, missing)))


def _joined(ids: Sequence[str], numbers: list[str], ops: list[str], bounds: I64, missing: Sequence[bool]) -> bytes:
    """The rows from ``repr`` texts, for batches with numbers msgspec writes in its own exponent style."""
    n = len(ids)
    columns = zip(
        map(dumps_str, ids),
        *(numbers[k * n : (k + 1) * n] for k in range(6)),
        bounds[:-1].tolist(),
        bounds[1:].tolist(),
        map(_BOOL.__getitem__, missing),
        strict=True,
    )
    text = [
        f'{{"id":{sid},"wlcs":{wlcs},"gold_coverage":{cover},"wed":{total},"deletion":{d},"insertion":{i},'
        f'"substitution":{s},"ops":[{"},".join(ops[lo:hi])}}}],"missing_prediction":{miss}}}\n'
        for sid, wlcs, cover, total, d, i, s, lo, hi, miss in columns
    ]
    return "".join(text).encode("utf-8")


def batch_rows(ids: Sequence[str], scores: BatchScores, missing: Sequence[bool]) -> BatchRows:
    """The rows of a batch scored by :func:`~voxeval.metrics.score_batch`, in batch order."""
    step, pair = _forward(scores)
    kind, cost = scores.op_kind[step, pair], scores.op_cost[step, pair]
    bounds = np.concatenate(([0], np.cumsum(scores.op_count)))
    deletion, insertion, substitution = _sums(scores, kind, cost, bounds)
    wed = deletion + insertion + substitution
    numbers = np.concatenate([scores.wlcs, scores.gold_coverage, wed, deletion, insertion, substitution])
    if _plain(numbers) and _plain(cost):
        columns = [scores.wlcs, scores.gold_coverage, wed, deletion, insertion, substitution]
        data = _encoded(ids, columns, missing, scores, (step, pair))
    else:
        key = kind.astype(np.int64) * 65 * 65 + (scores.op_pred[step, pair] + 1) * 65 + scores.op_gold[step, pair] + 1
        ops = list(map(operator.add, map(_PREFIX.__getitem__, key.tolist()), _float_texts(cost)))
        data = _joined(ids, _float_texts(numbers), ops, bounds, missing)
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10) + 1  # JSON strings escape every newline
    return BatchRows(data, ends, wed, deletion, insertion, substitution)
