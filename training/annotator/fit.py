"""Fitting the offline annotator: segment classifier, label transitions, boundaries, importances, reply gate.

- Segment classifier: L2 logistic regression (scikit-learn, deterministic lbfgs, balanced classes) over the
  segment's embedding, hand features (own and neighbours' sentence-final patterns, the user's input), cosine to the
  user's input and surface statistics; its weights are stored as arrays.
- Label sequence: bigram transition scores, decoded by Viterbi together with the classifier's log-probabilities.
- Boundaries: a small logistic model that starts a new step between adjacent same-label segments with new content.
- Importances: a log-linear model fitted by ridge regression on the gold importances.
- Gate: logistic regression of real replies (kept) against garbage made from them (rejected); its threshold keeps
  99% of real replies, measured out of fold.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from training.annotator.examples import Embedded, ReplyExample, gold_offsets
from voxeval.annotate._features import EMBED_DIM, ngram_keys
from voxeval.annotate._gate import Gate
from voxeval.annotate._offline_model import (
    CLASSES,
    CONTINUES,
    NONE,
    TAGS,
    OfflineModel,
    boundary_row,
    design_rows,
    importance_features,
)
from voxeval.annotate._surface import bigram_table
from voxeval.data import GoldSample
from voxeval.errors import MissingDependencyError


@dataclass(frozen=True)
class Settings:
    """Hyper-parameters of one training run (fixed before looking at the validation split)."""

    c: float = 0.02
    """Inverse L2 strength of the segment classifier."""
    balanced: bool = True
    """Weight classes inversely to their frequency."""
    min_count: int = 2
    """Fewest training segments an n-gram key needs to enter the vocabulary."""
    transition_weight: float = 0.5
    """Weight of the label-bigram scores when decoding."""
    transition_smoothing: float = 1.0
    """Add-k smoothing of the label-bigram counts."""
    importance_ridge: float = 1.0
    """Ridge strength of the importance model."""
    embedding_weight: float = 0.7
    """Multiplier of the standardised embedding columns (below 1 regularises them more than the rest). 0.7: grouped
    5-fold CV on the train split, labels without the gate, mean WED 0.159 / exact 63.5% against 0.163 / 62.6% at
    1.0 (issue 17, fourth round)."""
    gate_c: float = 1.0
    """Inverse L2 strength of the gate (chosen by the gate's out-of-fold figures on the train split)."""
    gate_keep: float = 0.99
    """Share of real training replies (out of fold) the gate's threshold keeps."""
    relevance_c: float = 1.0
    """Inverse L2 strength of the gate's pairwise relevance model."""
    relevance_same_domain: int = 0
    """Same-domain replies to other inputs trained as negatives of the relevance model, per real reply."""
    boundary_c: float = 1.0
    """Inverse L2 strength of the boundary model."""
    continuation: bool = False
    """Tag segments with continuation tags (``+X``: same step as the segment before) instead of classes plus a
    boundary model, so the label sequence and the step boundaries are decoded together. Off: in grouped 5-fold CV
    on the train split it gave more exact sequences (0.632 vs 0.626) but a higher mean WED (0.1652 vs 0.1629),
    and mean WED was the criterion fixed beforehand."""

    def relevance(self) -> tuple[float, int]:
        """The relevance model's settings, as :func:`~training.annotator.gate.fit_gate` takes them."""
        return self.relevance_c, self.relevance_same_domain

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON object."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _logistic(x: np.ndarray, y: np.ndarray, c: float, balanced: bool) -> Any:
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:
        raise MissingDependencyError("training the offline annotator", "annotator", "scikit-learn") from exc
    clf = LogisticRegression(C=c, max_iter=3000, tol=1e-5, class_weight="balanced" if balanced else None)
    return clf.fit(x, y)


def fit_classifier(
    x: np.ndarray, y: np.ndarray, settings: Settings, n_tags: int = len(CLASSES)
) -> tuple[np.ndarray, np.ndarray]:
    """Logistic-regression weights and biases for all ``n_tags`` tags (absent ones get a -30 bias)."""
    clf = _logistic(x, y, settings.c, settings.balanced)
    coef = np.zeros((n_tags, x.shape[1]))
    intercept = np.full(n_tags, -30.0)
    for row, cls in enumerate(clf.classes_):
        coef[int(cls)] = clf.coef_[row] if len(clf.classes_) > 2 else (clf.coef_[0] if row else -clf.coef_[0])
        intercept[int(cls)] = clf.intercept_[row] if len(clf.classes_) > 2 else 0.0
    return coef, intercept


def fit_transitions(sequences: Sequence[Sequence[int]], smoothing: float, tags: Sequence[str] = CLASSES) -> np.ndarray:
    """Log-probabilities of tag bigrams (row = previous, index ``C`` = start/end), add-k smoothed; a continuation
    tag ``+X`` may only follow ``X`` or ``+X`` (elsewhere it gets log-probability ~ -27.6)."""
    c = len(tags)
    counts = np.full((c + 1, c + 1), smoothing)
    for b, tag in enumerate(tags):
        if tag.startswith(CONTINUES):
            allowed = {tag, tag.removeprefix(CONTINUES)}
            for a in range(c + 1):
                if a == c or tags[a] not in allowed:
                    counts[a, b] = 0.0
    for seq in sequences:
        path = [c, *seq, c]
        for a, b in itertools.pairwise(path):
            counts[a, b] += 1
    counts[c, c] = 0.0  # an empty reply is never decoded
    probs = counts / counts.sum(axis=1, keepdims=True)
    out: np.ndarray = np.log(np.clip(probs, 1e-12, None))
    return out


def fit_importance(samples: Sequence[GoldSample], ridge: float) -> np.ndarray:
    """Weights of a log-linear importance model: ``log w_i = f_i · β + const`` per reply, by centred ridge."""
    xs, ys = [], []
    for sample in samples:
        if len(sample.acts) < 2:
            continue
        labels = [s.act for s in sample.acts]
        spans = [s.span or "" for s in sample.acts]
        feats = importance_features(labels, spans, sample.input_text)
        target = np.log(np.clip([s.importance for s in sample.acts], 1e-3, None))
        xs.append(feats - feats.mean(axis=0))
        ys.append(target - target.mean())
    x, y = np.vstack(xs), np.concatenate(ys)
    beta: np.ndarray = np.linalg.solve(x.T @ x + ridge * np.eye(x.shape[1]), x.T @ y)
    return beta * importance_sharpness(samples, beta)


SHARPNESS_GRID = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)
"""Multipliers of the importance scores tried by :func:`importance_sharpness`."""


def importance_sharpness(samples: Sequence[GoldSample], beta: np.ndarray) -> float:
    """Calibration: the multiplier of the log-linear scores whose softmax weights are closest (mean L1) to the gold
    importances of the training replies. Least squares on log-weights shrinks towards equal weights; this undoes it."""
    best, best_loss = 1.0, float("inf")
    multi = [s for s in samples if len(s.acts) >= 2]
    feats = [importance_features([a.act for a in s.acts], [a.span or "" for a in s.acts], s.input_text) for s in multi]
    gold = [np.array([a.importance for a in s.acts]) for s in multi]
    for factor in SHARPNESS_GRID:
        loss = 0.0
        for f, g in zip(feats, gold, strict=True):
            z = factor * (f @ beta)
            w = np.exp(z - z.max())
            loss += float(np.abs(w / w.sum() - g).sum())
        if loss < best_loss - 1e-12:
            best, best_loss = factor, loss
    return best


def _step_index(ex: ReplyExample) -> list[int]:
    """Per segment, the index of the gold step it overlaps most (-1 for none)."""
    spans = gold_offsets(ex.sample)
    out = []
    for seg in ex.segments:
        overlaps = [(min(seg.end, b) - max(seg.start, a), k) for k, (_, a, b) in enumerate(spans)]
        best = max(overlaps, default=(0, -1))
        out.append(best[1] if best[0] > 0 else -1)
    return out


def segment_tags(ex: ReplyExample) -> list[str]:
    """Each segment's tag: its label, or ``+label`` when it belongs to the same gold step as the segment before."""
    steps = _step_index(ex)
    return [
        CONTINUES + label if k and label != NONE and steps[k] == steps[k - 1] else label
        for k, label in enumerate(ex.labels)
    ]


def fit_boundaries(examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], c: float) -> np.ndarray:
    """Weights (bias last) of the boundary model, from adjacent same-label segment pairs of the training replies."""
    xs, ys = [], []
    for i in idx:
        ex = examples[i]
        steps = _step_index(ex)
        for k in range(1, len(ex.segments)):
            label = ex.labels[k]
            if label != NONE and label == ex.labels[k - 1]:
                seg_emb = emb.segments[i]
                xs.append(boundary_row(label, ex.segments[k - 1].text, ex.segments[k].text, seg_emb[k - 1], seg_emb[k]))
                ys.append(int(steps[k] != steps[k - 1]))
    if len(set(ys)) < 2:
        return np.zeros(0)
    clf = _logistic(np.vstack(xs), np.array(ys), c, balanced=False)
    return np.concatenate([clf.coef_[0], clf.intercept_]).astype(np.float64)


def build_vocabulary(examples: Sequence[ReplyExample], min_count: int) -> tuple[str, ...]:
    """N-gram keys seen in at least ``min_count`` training segments, sorted."""
    counts = Counter(key for ex in examples for s in ex.segments for key in set(ngram_keys(s.text)))
    return tuple(sorted(k for k, n in counts.items() if n >= min_count))


def design(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], vocab: Sequence[str], table: np.ndarray
) -> list[np.ndarray]:
    """Segment feature rows of the examples at ``idx``."""
    return [
        design_rows(examples[i].segments, examples[i].sample.input_text, emb.segments[i], emb.users[i], vocab, table)
        for i in idx
    ]


def train_model(
    examples: Sequence[ReplyExample],
    emb: Embedded,
    settings: Settings,
    idx: Sequence[int],
    gate: Gate | None,
    table: np.ndarray,
) -> OfflineModel:
    """Fit the segment, transition, boundary and importance models on the examples at ``idx``."""
    picked = list(idx)
    vocab = build_vocabulary([examples[i] for i in picked], settings.min_count)
    x = np.vstack(design(examples, emb, picked, vocab, table))
    tags = TAGS if settings.continuation else CLASSES
    if settings.continuation:
        sequences = [[TAGS.index(tag) for tag in segment_tags(examples[i])] for i in picked]
    else:
        sequences = [[CLASSES.index(label) for label in examples[i].labels] for i in picked]
    y = np.array([k for seq in sequences for k in seq])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    scale[:EMBED_DIM] /= settings.embedding_weight
    coef, intercept = fit_classifier((x - mean) / scale, y, settings, len(tags))
    no_boundaries = settings.continuation
    boundaries = np.zeros(0) if no_boundaries else fit_boundaries(examples, emb, picked, settings.boundary_c)
    return OfflineModel(
        vocabulary=vocab,
        mean=mean,
        scale=scale,
        coef=coef,
        intercept=intercept,
        transitions=fit_transitions(sequences, settings.transition_smoothing, tags),
        transition_weight=settings.transition_weight,
        importance_coef=fit_importance([examples[i].sample for i in picked], settings.importance_ridge),
        boundary_coef=boundaries,
        bigrams=table,
        gate=gate,
        settings=settings.to_json(),
        tags=tags,
    )


def training_table(examples: Sequence[ReplyExample], idx: Sequence[int]) -> np.ndarray:
    """The known-bigram table of the training replies, inputs and backgrounds at ``idx``."""
    texts = []
    for i in idx:
        sample = examples[i].sample
        texts += [sample.output_text, sample.input_text, sample.background]
    return bigram_table(texts)
