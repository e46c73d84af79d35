"""Exporting a fitted scikit-learn ``HistGradientBoostingClassifier`` to the runtime's numpy :class:`TreeEnsemble`.

scikit-learn keeps each fitted tree as a ``TreePredictor`` whose ``nodes`` record array holds, per node, the
split column, the raw threshold (``num_threshold``: the bin threshold mapped back to a raw value), the direction
of missing values, the children and the leaf value (learning rate applied). These are private attributes, so the
export checks what it relies on (no categorical splits, one tree per class and iteration) and the test suite
compares the exported ensemble with ``predict_proba`` / ``decision_function`` on random data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from voxeval.annotate._trees import TreeEnsemble


def export_trees(clf: Any) -> TreeEnsemble:
    """The fitted classifier's trees as one :class:`TreeEnsemble` (nodes of all trees numbered together)."""
    per_iteration = int(clf.n_trees_per_iteration_)
    baseline = np.asarray(clf._baseline_prediction, dtype=np.float64).reshape(-1)
    if len(baseline) != per_iteration:
        raise ValueError(f"baseline of {len(baseline)} classes for {per_iteration} trees per iteration")
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("feature", "threshold", "missing_left", "left", "right", "value")
    }
    roots, classes = [], []
    offset = 0
    for iteration in clf._predictors:
        if len(iteration) != per_iteration:
            raise ValueError("an iteration without one tree per class")
        for k, predictor in enumerate(iteration):
            nodes = predictor.nodes
            if nodes["is_categorical"].any():
                raise ValueError("categorical splits are not supported")
            leaf = nodes["is_leaf"].astype(bool)
            own = np.arange(len(nodes), dtype=np.int64) + offset
            parts["feature"].append(np.where(leaf, 0, nodes["feature_idx"]).astype(np.int64))
            parts["threshold"].append(np.where(leaf, 0.0, nodes["num_threshold"]).astype(np.float64))
            parts["missing_left"].append(~leaf & nodes["missing_go_to_left"].astype(bool))
            parts["left"].append(np.where(leaf, own, nodes["left"].astype(np.int64) + offset))
            parts["right"].append(np.where(leaf, own, nodes["right"].astype(np.int64) + offset))
            parts["value"].append(np.where(leaf, nodes["value"], 0.0).astype(np.float64))
            roots.append(offset)
            classes.append(k)
            offset += len(nodes)
    return TreeEnsemble(
        **{name: np.concatenate(arrays) for name, arrays in parts.items()},
        roots=np.array(roots, dtype=np.int64),
        tree_class=np.array(classes, dtype=np.int64),
        baseline=baseline,
    )


def average_ensembles(ensembles: Sequence[TreeEnsemble]) -> TreeEnsemble:
    """One ensemble whose raw scores are the mean of ``ensembles``' (bagging): the trees of all, nodes renumbered,
    leaf values divided by their number and the baselines averaged. The class log-probabilities of the mean raw
    scores are the mean of the ensembles' class log-probabilities up to a per-row constant (the same decoding).
    All must have the same classes and one tree per class and iteration; one ensemble is returned unchanged."""
    if not ensembles:
        raise ValueError("no ensembles to average")
    if len(ensembles) == 1:
        return ensembles[0]
    classes = {len(e.baseline) for e in ensembles}
    if len(classes) != 1:
        raise ValueError(f"ensembles over different numbers of classes: {sorted(classes)}")
    count = len(ensembles)
    offsets = np.cumsum([0, *(len(e.left) for e in ensembles)])[:-1]
    return TreeEnsemble(
        feature=np.concatenate([e.feature for e in ensembles]),
        threshold=np.concatenate([e.threshold for e in ensembles]),
        missing_left=np.concatenate([e.missing_left for e in ensembles]),
        left=np.concatenate([e.left + off for e, off in zip(ensembles, offsets, strict=True)]),
        right=np.concatenate([e.right + off for e, off in zip(ensembles, offsets, strict=True)]),
        value=np.concatenate([e.value for e in ensembles]) / count,
        roots=np.concatenate([e.roots + off for e, off in zip(ensembles, offsets, strict=True)]),
        tree_class=np.concatenate([e.tree_class for e in ensembles]),
        baseline=np.mean([e.baseline for e in ensembles], axis=0),
    )
