"""Weighted dialogue-act edit distance (spec 4.1.2) with its deletion / insertion / substitution breakdown."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from voxeval.acts import Step

OpKind = Literal["match", "substitution", "deletion", "insertion"]

_TIE = 1e-12
"""Costs closer than this are treated as equal when choosing the path (float noise, not a real difference)."""


@dataclass(frozen=True)
class EditOp:
    """One operation on the optimal path that turns the prediction into the gold sequence."""

    op: OpKind
    """``match`` (equal labels, cost 0), ``substitution``, ``deletion`` (of a predicted act) or ``insertion``."""
    pred_index: int | None
    """Index into the prediction, or ``None`` for an insertion."""
    gold_index: int | None
    """Index into the gold sequence, or ``None`` for a deletion."""
    cost: float
    """Cost of this operation."""

    def to_json(self) -> dict[str, Any]:
        """The operation as a JSON object."""
        return {"op": self.op, "pred": self.pred_index, "gold": self.gold_index, "cost": self.cost}


@dataclass(frozen=True)
class EditResult:
    """The WED between a prediction and the gold sequence, broken down along one optimal path."""

    total: float
    """Minimum total cost (eq. 7)."""
    deletion: float
    """Cost of deleting redundant predicted acts on the chosen path."""
    insertion: float
    """Cost of inserting missing gold acts on the chosen path."""
    substitution: float
    """Cost of substituting mismatched labels on the chosen path."""
    ops: tuple[EditOp, ...]
    """The chosen optimal path, in sequence order."""


def _sub_cost(p: Step, g: Step) -> float:
    # Equal labels cost nothing whatever the weights: weights are only comparable within one sequence.
    return 0.0 if p.act == g.act else (p.importance + g.importance) / 2.0


_BLOCK = 8
"""Row spans up to this many rows are walked back from a stored block; longer spans are split in half."""


def _first_row(gold: Sequence[Step], e: int) -> list[float]:
    row = [0.0] * (e + 1)
    for j in range(1, e + 1):
        row[j] = row[j - 1] + gold[j - 1].importance
    return row


def _next_row(up: list[float], p: Step, gold: Sequence[Step], e: int) -> list[float]:
    # Row i of the cost table (columns 0..e) from row i - 1: the same float operations in the same order.
    wp = p.importance
    row = [0.0] * (e + 1)
    row[0] = up[0] + wp
    for j in range(1, e + 1):
        g = gold[j - 1]
        row[j] = min(up[j - 1] + _sub_cost(p, g), up[j] + wp, row[j - 1] + g.importance)
    return row


def _choice(p: Step, g: Step | None, up: list[float], row: list[float], j: int) -> int:
    """The step back from cell (i, j), i > 0: 0 diagonal, 1 deletion, 2 insertion.

    Tie-break, walking back from the end: diagonal (match/substitution) first, then deletion, then insertion.
    Any choice gives the same total; fixing the order makes the breakdown deterministic.
    """
    here = row[j]
    if g is not None and abs(up[j - 1] + _sub_cost(p, g) - here) <= _TIE:
        return 0
    if g is None or abs(up[j] + p.importance - here) <= _TIE:
        return 1
    return 2


def _op(choice: int, pred: Sequence[Step], gold: Sequence[Step], i: int, j: int) -> EditOp:
    if choice == 0:
        cost = _sub_cost(pred[i - 1], gold[j - 1])
        kind: OpKind = "match" if cost == 0.0 and pred[i - 1].act == gold[j - 1].act else "substitution"
        return EditOp(kind, i - 1, j - 1, cost)
    if choice == 1:
        return EditOp("deletion", i - 1, None, pred[i - 1].importance)
    return EditOp("insertion", None, j - 1, gold[j - 1].importance)


def _span(
    pred: Sequence[Step], gold: Sequence[Step], top: int, top_row: list[float], i: int, j: int, ops: list[EditOp]
) -> int:
    """Append the path back from (i, j) until it reaches row ``top`` (whose costs are ``top_row``); its column there.

    Short spans keep their rows and walk back. Longer ones run forward to their middle row, walk the lower half back
    from it (which gives the column where the path reaches the middle row), then the upper half. Every row is
    recomputed from the row above it by the same float operations, so each cell holds the number the full table
    held. Only one row per level of halving is kept: O(n log m) memory instead of the (m + 1) x (n + 1) table,
    for at most about 3.5 times the arithmetic on long rows; spans of up to ``_BLOCK`` rows run as before.
    """
    if i - top <= _BLOCK:
        rows = [top_row]
        for k in range(top + 1, i + 1):
            rows.append(_next_row(rows[-1], pred[k - 1], gold, j))
        while i > top:
            choice = _choice(pred[i - 1], gold[j - 1] if j > 0 else None, rows[i - top - 1], rows[i - top], j)
            ops.append(_op(choice, pred, gold, i, j))
            i, j = (i - 1, j - 1) if choice == 0 else (i - 1, j) if choice == 1 else (i, j - 1)
        return j
    mid = (top + i) // 2
    middle = top_row
    for k in range(top + 1, mid + 1):
        middle = _next_row(middle, pred[k - 1], gold, j)
    column = _span(pred, gold, mid, middle, i, j, ops)
    return _span(pred, gold, top, top_row, mid, column, ops)


def _path(pred: Sequence[Step], gold: Sequence[Step]) -> list[EditOp]:
    """The optimal path, front to back, chosen by the tie-break of :func:`_choice`."""
    ops: list[EditOp] = []
    j = _span(pred, gold, 0, _first_row(gold, len(gold)), len(pred), len(gold), ops)
    ops.extend(EditOp("insertion", None, c - 1, gold[c - 1].importance) for c in range(j, 0, -1))
    ops.reverse()
    return ops


def weighted_edit_distance(gold: Sequence[Step], pred: Sequence[Step]) -> EditResult:
    """Minimum cost of turning ``pred`` into ``gold``; costs per spec eqs. 4–6.

    Arguments are (gold, pred), as for every metric in :mod:`voxeval.metrics`; pass them by keyword when in
    doubt (``weighted_edit_distance(gold=..., pred=...)``): swapping them swaps deletion and insertion.

    Deletion of p costs w^p, insertion of r costs w^r, substitution costs 0 for equal labels and
    (w^p + w^r) / 2 otherwise. The breakdown follows one optimal path (see ``_choice`` for the
    tie-break), so ``deletion + insertion + substitution == total``. An empty prediction costs the
    total gold weight (1 for a normalised sequence), all insertions.

    >>> r = weighted_edit_distance(gold=[Step("Commissive", .6), Step("Question", .25), Step("Inform", .15)],
    ...     pred=[Step("Inform", 1.0)])
    >>> round(r.total, 10), round(r.insertion, 10)
    (0.85, 0.85)
    """
    ops = _path(pred, gold)
    by_kind = {
        kind: math.fsum(o.cost for o in ops if o.op == kind) for kind in ("deletion", "insertion", "substitution")
    }
    total = by_kind["deletion"] + by_kind["insertion"] + by_kind["substitution"]
    return EditResult(total, by_kind["deletion"], by_kind["insertion"], by_kind["substitution"], tuple(ops))
