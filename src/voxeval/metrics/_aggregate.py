"""Per-sample scores and their summary (the numbers of the spec's Table 1)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
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

_HALF = float(1 << 26)
THREADED_FROM = 1 << 17
"""Columns at least this long are summarised two at a time in threads (numpy releases the GIL)."""


def _scaled_sum(v: npt.NDArray[np.float64]) -> tuple[int, int]:
    """``(total, base)`` with ``sum(v) == total * 2**base`` exactly, for finite ``v``."""
    mantissa, exponent = np.frexp(v)
    whole = mantissa * float(1 << 53)  # exact: an integer-valued double
    high = np.trunc(whole / _HALF)  # exact: a division by a power of two, then truncation
    low = whole - high * _HALF  # exact, |low| < 2**26
    base = int(exponent.min())
    shift = exponent - base
    high_sums, low_sums = np.bincount(shift, weights=high), np.bincount(shift, weights=low)
    total = 0
    for k in np.flatnonzero((high_sums != 0) | (low_sums != 0)).tolist():
        total += (int(high_sums[k]) * (1 << 26) + int(low_sums[k])) << k
    return total, base - 53


CHUNK = 1 << 16
"""Values summed per numpy pass: temporaries stay a few MB whatever the input."""


def _exact(parts: Iterable[npt.NDArray[np.float64]]) -> float:
    """The correctly rounded sum of finite chunks (see :func:`exact_sum`)."""
    scaled = [(total, at) for total, at in map(_scaled_sum, (c for c in parts if c.size)) if total]
    if not scaled:
        return 0.0  # as fsum gives for zeros of either sign
    base = min(at for _, at in scaled)
    total = sum(part << (at - base) for part, at in scaled)
    return float(total << base) if base >= 0 else total / (1 << -base)


def _chunks(v: npt.NDArray[np.float64]) -> Iterator[npt.NDArray[np.float64]]:
    return (v[start : start + CHUNK] for start in range(0, v.size, CHUNK))


def exact_sum(values: npt.ArrayLike) -> float:
    """The correctly rounded sum of ``values``: the number :func:`math.fsum` returns, computed in numpy.

    Each finite double is ``m · 2**(e - 53)`` with an integer ``|m| < 2**53``; ``m`` is split into two halves
    below ``2**27``, which are summed per exponent by ``np.bincount`` in float64, where every partial sum of a
    chunk (:data:`CHUNK` values) is an integer below ``2**53``, so exact. The per-exponent sums are combined as
    Python integers and rounded once (``int / int`` is correctly rounded, half to even, as ``fsum``).
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    if not np.isfinite(v).all():
        return math.fsum(v.tolist())  # inf and nan as fsum treats them
    return _exact(_chunks(v))


def _squared_deviations(v: npt.NDArray[np.float64], mean: float) -> float:
    """``fsum((x - mean) ** 2 for x in v)``, each square rounded as with Python floats (``d * d``), chunked."""
    if not (math.isfinite(mean) and float(np.abs(v).max()) < 1e150):  # a square may overflow: fsum's semantics
        with np.errstate(over="ignore"):  # an overflowing square is inf, as the sum then is
            deviation = v - mean
            return math.fsum((deviation * deviation).tolist())
    return _exact(d * d for d in (c - mean for c in _chunks(v)))


def _stats(values: Column, spread: bool) -> tuple[float | None, float | None]:
    """Mean and (when ``spread``) population standard deviation (ddof=0, numpy's default)."""
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return None, None
    mean = exact_sum(v) / v.size
    if not spread:
        return mean, None
    return mean, math.sqrt(_squared_deviations(v, mean) / v.size)


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
    columns = (wlcs, wed, coverage, deletion, insertion, substitution)
    spreads = (True, True, True, False, False, False)
    if len(wlcs) >= THREADED_FROM:
        with ThreadPoolExecutor(2, thread_name_prefix="voxeval-summary") as pool:
            stats = list(pool.map(_stats, columns, spreads))
    else:
        stats = list(map(_stats, columns, spreads))
    (wlcs_mean, wlcs_std), (wed_mean, wed_std), (coverage_mean, coverage_std) = stats[:3]
    return Summary(
        n=len(wlcs),
        wlcs_mean=wlcs_mean,
        wlcs_std=wlcs_std,
        wed_mean=wed_mean,
        wed_std=wed_std,
        deletion_mean=stats[3][0],
        insertion_mean=stats[4][0],
        substitution_mean=stats[5][0],
        missing_predictions=len(missing_ids),
        missing_ids=missing_ids,
        excluded=dict(excluded or {}),
        gold_coverage_mean=coverage_mean,
        gold_coverage_std=coverage_std,
    )
