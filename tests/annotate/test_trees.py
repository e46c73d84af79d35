"""The numpy tree ensemble against scikit-learn's ``HistGradientBoostingClassifier`` it was exported from."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.annotate._trees import TreeEnsemble

pytest.importorskip("sklearn")

from sklearn.ensemble import HistGradientBoostingClassifier

from training.annotator.trees import average_ensembles, export_trees


def _data(seed: int, n: int, width: int, classes: int, missing: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, width))
    x[:, 0] = np.round(x[:, 0])  # a few distinct values: thresholds fall between them, and rows land on them
    y = (x[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int) + (x[:, 2] > 0.5)
    y = np.minimum(y, classes - 1) if classes > 1 else y
    if classes > 3:
        y = np.where(rng.random(n) < 0.2, rng.integers(0, classes, n), y)
    x[rng.random(x.shape) < missing] = np.nan
    return x, y


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    classes=st.sampled_from([2, 3, 5]),
    missing=st.sampled_from([0.0, 0.05, 0.3]),
    leaves=st.integers(2, 31),
    iterations=st.integers(1, 12),
)
def test_exported_trees_match_sklearn(seed: int, classes: int, missing: float, leaves: int, iterations: int) -> None:
    x, y = _data(seed, 300, 6, classes, missing)
    if len(set(y.tolist())) < 2:
        return
    clf = HistGradientBoostingClassifier(
        max_iter=iterations, max_leaf_nodes=leaves, min_samples_leaf=5, early_stopping=False, random_state=0
    ).fit(x, y)
    trees = export_trees(clf)
    # fresh rows, including values exactly at the thresholds and NaN in columns that had none in training
    test, _ = _data(seed + 1, 200, 6, classes, 0.1)
    at_threshold = trees.threshold[trees.left != np.arange(len(trees.left))]
    if at_threshold.size:
        test[:50, 3] = np.resize(at_threshold, 50)
    np.testing.assert_allclose(trees.decision_function(test), clf.decision_function(test), rtol=0, atol=1e-9)
    np.testing.assert_allclose(trees.predict_proba(test), clf.predict_proba(test), rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.exp(trees.log_proba(test)).sum(axis=1), 1.0, atol=1e-12)


def test_round_trip_through_stored_arrays() -> None:
    x, y = _data(7, 400, 5, 5, 0.1)
    clf = HistGradientBoostingClassifier(max_iter=20, early_stopping=False, random_state=0).fit(x, y)
    trees = export_trees(clf)
    stored = {name: a.astype(np.float64) if a.dtype == bool else a for name, a in trees.arrays().items()}
    again = TreeEnsemble.from_arrays(stored)
    np.testing.assert_array_equal(again.decision_function(x), trees.decision_function(x))
    assert again.depth == max(p.get_max_depth() for it in clf._predictors for p in it)


def test_no_rows_and_bad_arrays() -> None:
    x, y = _data(3, 200, 4, 3, 0.0)
    trees = export_trees(HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(x, y))
    assert trees.decision_function(np.zeros((0, 4))).shape == (0, 3)
    broken = trees.arrays()
    broken["left"] = broken["left"] + len(broken["left"])
    with pytest.raises(ValueError, match="outside"):
        TreeEnsemble.from_arrays(broken)
    cyclic = trees.arrays()
    root = cyclic["roots"][0]
    cyclic["left"][cyclic["left"][root]] = root  # the root's left child leads back to the root
    with pytest.raises(ValueError, match="cycle"):
        TreeEnsemble.from_arrays(cyclic)


def test_averaged_ensembles_score_the_mean_of_their_raw_scores() -> None:
    x, y = _data(11, 400, 5, 3, 0.1)
    fitted = [
        HistGradientBoostingClassifier(
            max_iter=iterations, max_leaf_nodes=leaves, max_features=0.6, early_stopping=False, random_state=seed
        ).fit(x[seed::2] if seed else x, y[seed::2] if seed else y)
        for seed, iterations, leaves in ((0, 4, 7), (1, 9, 15))
    ]
    merged = average_ensembles([export_trees(clf) for clf in fitted])
    test, _ = _data(12, 150, 5, 3, 0.2)
    mean = np.mean([clf.decision_function(test) for clf in fitted], axis=0)
    np.testing.assert_allclose(merged.decision_function(test), mean, rtol=0, atol=1e-9)
    again = TreeEnsemble.from_arrays(merged.arrays())
    np.testing.assert_array_equal(again.decision_function(test), merged.decision_function(test))
    # the mean of the class log-probabilities, up to a per-row constant
    logs = np.mean([np.log(clf.predict_proba(test)) for clf in fitted], axis=0)
    shift = merged.log_proba(test) - logs
    np.testing.assert_allclose(shift, shift[:, :1] * np.ones((1, 3)), atol=1e-9)
    assert average_ensembles([merged]) is merged
    binary = export_trees(HistGradientBoostingClassifier(max_iter=2).fit(x, y > 0))
    with pytest.raises(ValueError, match="different numbers of classes"):
        average_ensembles([merged, binary])
