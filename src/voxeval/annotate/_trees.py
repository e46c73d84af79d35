"""A gradient-boosted tree ensemble as plain numpy arrays, evaluated without scikit-learn or pickle.

The offline annotator's stacked label model (``Settings.stack`` in ``training/annotator/fit.py``) is a
scikit-learn ``HistGradientBoostingClassifier`` at training time; ``training/annotator/trees.py`` exports its
fitted trees to the arrays of :class:`TreeEnsemble`, which ship in the artefact's ``.npz``. Evaluation follows
scikit-learn's predictor on raw (unbinned) data: at a split node a row goes left when its value is ``<=`` the
node's threshold (the raw value that scikit-learn maps each bin threshold back to), a missing value (NaN) goes
the way the node learned for missing values; a leaf adds its value (the learning rate already applied) to its
class's raw score, which starts from the baseline.

All trees are walked together, level by level, for all rows at once (vectorised): the (row, tree) pairs not yet
at a leaf advance one level per step. A leaf is its own child in the stored arrays.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

TREE_ARRAYS = (
    "feature",
    "threshold",
    "missing_left",
    "left",
    "right",
    "value",
    "roots",
    "tree_class",
    "baseline",
)
"""The arrays of a :class:`TreeEnsemble`, in the order they are stored (with a ``stack_`` prefix)."""

DENSE_LEVELS = 5
"""Levels every (row, tree) pair walks before those at a leaf are dropped (few reach one sooner; dropping costs
more than it saves there)."""


@dataclass(frozen=True)
class TreeEnsemble:
    """Additive trees: the raw score of class ``k`` is ``baseline[k]`` plus the leaf values of class ``k``'s
    trees. Nodes of all trees are numbered together; children are global node numbers."""

    feature: np.ndarray
    """Per node, the column its split reads (int64; 0 at leaves)."""
    threshold: np.ndarray
    """Per node, the raw threshold: ``x <= threshold`` goes left (float64; 0 at leaves)."""
    missing_left: np.ndarray
    """Per node, whether a missing value (NaN) goes left (bool)."""
    left: np.ndarray
    """Per node, the left child (int64; a leaf's own number at leaves)."""
    right: np.ndarray
    """Per node, the right child (int64; a leaf's own number at leaves)."""
    value: np.ndarray
    """Per node, the value a leaf adds to its class's raw score (float64; 0 at split nodes)."""
    roots: np.ndarray
    """Per tree, its root node (int64)."""
    tree_class: np.ndarray
    """Per tree, the class whose raw score it adds to (int64): ``tree % classes`` (one tree per class and
    iteration, in class order)."""
    baseline: np.ndarray
    """Per class, the raw score before any tree (float64). One entry: a binary model (raw score of class 1)."""

    @functools.cached_property
    def depth(self) -> int:
        """Levels needed to bring every row to a leaf (the deepest leaf's depth)."""
        return _depth(self.left, self.right, self.roots)

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        """Raw scores, shape ``(n, classes)`` (``(n,)`` for a binary model), as scikit-learn's
        ``decision_function``."""
        rows = np.asarray(x, dtype=np.float64)
        n = len(rows)
        n_classes = len(self.baseline)
        raw = np.broadcast_to(self.baseline, (n, n_classes)).copy()
        if n and len(self.roots):
            leaves = self._leaves(rows)
            # trees are stored iteration by iteration, one per class: summing over iterations adds each class's
            # trees in a fixed order, so a row's scores do not depend on the other rows
            raw += self.value[leaves].reshape(n, -1, n_classes).sum(axis=1)
        return raw[:, 0] if n_classes == 1 else raw

    def log_proba(self, x: np.ndarray) -> np.ndarray:
        """Class log-probabilities, shape ``(n, classes)`` (two columns for a binary model)."""
        raw = self.decision_function(x)
        if raw.ndim == 1:  # binary: the raw score is the log-odds of class 1
            raw = np.stack([np.zeros_like(raw), raw], axis=1)
        shifted = raw - raw.max(axis=1, keepdims=True)
        out: np.ndarray = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        return out

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities, as scikit-learn's ``predict_proba``."""
        out: np.ndarray = np.exp(self.log_proba(x))
        return out

    @functools.cached_property
    def _walk(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The child table indexed ``node + nodes * goes_left``, per node whether it is a leaf, and per node 1 where
        missing values go left (:meth:`_leaves` then reads the copy of the rows with NaN as -inf)."""
        size = len(self.left)
        leaf = self.left == np.arange(size)
        return np.concatenate([self.right, self.left]).astype(np.intp), leaf, self.missing_left.astype(np.intp)

    def _leaves(self, rows: np.ndarray) -> np.ndarray:
        """The leaf each row reaches in each tree, shape ``(n, trees)``.

        A missing value must go the way its node learned: each row is read from ``[row | row with NaN as -inf]``,
        the second copy at nodes whose missing values go left (``-inf <= t`` holds for any threshold), the first
        elsewhere (``NaN <= t`` never holds: right). All (row, tree) pairs advance one level per step (a leaf is
        its own child); after the first :data:`DENSE_LEVELS` levels, only the pairs not yet at a leaf."""
        n, width = rows.shape
        children, leaf, missing_left = self._walk
        size = len(self.left)
        column = self.feature.astype(np.intp) + width * missing_left
        threshold = self.threshold
        doubled = np.hstack([rows, np.where(np.isnan(rows), -np.inf, rows)]).reshape(-1)
        node = np.tile(self.roots.astype(np.intp), n)
        base = np.repeat(np.arange(n, dtype=np.intp) * (2 * width), len(self.roots))
        for _ in range(min(DENSE_LEVELS, self.depth)):
            node = children[node + size * (doubled[base + column[node]] <= threshold[node])]
        walking = np.flatnonzero(~leaf[node])
        at, base = node[walking], base[walking]
        while at.size:
            at = children[at + size * (doubled[base + column[at]] <= threshold[at])]
            node[walking] = at
            keep = ~leaf[at]
            walking, at, base = walking[keep], at[keep], base[keep]
        return node.reshape(n, -1)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays to store, by :data:`TREE_ARRAYS` name."""
        return {name: getattr(self, name) for name in TREE_ARRAYS}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> TreeEnsemble:
        """An ensemble from stored arrays (checked: children and roots in range, one class per tree)."""
        ints = {"feature", "left", "right", "roots", "tree_class"}
        fields = {
            name: arrays[name].astype(np.int64 if name in ints else bool if name == "missing_left" else np.float64)
            for name in TREE_ARRAYS
        }
        size = len(fields["left"])
        if any(len(fields[name]) != size for name in ("feature", "threshold", "missing_left", "right", "value")):
            raise ValueError("tree arrays differ in length")
        for name in ("left", "right", "roots"):
            if fields[name].size and (fields[name].min() < 0 or fields[name].max() >= size):
                raise ValueError(f"tree array {name} points outside the nodes")
        n_classes = len(fields["baseline"])
        if not np.array_equal(fields["tree_class"], np.arange(len(fields["roots"])) % max(n_classes, 1)):
            raise ValueError("trees must come iteration by iteration, one per class in class order")
        ensemble = cls(**fields)
        if ensemble.depth > size:
            raise ValueError("tree arrays contain a cycle")
        return ensemble


def _depth(left: np.ndarray, right: np.ndarray, roots: np.ndarray) -> int:
    """Levels from the roots to the deepest leaf (a leaf is its own child; capped past the node count)."""
    level = np.unique(roots)
    depth = 0
    while level.size and depth <= len(left):
        inner = level[left[level] != level]
        if not inner.size:
            break
        level = np.unique(np.concatenate([left[inner], right[inner]]))
        depth += 1
    return depth
