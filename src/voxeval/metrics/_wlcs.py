"""Weighted LCS (spec 4.1.1) and voxeval's gold-side variant: importance mass over common subsequences."""

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
    return _lcs(gold, pred, gold_side=False)


def gold_coverage(gold: Sequence[Step], pred: Sequence[Step]) -> float:
    """Largest sum of *gold-side* importances over subsequences common to ``gold`` and ``pred``.

    voxeval's addition, not the paper's: the share of the gold importance that the reply covers. The paper's
    WLCS weighs the common acts by the prediction, so a one-act reply whose act appears anywhere in the gold
    sequence scores 1; here the same reply scores that act's gold weight. An empty prediction scores 0.

    >>> g = [Step("Commissive", .6), Step("Question", .25), Step("Inform", .15)]
    >>> weighted_lcs(g, [Step("Inform", 1.0)]), gold_coverage(g, [Step("Inform", 1.0)])
    (1.0, 0.15)
    """
    return _lcs(gold, pred, gold_side=True)


def _lcs(gold: Sequence[Step], pred: Sequence[Step], *, gold_side: bool) -> float:
    # best[j] holds the optimum for gold[:i] × pred[:j] while i advances (one row of the usual DP table).
    best = [0.0] * (len(pred) + 1)
    for g in gold:
        prev_diag = 0.0
        for j, p in enumerate(pred, start=1):
            above = best[j]
            candidate = max(above, best[j - 1])
            if g.act == p.act:
                candidate = max(candidate, prev_diag + (g.importance if gold_side else p.importance))
            prev_diag = above
            best[j] = candidate
    return best[-1]
