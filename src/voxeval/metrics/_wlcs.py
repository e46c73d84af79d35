"""Weighted LCS (spec 4.1.1): the best prediction-side importance mass over common subsequences."""

from __future__ import annotations

from collections.abc import Sequence

from voxeval.acts import Step


def weighted_lcs(gold: Sequence[Step], pred: Sequence[Step]) -> float:
    """Largest sum of *prediction-side* importances over subsequences common to ``gold`` and ``pred``.

    Labels must match exactly. The function uses the weights it is given; normalising them (eq. 3) is the
    loader's job. An empty prediction scores 0.

    >>> g = [Step("Question", .7), Step("Suggestion", .1), Step("Inform", .2)]
    >>> p = [Step("Question", .7), Step("Suggestion", .15), Step("Answer", .05)]
    >>> round(weighted_lcs(g, p), 10)
    0.85
    """
    # best[j] holds the optimum for gold[:i] × pred[:j] while i advances (one row of the usual DP table).
    best = [0.0] * (len(pred) + 1)
    for g in gold:
        prev_diag = 0.0
        for j, p in enumerate(pred, start=1):
            above = best[j]
            candidate = max(above, best[j - 1])
            if g.act == p.act:
                candidate = max(candidate, prev_diag + p.importance)
            prev_diag = above
            best[j] = candidate
    return best[-1]
