"""Dialogue-level figures over per-turn scores (pure): turn and dialogue means, context-needed vs context-free
turns, context gain, drift, dialogue success, with intervals that resample *dialogues* (docs/dialogues.md).

Turns of one dialogue are not independent (a system that misses the slot in turn 1 tends to miss turn 2), so every
interval here is a cluster bootstrap: dialogues are drawn with replacement and the figure is recomputed from all
the turns of the drawn dialogues.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
"""Bootstrap resamples (of dialogues)."""
SEED = 0
"""Fixed seed: the same scores always give the same interval."""


@dataclass(frozen=True)
class TurnScore:
    """One assistant turn's scores under one history condition."""

    dialogue: str
    """Dialogue id."""
    turn: int
    """1-based index of the assistant turn in its dialogue."""
    context: str
    """``needed`` or ``free``: whether the reference reply depends on earlier turns."""
    wlcs: float
    """Weighted LCS against the turn's reference acts."""
    wed: float
    """Weighted edit distance against the reference acts."""
    key_act: bool
    """Whether the reply holds the reference's most important act (the turn "succeeded")."""


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95% cluster-bootstrap interval."""

    value: float
    """The figure on all the data."""
    low: float
    """2.5th percentile over resampled dialogues."""
    high: float
    """97.5th percentile."""
    dialogues: int
    """Dialogues that contributed."""
    turns: int
    """Turns that contributed."""

    def to_json(self) -> dict[str, float | int]:
        """As written to ``summary.json``."""
        return {
            "value": round(self.value, 6),
            "low": round(self.low, 6),
            "high": round(self.high, 6),
            "dialogues": self.dialogues,
            "turns": self.turns,
        }


def cluster_mean(groups: Sequence[Sequence[float]], *, resamples: int = RESAMPLES, seed: int = SEED) -> Estimate | None:
    """Mean over every value of every group, with an interval that resamples groups; ``None`` without values.

    >>> cluster_mean([[1.0, 0.0], [1.0]]).value
    0.6666666666666666
    >>> cluster_mean([[], []]) is None
    True
    """
    kept = [np.asarray(g, dtype=float) for g in groups if len(g)]
    if not kept:
        return None
    sums = np.array([g.sum() for g in kept])
    counts = np.array([g.size for g in kept], dtype=float)
    value = float(sums.sum() / counts.sum())
    if len(kept) == 1:
        return Estimate(value, value, value, 1, int(counts.sum()))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(kept), size=(resamples, len(kept)))
    means = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Estimate(value, float(low), float(high), len(kept), int(counts.sum()))


def _by_dialogue(turns: Iterable[TurnScore], value: Callable[[TurnScore], float]) -> list[list[float]]:
    groups: dict[str, list[float]] = {}
    for t in turns:
        groups.setdefault(t.dialogue, []).append(value(t))
    return [groups[d] for d in sorted(groups)]


@dataclass(frozen=True)
class ConditionFigures:
    """The figures of one system under one history condition."""

    turn_wlcs: Estimate | None
    """Mean WLCS over turns."""
    turn_wed: Estimate | None
    """Mean WED over turns."""
    dialogue_wlcs: float | None
    """Mean over dialogues of each dialogue's mean WLCS (every dialogue weighs the same)."""
    needed_wlcs: Estimate | None
    """Mean WLCS over context-needed turns."""
    free_wlcs: Estimate | None
    """Mean WLCS over context-free turns."""
    success: Estimate | None
    """Share of dialogues whose every scored turn holds its key act."""
    turns: int
    """Turns scored."""


def condition_figures(turns: Sequence[TurnScore]) -> ConditionFigures:
    """Every figure of one condition from its scored turns (failed turns are not in ``turns``)."""
    dialogue_means = [float(np.mean(g)) for g in _by_dialogue(turns, lambda t: t.wlcs)]
    success = [[float(all(g))] for g in _by_dialogue(turns, lambda t: float(t.key_act))]
    return ConditionFigures(
        turn_wlcs=cluster_mean(_by_dialogue(turns, lambda t: t.wlcs)),
        turn_wed=cluster_mean(_by_dialogue(turns, lambda t: t.wed)),
        dialogue_wlcs=float(np.mean(dialogue_means)) if dialogue_means else None,
        needed_wlcs=cluster_mean(_by_dialogue([t for t in turns if t.context == "needed"], lambda t: t.wlcs)),
        free_wlcs=cluster_mean(_by_dialogue([t for t in turns if t.context == "free"], lambda t: t.wlcs)),
        success=cluster_mean(success),
        turns=len(turns),
    )


def paired_gain(a: Sequence[TurnScore], b: Sequence[TurnScore], *, context: str | None = None) -> Estimate | None:
    """Mean WLCS of ``a`` − ``b`` over the turns both scored (paired by dialogue and turn), optionally only turns of
    one ``context``; the interval resamples dialogues. Context gain is ``paired_gain(gold, none, context="needed")``,
    drift ``paired_gain(gold, own)``.

    >>> gold = [TurnScore("d", 1, "free", 1.0, 0.0, True), TurnScore("d", 2, "needed", 1.0, 0.0, True)]
    >>> none = [TurnScore("d", 1, "free", 1.0, 0.0, True), TurnScore("d", 2, "needed", 0.0, 1.0, False)]
    >>> paired_gain(gold, none, context="needed").value
    1.0
    """
    other = {(t.dialogue, t.turn): t.wlcs for t in b}
    diffs = [
        TurnScore(t.dialogue, t.turn, t.context, t.wlcs - other[(t.dialogue, t.turn)], 0.0, True)
        for t in a
        if (t.dialogue, t.turn) in other and (context is None or t.context == context)
    ]
    return cluster_mean(_by_dialogue(diffs, lambda t: t.wlcs))
