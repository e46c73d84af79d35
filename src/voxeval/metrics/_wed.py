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


def _table(pred: Sequence[Step], gold: Sequence[Step]) -> list[list[float]]:
    m, n = len(pred), len(gold)
    dist = [[0.0] * (n + 1) for _ in range(m + 1)]
    for j in range(1, n + 1):
        dist[0][j] = dist[0][j - 1] + gold[j - 1].importance
    for i in range(1, m + 1):
        wp = pred[i - 1].importance
        row, up = dist[i], dist[i - 1]
        row[0] = up[0] + wp
        for j in range(1, n + 1):
            g = gold[j - 1]
            row[j] = min(up[j - 1] + _sub_cost(pred[i - 1], g), up[j] + wp, row[j - 1] + g.importance)
    return dist


def _backtrace(pred: Sequence[Step], gold: Sequence[Step], dist: list[list[float]]) -> list[EditOp]:
    # Tie-break, walking back from the end: diagonal (match/substitution) first, then deletion, then insertion.
    # Any choice gives the same total; fixing the order makes the breakdown deterministic.
    ops: list[EditOp] = []
    i, j = len(pred), len(gold)
    while i > 0 or j > 0:
        here = dist[i][j]
        if i > 0 and j > 0:
            cost = _sub_cost(pred[i - 1], gold[j - 1])
            if abs(dist[i - 1][j - 1] + cost - here) <= _TIE:
                ops.append(
                    EditOp(
                        "match" if cost == 0.0 and pred[i - 1].act == gold[j - 1].act else "substitution",
                        i - 1,
                        j - 1,
                        cost,
                    )
                )
                i, j = i - 1, j - 1
                continue
        if i > 0 and (j == 0 or abs(dist[i - 1][j] + pred[i - 1].importance - here) <= _TIE):
            ops.append(EditOp("deletion", i - 1, None, pred[i - 1].importance))
            i -= 1
            continue
        ops.append(EditOp("insertion", None, j - 1, gold[j - 1].importance))
        j -= 1
    ops.reverse()
    return ops


def weighted_edit_distance(gold: Sequence[Step], pred: Sequence[Step]) -> EditResult:
    """Minimum cost of turning ``pred`` into ``gold``; costs per spec eqs. 4–6.

    Arguments are (gold, pred), as for every metric in :mod:`voxeval.metrics`; pass them by keyword when in
    doubt (``weighted_edit_distance(gold=..., pred=...)``): swapping them swaps deletion and insertion.

    Deletion of p costs w^p, insertion of r costs w^r, substitution costs 0 for equal labels and
    (w^p + w^r) / 2 otherwise. The breakdown follows one optimal path (see ``_backtrace`` for the
    tie-break), so ``deletion + insertion + substitution == total``. An empty prediction costs the
    total gold weight (1 for a normalised sequence), all insertions.

    >>> r = weighted_edit_distance(gold=[Step("Commissive", .6), Step("Question", .25), Step("Inform", .15)],
    ...     pred=[Step("Inform", 1.0)])
    >>> round(r.total, 10), round(r.insertion, 10)
    (0.85, 0.85)
    """
    ops = _backtrace(pred, gold, _table(pred, gold))
    by_kind = {
        kind: math.fsum(o.cost for o in ops if o.op == kind) for kind in ("deletion", "insertion", "substitution")
    }
    total = by_kind["deletion"] + by_kind["insertion"] + by_kind["substitution"]
    return EditResult(total, by_kind["deletion"], by_kind["insertion"], by_kind["substitution"], tuple(ops))
