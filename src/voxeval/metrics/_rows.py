"""``scores.jsonl`` rows of a scored batch as text, byte-identical to ``dumps(SampleScore.to_json())``.

Rows are assembled from fixed pieces and ``float.__repr__`` (which is what :func:`json.dumps` writes for a
float), so no object is built per edit operation. The breakdown sums are exactly what
:func:`weighted_edit_distance` computes: ``math.fsum`` per kind along the path (with at most two non-zero
terms a plain float sum is the same correctly rounded number, so only longer groups go through ``fsum``).
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voxeval.metrics._batch import F64, OP_DELETION, OP_INSERTION, OP_SUBSTITUTION, BatchScores

_encode_str = json.encoder.encode_basestring  # what dumps(..., ensure_ascii=False) uses for a str

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

    text: list[str]
    """One ``scores.jsonl`` line per pair, newline included."""
    wed: F64
    """WED totals (deletion + insertion + substitution)."""
    deletion: F64
    """Deletion costs along each path."""
    insertion: F64
    """Insertion costs along each path."""
    substitution: F64
    """Substitution costs along each path."""


def _forward(scores: BatchScores) -> tuple[np.ndarray, np.ndarray]:
    """(step, pair) indices of every operation, pairs in order and each path front to back."""
    count = scores.op_count
    pair = np.repeat(np.arange(count.size), count)
    starts = np.cumsum(count) - count
    within = np.arange(int(count.sum())) - np.repeat(starts, count)
    return np.repeat(count, count) - 1 - within, pair


def _sums(scores: BatchScores, kind: np.ndarray, cost: np.ndarray, bounds: np.ndarray) -> list[F64]:
    steps = np.arange(scores.op_kind.shape[0])[:, None] < scores.op_count[None, :]
    sums, exact = [], np.ones(scores.op_count.size, dtype=bool)
    for code in (OP_DELETION, OP_INSERTION, OP_SUBSTITUTION):
        mask = steps & (scores.op_kind == code)
        # 0.0 + ... as fsum: a lone -0.0 cost sums to 0.0 there too.
        sums.append(np.where(mask, scores.op_cost, 0.0).sum(axis=0) + 0.0)
        exact &= mask.sum(axis=0) <= 2
    if not exact.all():
        kinds, costs = kind.tolist(), cost.tolist()
        for b in np.flatnonzero(~exact).tolist():
            lo, hi = int(bounds[b]), int(bounds[b + 1])
            for out, code in zip(sums, (OP_DELETION, OP_INSERTION, OP_SUBSTITUTION), strict=True):
                out[b] = math.fsum(c for k, c in zip(kinds[lo:hi], costs[lo:hi], strict=True) if k == code)
    return sums


def batch_rows(
    ids: Sequence[str], scores: BatchScores, missing: Sequence[bool], gold_coverage: bool = True
) -> BatchRows:
    """The rows of a batch scored by :func:`~voxeval.metrics.score_batch`, in batch order."""
    step, pair = _forward(scores)
    kind, cost = scores.op_kind[step, pair], scores.op_cost[step, pair]
    key = kind.astype(np.int64) * (65 * 65) + (scores.op_pred[step, pair] + 1) * 65 + (scores.op_gold[step, pair] + 1)
    ops = list(map(operator.add, map(_PREFIX.__getitem__, key.tolist()), map(float.__repr__, cost.tolist())))
    bounds = np.concatenate(([0], np.cumsum(scores.op_count)))
    deletion, insertion, substitution = _sums(scores, kind, cost, bounds)
    wed = deletion + insertion + substitution
    text = []
    columns = zip(
        ids,
        scores.wlcs.tolist(),
        scores.gold_coverage.tolist(),
        wed.tolist(),
        deletion.tolist(),
        insertion.tolist(),
        substitution.tolist(),
        bounds[:-1].tolist(),
        bounds[1:].tolist(),
        missing,
        strict=True,
    )
    for sid, wlcs, cover, total, d, i, s, lo, hi, miss in columns:
        cov = f',"gold_coverage":{cover!r}' if gold_coverage else ""
        text.append(
            f'{{"id":{_encode_str(sid)},"wlcs":{wlcs!r}{cov},"wed":{total!r},"deletion":{d!r},"insertion":{i!r},'
            f'"substitution":{s!r},"ops":[{"},".join(ops[lo:hi])}}}],"missing_prediction":{_BOOL[miss]}}}\n'
        )
    return BatchRows(text, wed, deletion, insertion, substitution)
