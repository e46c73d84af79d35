"""Fitting the gate's pairwise relevance model: does this reply answer this request?

A logistic regression over :func:`~voxeval.annotate._gate.relevance_features` of (context, reply) unit embeddings:
every real training reply with its own context is a positive, the same context with :data:`NEGATIVES` replies
to inputs of *other* domains (drawn deterministically per reply) are negatives, and :data:`SAME_DOMAIN`
replies to other inputs of the same domain (off by default: another request of the same domain is often answered
alike; the gate's out-of-fold figures measure that class either way). Each pair is seen twice: with the input and
background as context, and with the input alone (as ``voxeval annotate`` passes replies).

The gate is fitted on the relevance score of its own training replies, so that score must be *out of fold*
(:func:`cross_fitted`, folds by the input a reply answers): an in-sample score would make real replies look far
more relevant than unseen ones, and the gate would lean on it too much.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

import numpy as np

from training.annotator.examples import Embedded, ReplyExample
from voxeval.annotate._gate import relevance_features

NEGATIVES = 4
"""Other-domain replies paired with each real reply's context."""

SAME_DOMAIN = 0
"""Same-domain replies to other inputs paired with each real reply's context (trained as negatives)."""

FOLDS = 3
"""Folds of the cross-fitted scores."""


def group_fold(group: str, folds: int) -> int:
    """A reply group's fold (the input it answers), by sha256: replies to one input share a fold."""
    return int.from_bytes(hashlib.sha256(("gate:" + group).encode("utf-8")).digest()[:4], "big") % folds


def _unit_rows(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norm > 0, norm, 1.0)


def reply_vectors(emb: Embedded) -> np.ndarray:
    """Each example's reply embedding as the gate sees it: the unit mean of its segments' embeddings."""
    return _unit_rows(np.stack([s.mean(axis=0) for s in emb.segments]))


def contexts(emb: Embedded) -> tuple[np.ndarray, np.ndarray]:
    """Each example's context vectors as the gate builds them: input plus background, and input alone."""
    user, background = _unit_rows(emb.users), _unit_rows(emb.backgrounds)
    return _unit_rows(user + background), user


def _pairs(examples: Sequence[ReplyExample], idx: Sequence[int], negatives: int, same: int) -> list[tuple[int, int]]:
    """``(context example, reply example)`` pairs: each reply with itself, then its drawn negatives."""
    domain = np.array([examples[i].sample.domain or "" for i in idx])
    inputs = np.array([examples[i].sample.input_text for i in idx])
    pairs = []
    for n, i in enumerate(idx):
        pairs.append((i, i))
        rng = random.Random(int.from_bytes(hashlib.sha256(examples[i].sample.id.encode()).digest()[:8], "big"))
        other = np.flatnonzero(domain != domain[n])
        near = np.flatnonzero((domain == domain[n]) & (inputs != inputs[n]))
        for pool, k in ((other, negatives), (near, same)):
            pairs += [(i, idx[int(pool[m])]) for m in rng.sample(range(len(pool)), min(k, len(pool)))]
    return pairs


def fit_relevance(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], c: float, same: int = SAME_DOMAIN
) -> np.ndarray:
    """Relevance weights (coefficients, then the intercept) fitted on the examples at ``idx``."""
    from sklearn.linear_model import LogisticRegression

    full, user = contexts(emb)
    replies = reply_vectors(emb)
    pairs = np.array(_pairs(examples, idx, NEGATIVES, same))
    y = (pairs[:, 0] == pairs[:, 1]).astype(int)
    x = np.vstack([relevance_features(ctx[pairs[:, 0]], replies[pairs[:, 1]]) for ctx in (full, user)])
    clf = LogisticRegression(C=c, max_iter=3000, tol=1e-6, class_weight="balanced").fit(x, np.concatenate([y, y]))
    return np.concatenate([clf.coef_[0], clf.intercept_]).astype(np.float64)


def cross_fitted(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], c: float, same: int = SAME_DOMAIN
) -> dict[int, np.ndarray]:
    """Per example at ``idx``: relevance weights fitted on the other folds (:data:`FOLDS`, grouped by input)."""
    fold = {i: group_fold(examples[i].reply.group, FOLDS) for i in idx}
    out: dict[int, np.ndarray] = {}
    for f in range(FOLDS):
        weights = fit_relevance(examples, emb, [i for i in idx if fold[i] != f], c, same)
        out.update({i: weights for i in idx if fold[i] == f})
    return out
