"""Per-sample scores and their summary (the numbers of the spec's Table 1)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from voxeval.acts import Acts
from voxeval.metrics._wed import EditResult, weighted_edit_distance
from voxeval.metrics._wlcs import gold_coverage, weighted_lcs

MISSING_COUNTED_AS = "empty reply: WLCS 0, WED 1 (all insertions)"
"""How a gold id without a prediction enters the means."""


@dataclass(frozen=True)
class SampleScore:
    """WLCS and WED of one prediction against its gold sequence."""

    id: str
    """Sample id (shared by gold and prediction)."""
    wlcs: float
    """Weighted LCS (prediction-side weights), the paper's metric."""
    edit: EditResult
    """Weighted edit distance with its breakdown and path."""
    missing: bool = False
    """True when there was no prediction and the sample was scored as an empty reply."""
    gold_coverage: float = 0.0
    """voxeval's addition: the share of the gold importance the reply covers (LCS with gold-side weights)."""

    def to_json(self) -> dict[str, Any]:
        """The row written to ``scores.jsonl``."""
        return {
            "id": self.id,
            "wlcs": self.wlcs,
            "gold_coverage": self.gold_coverage,
            "wed": self.edit.total,
            "deletion": self.edit.deletion,
            "insertion": self.edit.insertion,
            "substitution": self.edit.substitution,
            "ops": [op.to_json() for op in self.edit.ops],
            "missing_prediction": self.missing,
        }


def score_sample(sample_id: str, gold: Acts, pred: Acts, *, missing: bool = False) -> SampleScore:
    """Score one prediction (already normalised) against its gold sequence."""
    return SampleScore(
        sample_id,
        weighted_lcs(gold=gold, pred=pred),
        weighted_edit_distance(gold=gold, pred=pred),
        missing,
        gold_coverage(gold=gold, pred=pred),
    )


Column = Sequence[float] | npt.NDArray[np.float64]
"""A column of per-sample numbers: a list, or a float64 array (large runs)."""


def _floats(values: Column) -> Sequence[float]:
    return values.tolist() if isinstance(values, np.ndarray) else values


def _mean(values: Column) -> float | None:
    return math.fsum(_floats(values)) / len(values) if len(values) else None


def _std(values: Column) -> float | None:
    # Population standard deviation (ddof=0, numpy's default), as reported next to each mean.
    mean = _mean(values)
    if mean is None:
        return None
    # In numpy: the same IEEE subtraction and product per value as Python floats, without an object per value.
    deviation = np.asarray(values, dtype=np.float64) - mean
    return math.sqrt(math.fsum((deviation * deviation).tolist()) / len(values))


@dataclass(frozen=True)
class Summary:
    """Means and standard deviations over the scored samples (Table 1's columns)."""

    n: int
    """Number of samples in the means (includes missing predictions, scored as empty replies)."""
    wlcs_mean: float | None
    """Mean WLCS (the paper's metric, prediction-side weights)."""
    wlcs_std: float | None
    """Population standard deviation of the WLCS."""
    wed_mean: float | None
    """Mean weighted edit distance."""
    wed_std: float | None
    """Population standard deviation of the WED."""
    deletion_mean: float | None
    """Mean deletion cost along each sample's path."""
    insertion_mean: float | None
    """Mean insertion cost."""
    substitution_mean: float | None
    """Mean substitution cost."""
    missing_predictions: int = 0
    """Gold ids that had no prediction; they are in ``n`` and counted as ``missing_counted_as`` says."""
    missing_ids: tuple[str, ...] = ()
    """Which gold ids had no prediction."""
    excluded: dict[str, str] = field(default_factory=dict)
    """Samples left out of the means (id → reason), e.g. a failed annotation. Never silently scored."""
    gold_coverage_mean: float | None = None
    """voxeval's addition: mean share of the gold importance covered (see :func:`gold_coverage`)."""
    gold_coverage_std: float | None = None
    """Population standard deviation of the gold coverage."""

    def to_json(self) -> dict[str, Any]:
        """The object written to ``summary.json``."""
        return {
            "n": self.n,
            "wlcs_mean": self.wlcs_mean,
            "wlcs_std": self.wlcs_std,
            "gold_coverage_mean": self.gold_coverage_mean,
            "gold_coverage_std": self.gold_coverage_std,
            "wed_mean": self.wed_mean,
            "wed_std": self.wed_std,
            "deletion_mean": self.deletion_mean,
            "insertion_mean": self.insertion_mean,
            "substitution_mean": self.substitution_mean,
            "missing_predictions": self.missing_predictions,
            "missing_counted_as": MISSING_COUNTED_AS,
            "missing_ids": list(self.missing_ids),
            "excluded": len(self.excluded),
            "excluded_ids": dict(self.excluded),
        }


def summarise(scores: Sequence[SampleScore], excluded: dict[str, str] | None = None) -> Summary:
    """Table 1 numbers for a set of sample scores."""
    return summary_of(
        [s.wlcs for s in scores],
        [s.gold_coverage for s in scores],
        [s.edit.total for s in scores],
        [s.edit.deletion for s in scores],
        [s.edit.insertion for s in scores],
        [s.edit.substitution for s in scores],
        missing_ids=tuple(s.id for s in scores if s.missing),
        excluded=excluded,
    )


def summary_of(
    wlcs: Column,
    coverage: Column,
    wed: Column,
    deletion: Column,
    insertion: Column,
    substitution: Column,
    *,
    missing_ids: tuple[str, ...] = (),
    excluded: dict[str, str] | None = None,
) -> Summary:
    """Table 1 numbers from per-sample columns (any order: the sums are exactly rounded)."""
    return Summary(
        n=len(wlcs),
        wlcs_mean=_mean(wlcs),
        wlcs_std=_std(wlcs),
        wed_mean=_mean(wed),
        wed_std=_std(wed),
        deletion_mean=_mean(deletion),
        insertion_mean=_mean(insertion),
        substitution_mean=_mean(substitution),
        missing_predictions=len(missing_ids),
        missing_ids=missing_ids,
        excluded=dict(excluded or {}),
        gold_coverage_mean=_mean(coverage),
        gold_coverage_std=_std(coverage),
    )
