"""WLCS, gold coverage and WED over a batch of padded sequences at once (numpy), equal to the scalar functions.

The dynamic programmes of :func:`weighted_lcs`, :func:`gold_coverage` and :func:`weighted_edit_distance` run
cell by cell as in the scalar code, but each cell is one array operation over every pair of the batch. Every
float operation is the one the scalar code does, in the same order, so the results are bit-identical (tested).
Padding never reaches a result: a cell depends only on cells with smaller indices, and each pair's answer is
read at its own lengths. The edit path is walked back for all pairs in lock-step, with the scalar tie-break.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from voxeval.metrics._wed import _TIE

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

OP_MATCH, OP_SUBSTITUTION, OP_DELETION, OP_INSERTION = 0, 1, 2, 3
"""Operation codes of :attr:`BatchScores.op_kind` (the order of :data:`~voxeval.metrics.OpKind`'s names)."""


@dataclass(frozen=True)
class PaddedActs:
    """A batch of act sequences: label codes and weights padded to a common length."""

    codes: I64
    """``(batch, length)`` label codes; padding is never compared equal (see :func:`pad`)."""
    weights: F64
    """``(batch, length)`` weights, 0 in the padding."""
    lengths: I64
    """``(batch,)`` true lengths."""


def pad(codes: npt.ArrayLike, weights: npt.ArrayLike, lengths: npt.ArrayLike, fill: int) -> PaddedActs:
    """Pad flat, concatenated sequences to a ``(batch, max length)`` block; ``fill`` marks the padding's label.

    Use different ``fill`` values for the two sides so that padding never matches padding.
    """
    lens = np.asarray(lengths, dtype=np.int64)
    flat_codes, flat_weights = np.asarray(codes, dtype=np.int64), np.asarray(weights, dtype=np.float64)
    width = int(lens.max()) if lens.size else 0
    block_codes = np.full((lens.size, width), fill, dtype=np.int64)
    block_weights = np.zeros((lens.size, width), dtype=np.float64)
    if flat_codes.size:
        rows = np.repeat(np.arange(lens.size), lens)
        starts = np.cumsum(lens) - lens
        cols = np.arange(flat_codes.size) - np.repeat(starts, lens)
        block_codes[rows, cols] = flat_codes
        block_weights[rows, cols] = flat_weights
    return PaddedActs(block_codes, block_weights, lens)


@dataclass(frozen=True)
class BatchScores:
    """Per-pair results of :func:`score_batch`; ``op_*`` arrays hold each path back to front."""

    wlcs: F64
    """Weighted LCS with prediction-side weights, ``(batch,)``."""
    gold_coverage: F64
    """LCS with gold-side weights (the share of the gold importance covered), ``(batch,)``."""
    op_count: I64
    """Number of operations on each pair's path, ``(batch,)``."""
    op_kind: npt.NDArray[np.int8]
    """``(steps, batch)`` operation codes, last operation first; rows past ``op_count`` are unused."""
    op_pred: I64
    """``(steps, batch)`` prediction index of each operation (-1 for an insertion)."""
    op_gold: I64
    """``(steps, batch)`` gold index of each operation (-1 for a deletion)."""
    op_cost: F64
    """``(steps, batch)`` cost of each operation."""


def _lcs(gold: PaddedActs, pred: PaddedActs) -> tuple[F64, F64]:
    """WLCS (prediction-side gains) and gold coverage (gold-side gains), both programmes in one pass.

    Row by row over the gold sequence, as the scalar code: ``best[:, j]`` is the optimum for gold[:i] ×
    pred[:j]. The two programmes are stacked along the batch axis (first half: prediction-side weights).
    """
    batch, width = pred.codes.shape
    best = np.zeros((2 * batch, width + 1))
    pred_gain = np.concatenate([pred.weights, np.zeros_like(pred.weights)])
    hits = np.concatenate([pred.codes, pred.codes])
    rows = np.arange(2 * batch)
    for i in range(gold.codes.shape[1]):
        g_code = np.concatenate([gold.codes[:, i], gold.codes[:, i]])
        g_gain = np.concatenate([np.zeros(batch), gold.weights[:, i]])
        prev_diag = np.zeros(2 * batch)
        for j in range(1, width + 1):
            above = best[:, j].copy()
            candidate = np.maximum(above, best[:, j - 1])
            # One of the two gains is 0 in each half, and x + 0.0 == x: the sum is the scalar code's sum.
            gain = pred_gain[:, j - 1] + g_gain
            best[:, j] = np.where(g_code == hits[:, j - 1], np.maximum(candidate, prev_diag + gain), candidate)
            prev_diag = above
    lengths = np.concatenate([pred.lengths, pred.lengths])
    result = best[rows, lengths]
    return result[:batch], result[batch:]


def _wed_table(gold: PaddedActs, pred: PaddedActs) -> tuple[F64, F64]:
    """The cost table ``(pred+1, gold+1, batch)`` and the substitution costs ``(pred, gold, batch)``."""
    m, n = pred.codes.shape[1], gold.codes.shape[1]
    pw, gw = pred.weights.T, gold.weights.T
    same = pred.codes.T[:, None, :] == gold.codes.T[None, :, :]
    sub = np.where(same, 0.0, (pw[:, None, :] + gw[None, :, :]) / 2.0)
    dist = np.zeros((m + 1, n + 1, pred.codes.shape[0]))
    for j in range(1, n + 1):
        dist[0, j] = dist[0, j - 1] + gw[j - 1]
    for i in range(1, m + 1):
        dist[i, 0] = dist[i - 1, 0] + pw[i - 1]
        for j in range(1, n + 1):
            dist[i, j] = np.minimum(
                np.minimum(dist[i - 1, j - 1] + sub[i - 1, j - 1], dist[i - 1, j] + pw[i - 1]),
                dist[i, j - 1] + gw[j - 1],
            )
    return dist, sub


def score_batch(gold: PaddedActs, pred: PaddedActs) -> BatchScores:
    """Score every (gold, prediction) pair of two equally long batches."""
    batch = gold.lengths.size
    dist, sub = _wed_table(gold, pred)
    same = pred.codes.T[:, None, :] == gold.codes.T[None, :, :]
    pw, gw = pred.weights.T, gold.weights.T
    steps = pred.codes.shape[1] + gold.codes.shape[1]
    kind = np.zeros((steps, batch), dtype=np.int8)
    at_pred = np.full((steps, batch), -1, dtype=np.int64)
    at_gold = np.full((steps, batch), -1, dtype=np.int64)
    cost = np.zeros((steps, batch))
    cols = np.arange(batch)
    i, j = pred.lengths.copy(), gold.lengths.copy()
    count = np.zeros(batch, dtype=np.int64)
    for step in range(steps):
        live = (i > 0) | (j > 0)
        if not live.any():
            break
        # Clipped indices keep the gathers in range; the masks below decide which values are used.
        ip, jp = np.maximum(i - 1, 0), np.maximum(j - 1, 0)
        here = dist[i, j, cols]
        diag_cost = sub[ip, jp, cols] if sub.size else np.zeros(batch)
        diag = (i > 0) & (j > 0) & (np.abs(dist[ip, jp, cols] + diag_cost - here) <= _TIE)
        del_cost = pw[ip, cols] if pw.size else np.zeros(batch)
        dele = ~diag & (i > 0) & ((j == 0) | (np.abs(dist[ip, j, cols] + del_cost - here) <= _TIE))
        ins = live & ~diag & ~dele
        ins_cost = gw[jp, cols] if gw.size else np.zeros(batch)
        matched = same[ip, jp, cols] if same.size else np.zeros(batch, dtype=bool)
        kind[step] = np.where(
            diag, np.where(matched, OP_MATCH, OP_SUBSTITUTION), np.where(dele, OP_DELETION, OP_INSERTION)
        )
        at_pred[step] = np.where(diag | dele, ip, -1)
        at_gold[step] = np.where(diag | ins, jp, -1)
        cost[step] = np.where(diag, diag_cost, np.where(dele, del_cost, ins_cost))
        count += live
        i = np.where(diag | dele, i - 1, i)
        j = np.where(diag | ins, j - 1, j)
    return BatchScores(*_lcs(gold, pred), count, kind, at_pred, at_gold, cost)
