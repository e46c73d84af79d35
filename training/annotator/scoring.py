"""Scoring an annotator against gold acts: mean WED and WLCS, and label F1 over WED-aligned steps."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxeval.acts import LABELS, Acts
from voxeval.metrics import weighted_edit_distance, weighted_lcs

UNALIGNED = "-"
"""Row / column of the confusion matrix for steps the WED path inserts (gold) or deletes (prediction)."""


@dataclass(frozen=True)
class AnnotatorScore:
    """How close predicted act sequences are to gold ones."""

    n: int
    """Replies scored."""
    wed_mean: float
    """Mean weighted edit distance (lower is better)."""
    wlcs_mean: float
    """Mean weighted LCS (higher is better)."""
    macro_f1: float
    """Mean of the seven labels' F1 over aligned (match / substitution) step pairs."""
    per_label_f1: dict[str, float]
    """F1 of each label over aligned step pairs."""
    confusion: dict[str, dict[str, int]]
    """gold label → predicted label → count; ``-`` for steps left unaligned by the WED path."""

    def to_json(self) -> dict[str, Any]:
        """Rounded numbers for reports and the artefact's JSON."""
        return {
            "n": self.n,
            "wed_mean": round(self.wed_mean, 4),
            "wlcs_mean": round(self.wlcs_mean, 4),
            "macro_f1": round(self.macro_f1, 4),
            "per_label_f1": {k: round(v, 4) for k, v in self.per_label_f1.items()},
            "confusion": self.confusion,
        }


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def score_annotations(gold: Sequence[Acts], pred: Sequence[Acts]) -> AnnotatorScore:
    """Score predictions against gold, pairwise; steps are aligned along each WED operation path."""
    keys = [*LABELS, UNALIGNED]
    confusion = {g: dict.fromkeys(keys, 0) for g in keys}
    wed, wlcs = [], []
    for g, p in zip(gold, pred, strict=True):
        result = weighted_edit_distance(gold=g, pred=p)
        wed.append(result.total)
        wlcs.append(weighted_lcs(gold=g, pred=p))
        for op in result.ops:
            g_label = g[op.gold_index].act if op.gold_index is not None else UNALIGNED
            p_label = p[op.pred_index].act if op.pred_index is not None else UNALIGNED
            confusion[g_label][p_label] += 1
    per_label: dict[str, float] = {}
    for label in LABELS:
        tp = confusion[label][label]
        fn = sum(confusion[label][k] for k in LABELS) - tp
        fp = sum(confusion[k][label] for k in LABELS) - tp
        per_label[label] = _f1(tp, fp, fn)
    return AnnotatorScore(
        n=len(wed),
        wed_mean=math.fsum(wed) / max(len(wed), 1),
        wlcs_mean=math.fsum(wlcs) / max(len(wlcs), 1),
        macro_f1=math.fsum(per_label.values()) / len(LABELS),
        per_label_f1=per_label,
        confusion=confusion,
    )


def confusion_table(score: AnnotatorScore) -> str:
    """The confusion matrix as fixed-width text (rows gold, columns predicted)."""
    keys = [*LABELS, UNALIGNED]
    short = {k: k[:6] for k in keys}
    lines = ["gold\\pred".ljust(15) + "".join(short[k].rjust(7) for k in keys)]
    for g in keys:
        lines.append(g.ljust(15) + "".join(str(score.confusion[g][p]).rjust(7) for p in keys))
    return "\n".join(lines)
