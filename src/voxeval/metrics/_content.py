"""Content-aware WLCS and WED (WLCS-c, WED-c): voxeval's addition beside the paper's metrics, never replacing them.

The paper's metrics match acts by label only, so an Answer that answers another question scores like the right one
(the paper's conclusion, future work (i)). Here a matched pair of acts (gold step i, predicted step j, equal labels)
counts in proportion to ``sim[i][j]`` in [0, 1], how well the predicted span agrees in content with the gold span
(a calibrated sentence-encoder similarity, :mod:`voxeval.annotate._similarity`; these functions are pure and take
the matrix):

- WLCS-c = max over common subsequences of Σ sim[i][j] · w^p_j (the paper's WLCS is this with every sim = 1);
- WED-c = the WED with a match costing (1 − sim[i][j]) · (w^p_j + w^r_i) / 2 instead of 0: an equal label with
  unrelated content costs what a substituted label costs, and identical content costs nothing.

Both take the best alignment under the content weights, which may differ from the paper's. Properties (tested with
hypothesis): with every similarity 1 they equal WLCS and WED; WLCS-c is non-decreasing and WED-c non-increasing in
each similarity; 0 ≤ WLCS-c ≤ WLCS and WED ≤ WED-c ≤ w^p + w^r (2 for normalised sequences); WED-c is symmetric
(swapping gold and prediction and transposing the matrix gives the same number), as the WED is.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voxeval.acts import Step

Similarity = Sequence[Sequence[float]]
"""``sim[i][j]``: content agreement in [0, 1] of gold step i with predicted step j (read only where labels match)."""


def _check(gold: Sequence[Step], pred: Sequence[Step], sim: Similarity) -> None:
    if len(sim) != len(gold) or any(len(row) != len(pred) for row in sim):
        raise ValueError(f"similarity must be {len(gold)} × {len(pred)} (gold × prediction)")


def content_wlcs(gold: Sequence[Step], pred: Sequence[Step], sim: Similarity) -> float:
    """WLCS-c: the largest Σ sim[i][j] · w^p_j over subsequences common to ``gold`` and ``pred`` (equal labels).

    >>> g, p = [Step("Answer", 1.0)], [Step("Answer", 0.8), Step("Inform", 0.2)]
    >>> content_wlcs(g, p, [[1.0, 1.0]]), content_wlcs(g, p, [[0.25, 1.0]])
    (0.8, 0.2)
    """
    _check(gold, pred, sim)
    best = [0.0] * (len(pred) + 1)
    for i, g in enumerate(gold):
        prev_diag = 0.0
        for j, p in enumerate(pred, start=1):
            above = best[j]
            candidate = max(above, best[j - 1])
            if g.act == p.act:
                candidate = max(candidate, prev_diag + sim[i][j - 1] * p.importance)
            prev_diag = above
            best[j] = candidate
    return best[-1]


def content_wed(gold: Sequence[Step], pred: Sequence[Step], sim: Similarity) -> float:
    """WED-c: the WED with an equal-label pair costing (1 − sim) · (w^p + w^r) / 2 (spec eqs. 4–7 otherwise).

    >>> g, p = [Step("Answer", 1.0)], [Step("Answer", 1.0)]
    >>> content_wed(g, p, [[1.0]]), content_wed(g, p, [[0.0]]), content_wed(g, p, [[0.5]])
    (0.0, 1.0, 0.5)
    """
    _check(gold, pred, sim)
    n = len(gold)
    row = [0.0] * (n + 1)
    for j in range(1, n + 1):
        row[j] = row[j - 1] + gold[j - 1].importance
    for p_index, p in enumerate(pred):
        up, row = row, [row[0] + p.importance] + [0.0] * n
        for j in range(1, n + 1):
            g = gold[j - 1]
            agree = sim[j - 1][p_index] if g.act == p.act else 0.0
            pair = (1.0 - agree) * (p.importance + g.importance) / 2.0
            row[j] = min(up[j - 1] + pair, up[j] + p.importance, row[j - 1] + g.importance)
    return row[-1]


@dataclass(frozen=True)
class ContentScore:
    """WLCS-c and WED-c of one prediction against its gold sequence."""

    id: str
    """Sample id."""
    wlcs_c: float
    """Content-aware WLCS (prediction-side weights)."""
    wed_c: float
    """Content-aware WED."""
    missing: bool = False
    """True when there was no prediction (scored as an empty reply: WLCS-c 0, WED-c = gold weight)."""

    def to_json(self) -> dict[str, Any]:
        """The row written to ``content.jsonl``."""
        return {"id": self.id, "wlcs_c": self.wlcs_c, "wed_c": self.wed_c, "missing_prediction": self.missing}


def score_content(
    sample_id: str, gold: Sequence[Step], pred: Sequence[Step], sim: Similarity, *, missing: bool = False
) -> ContentScore:
    """Both content-aware scores of one prediction (already normalised)."""
    return ContentScore(sample_id, content_wlcs(gold, pred, sim), content_wed(gold, pred, sim), missing)


@dataclass(frozen=True)
class ContentSummary:
    """Means of the content-aware scores over a set (beside Table 1's)."""

    n: int
    """Samples scored (the same samples as the paper's metrics: failures excluded, missing as empty replies)."""
    wlcs_c_mean: float | None
    """Mean WLCS-c."""
    wlcs_c_std: float | None
    """Population standard deviation of WLCS-c."""
    wed_c_mean: float | None
    """Mean WED-c."""
    wed_c_std: float | None
    """Population standard deviation of WED-c."""
    whole_text_steps: int
    """Steps without a span, compared by their whole reply text."""
    similarity: dict[str, Any]
    """The span similarity's name and calibration."""

    def to_json(self) -> dict[str, Any]:
        """The ``content`` object of ``summary.json``."""
        return dataclasses.asdict(self)


def _stats(values: Sequence[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = math.fsum(values) / len(values)
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))


def summarise_content(
    scores: Sequence[ContentScore], whole_text_steps: int, similarity: dict[str, Any]
) -> ContentSummary:
    """Means and population standard deviations of a set's content scores."""
    (wlcs_mean, wlcs_std), (wed_mean, wed_std) = _stats([s.wlcs_c for s in scores]), _stats([s.wed_c for s in scores])
    return ContentSummary(len(scores), wlcs_mean, wlcs_std, wed_mean, wed_std, whole_text_steps, similarity)
