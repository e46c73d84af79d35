"""The offline annotator's importance model: a log-linear score per step, softmax-normalised per reply.

Fitted by ridge regression on the gold importances (``training/annotator/fit.py``); its weights ship in the
artefact (``importance_coef``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from voxeval.acts import LABELS, Label, Step, normalise
from voxeval.annotate._features import user_flags

IMPORTANCE_FEATURES = (
    *(f"label={label}" for label in LABELS),
    *(f"first*label={label}" for label in LABELS),
    *(f"asks*label={label}" for label in LABELS),
    "is_first",
    "is_last",
    "relative_position",
    "share_of_reply",
)
"""Columns of :func:`importance_features`."""


def importance_features(
    labels: Sequence[str], spans: Sequence[str], user_input: str, language: str = "ja"
) -> np.ndarray:
    """Per-step features for the importance model (label, position, share of the reply, user asks × label)."""
    n = len(labels)
    asks = user_flags(user_input, language)["user_asks"]
    total = sum(len(s) for s in spans) or 1
    rows = np.zeros((n, len(IMPORTANCE_FEATURES)))
    k = len(LABELS)
    for i, label in enumerate(labels):
        j = LABELS.index(label)
        rows[i, j] = 1.0
        rows[i, k + j] = 1.0 if i == 0 else 0.0
        rows[i, 2 * k + j] = asks
        rows[i, 3 * k :] = [i == 0, i == n - 1, i / (n - 1) if n > 1 else 0.0, len(spans[i]) / total]
    return rows


def importance_steps(
    coef: np.ndarray, labels: Sequence[Label], spans: Sequence[str], user_input: str, language: str = "ja"
) -> tuple[Step, ...]:
    """Steps with importances ``softmax(features @ coef)``; the central (top-scoring) step has the unique maximum."""
    if len(labels) == 1:
        return (Step(labels[0], 1.0, span=spans[0]),)
    score = importance_features(labels, spans, user_input, language) @ coef
    weights = np.exp(score - score.max())
    weights /= weights.sum()
    top = int(np.argmax(weights))
    runner_up = max(float(w) for i, w in enumerate(weights) if i != top)
    if weights[top] - runner_up < 1e-3:
        weights[top] = runner_up + 1e-3  # keep the central act strictly first after normalising
    raw = [Step(label, float(w), span=span) for label, w, span in zip(labels, weights, spans, strict=True)]
    return normalise(raw)
