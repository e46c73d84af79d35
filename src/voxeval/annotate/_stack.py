"""Columns of the offline annotator's stacked label model (issue 17, fifth round).

The segment classifier (a logistic regression) gives each segment class log-probabilities; the stacked model, a
gradient-boosted tree ensemble (:mod:`voxeval.annotate._trees`), reads them together with the previous and next
segments' log-probabilities, the segment's position and the kind of input the user gave, and gives the class
log-probabilities that the Viterbi pass decodes. It is trained on the classifier's *out-of-fold* log-probabilities
(``training/annotator/fit.py``), so it learns how far to trust the classifier on unseen replies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from voxeval.annotate._encoder import EMBED_DIM
from voxeval.annotate._features import hand_feature_names, user_flags
from voxeval.annotate._segment import Segment
from voxeval.annotate._surface import SURFACE_FEATURES

CONTEXT_COLUMNS = ("index", "from_end", "count", "chars", "user_asks", "user_commands", "user_question_mark")
"""Columns after the three blocks of log-probabilities (own, previous, next)."""


BLOCKS = ("own", "prev", "next")
"""Blocks of log-probabilities before the context columns: the segment's own and its neighbours'."""
AFTER_CONTEXT = ("prev2", "next2", "others_max")
"""Blocks after the context columns: two segments back and ahead, and the largest over the reply's other
segments."""


_HAND_FIXED = tuple(hand_feature_names(()))
"""The classifier's hand-feature columns that do not depend on its n-gram vocabulary (the vocabulary's follow)."""

RAW_COLUMNS = (
    *(f"raw:{name}" for name in _HAND_FIXED),
    "raw:cosine_user",
    "raw:cosine_prev",
    "raw:cosine_next",
    *(f"raw:{name}" for name in SURFACE_FEATURES),
)
"""With ``raw``, the classifier's own non-embedding, non-vocabulary columns appended to the stacked model's rows
(:func:`raw_columns`): named patterns, the user's input, position, relation to the input, the neighbours'
patterns, cosines to the input and the neighbouring segments, surface statistics."""


def stack_names(tags: Sequence[str], raw: bool = False) -> list[str]:
    """Column names of :func:`stack_rows` for a classifier over ``tags`` (with ``raw``, :data:`RAW_COLUMNS`
    last)."""

    def block(names: Sequence[str]) -> list[str]:
        return [f"{where}:{tag}" for where in names for tag in tags]

    return [*block(BLOCKS), *CONTEXT_COLUMNS, *block(AFTER_CONTEXT), *(RAW_COLUMNS if raw else ())]


def raw_columns(design: np.ndarray, vocabulary_size: int) -> np.ndarray:
    """The :data:`RAW_COLUMNS` of a reply's classifier rows (``design_rows``: embedding, hand features with
    ``vocabulary_size`` n-gram columns last, cosine to the input, cosines to the neighbours, surface statistics,
    then optional blocks)."""
    hand = EMBED_DIM + len(_HAND_FIXED)
    tail = hand + vocabulary_size
    width = 3 + len(SURFACE_FEATURES)
    out: np.ndarray = np.hstack([design[:, EMBED_DIM:hand], design[:, tail : tail + width]])
    return out


def stack_rows(
    log_proba: np.ndarray,
    segments: Sequence[Segment],
    user_input: str,
    raw: np.ndarray | None = None,
    language: str = "ja",
) -> np.ndarray:
    """One reply's stacked-model rows (:func:`stack_names`): the segment's own log-probabilities, those of the
    segments one before and after, the context (position, length, the kind of input), those of the segments two
    before and after, and per class the largest over the reply's other segments. Where there is no such segment
    the columns are NaN (missing), which the trees route like any value they learned. ``raw``
    (:func:`raw_columns`) is appended as it is."""
    n, c = log_proba.shape
    k = len(CONTEXT_COLUMNS)
    rows = np.full((n, 6 * c + k), np.nan)
    rows[:, :c] = log_proba
    rows[1:, c : 2 * c] = log_proba[:-1]
    rows[:-1, 2 * c : 3 * c] = log_proba[1:]
    after = 3 * c + k
    rows[2:, after : after + c] = log_proba[:-2]
    rows[:-2, after + c : after + 2 * c] = log_proba[2:]
    if n > 1:
        # the largest over the other segments: the overall maximum, or the runner-up where this segment is it
        order = np.sort(log_proba, axis=0)
        top = log_proba == order[-1]
        rows[:, after + 2 * c :] = np.where(top, order[-2], order[-1])
    user = user_flags(user_input, language)
    index = np.arange(n, dtype=np.float64)
    rows[:, 3 * c : after] = np.column_stack(
        [
            index,
            n - 1 - index,
            np.full(n, float(n)),
            [float(len(s.text)) for s in segments],
            np.full(n, user["user_asks"]),
            np.full(n, user["user_commands"]),
            np.full(n, user["user_question_mark"]),
        ]
    ).reshape(n, len(CONTEXT_COLUMNS))
    if raw is not None:
        rows = np.hstack([rows, raw.reshape(n, len(RAW_COLUMNS))])
    return rows
