"""The offline model's segment classes and tags, and their decoding into steps: the best class path through a
reply's segments, then runs of segments (or continuation tags) merged into ``(label, start, end)`` groups."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from voxeval.acts import LABELS, Label
from voxeval.annotate._segment import Segment

NONE = "none"
"""Class of text the gold leaves outside every span (social formulae)."""

CLASSES: tuple[str, ...] = (*LABELS, NONE)
"""Segment classes: the seven labels, then ``none``."""

CONTINUES = "+"
"""Prefix of a continuation tag: ``+Answer`` continues the step of the segment before (same label, one step)."""

TAGS: tuple[str, ...] = (*CLASSES, *(CONTINUES + label for label in LABELS))
"""Segment tags of a model that segments and labels in one pass: a class starts a step (or is ``none``), a
continuation tag extends the previous segment's step."""


def viterbi(log_proba: np.ndarray, transitions: np.ndarray, weight: float) -> list[int]:
    """Best path through per-position scores ``log_proba`` (n × C) with ``weight × transitions``."""
    n, c = log_proba.shape
    if n == 0:
        return []
    trans = weight * transitions
    score = trans[c, :c] + log_proba[0]
    back = np.zeros((n, c), dtype=np.int64)
    for i in range(1, n):
        cand = score[:, None] + trans[:c, :c]
        back[i] = cand.argmax(axis=0)
        score = cand.max(axis=0) + log_proba[i]
    score = score + trans[:c, c]
    path = [int(score.argmax())]
    for i in range(n - 1, 0, -1):
        path.append(int(back[i, path[-1]]))
    return path[::-1]


def merge_runs(
    segments: Sequence[Segment], labels: Sequence[str], splits: Sequence[bool] | None = None
) -> list[tuple[Label, int, int]]:
    """``(label, start, end)`` for each run of adjacent segments with the same label (a run also ends before a
    segment whose ``splits`` entry is true); ``none`` runs dropped."""
    groups: list[tuple[Label, int, int]] = []
    previous: str | None = None
    for i, (seg, label) in enumerate(zip(segments, labels, strict=True)):
        if label != NONE and label == previous and not (splits and splits[i]):
            act, start, _ = groups[-1]
            groups[-1] = (act, start, seg.end)
        elif label != NONE:
            groups.append((_as_label(label), seg.start, seg.end))
        previous = label
    return groups


def merge_tags(segments: Sequence[Segment], tags: Sequence[str]) -> list[tuple[Label, int, int]]:
    """``(label, start, end)`` of each step: a class tag starts a step, a continuation tag (``+X``) extends the
    previous segment's step when that step is an ``X`` (else it starts one); ``none`` segments dropped."""
    groups: list[tuple[Label, int, int]] = []
    previous: str | None = None
    for seg, tag in zip(segments, tags, strict=True):
        if tag == NONE:
            previous = None
            continue
        label = tag.removeprefix(CONTINUES)
        if tag.startswith(CONTINUES) and previous == label:
            act, start, _ = groups[-1]
            groups[-1] = (act, start, seg.end)
        else:
            groups.append((_as_label(label), seg.start, seg.end))
        previous = label
    return groups


def _as_label(name: str) -> Label:
    for label in LABELS:
        if label == name:
            return label
    raise ValueError(f"not a dialogue-act label: {name!r}")
