"""Training the offline annotator on gold span labels: segment examples, fitting, cross-validation.

Segment-level examples come from running the segmenter over each gold reply and giving every segment the label
of the gold span it overlaps most (``none`` when it overlaps none). The classifier is an L2 logistic regression
(scikit-learn, deterministic lbfgs) whose coefficients are stored as arrays; label sequences are decoded with
bigram transition scores; importances come from a log-linear model fitted by ridge regression on the gold
importances. ``python -m voxeval.annotate.train_offline`` runs it all (see that module).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from voxeval.acts import Acts, Step
from voxeval.annotate._features import EMBED_DIM, Encoder, ngram_keys
from voxeval.annotate._offline_eval import AnnotatorScore, score_annotations
from voxeval.annotate._offline_model import (
    CLASSES,
    NONE,
    OfflineModel,
    design_rows,
    importance_features,
)
from voxeval.annotate._segment import Segment, segment
from voxeval.data import GoldSample
from voxeval.errors import MissingDependencyError


@dataclass(frozen=True)
class Settings:
    """Hyper-parameters of one training run (chosen by cross-validation on the dev split)."""

    c: float = 0.05
    """Inverse L2 strength of the logistic regression."""
    balanced: bool = True
    """Weight classes inversely to their frequency (``none`` is rare)."""
    min_count: int = 2
    """Fewest training segments an n-gram key needs to enter the vocabulary."""
    transition_weight: float = 0.5
    """Weight of the label-bigram scores when decoding."""
    transition_smoothing: float = 1.0
    """Add-k smoothing of the label-bigram counts."""
    importance_ridge: float = 1.0
    """Ridge strength of the importance model."""
    folds: int = 5
    """Cross-validation folds (grouped by domain) for the reported dev metrics."""
    asr_variants: bool = False
    """Also train on ASR-style copies of the replies (。 → 、 between sentences, no ？, no final punctuation)."""
    formula_every: int = 3
    """Add a social formula to every n-th training reply (see :func:`with_formulae`); 0 turns it off."""
    embedding_weight: float = 0.5
    """Multiplier of the standardised embedding columns (below 1 regularises them more than the rest)."""

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON object."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class ReplyExample:
    """One gold reply cut into segments, each with its training label."""

    sample: GoldSample
    """The gold row."""
    segments: tuple[Segment, ...]
    """The segmenter's output on the reply."""
    labels: tuple[str, ...]
    """Per segment: the label of the gold span it overlaps most, or ``none``."""
    variant: str = "original"
    """``original``, or ``asr`` for an ASR-style copy (see :func:`asr_variant`)."""


Embedded = list[np.ndarray]
"""Per example, its segments' embeddings (computed once, reused across folds)."""


def gold_offsets(sample: GoldSample) -> list[tuple[str, int, int]]:
    """``(label, start, end)`` of each gold span in the reply (spans are exact and in order)."""
    out: list[tuple[str, int, int]] = []
    cursor = 0
    for step in sample.acts:
        span = step.span or ""
        start = sample.output_text.find(span, cursor) if span else -1
        if start < 0:
            raise ValueError(f"{sample.id}: span {span!r} is not an in-order substring of the reply")
        cursor = start + len(span)
        out.append((step.act, start, cursor))
    return out


def label_segments(sample: GoldSample, segments: Sequence[Segment]) -> tuple[str, ...]:
    """Each segment's label: that of the gold span overlapping it most, ``none`` without overlap."""
    spans = gold_offsets(sample)
    labels = []
    for seg in segments:
        overlaps = [(min(seg.end, b) - max(seg.start, a), label) for label, a, b in spans]
        best = max(overlaps, key=lambda o: o[0], default=(0, NONE))
        labels.append(best[1] if best[0] > 0 else NONE)
    return tuple(labels)


_SENTENCE_PUNCT = re.compile(r"[。．！!？?]+")
"""Sentence punctuation that the ASR-style copies turn into 、 (or drop at the very end)."""


def asr_variant(sample: GoldSample) -> GoldSample:
    """The reply as a streaming ASR might render a spoken answer: sentences joined by 、, no question marks,
    no final punctuation. Spans and the text between them are rewritten piece by piece, so they stay exact."""
    pieces: list[tuple[str | None, str]] = []  # (label or None for gap text, text)
    cursor = 0
    for label, start, end in gold_offsets(sample):
        if start > cursor:
            pieces.append((None, sample.output_text[cursor:start]))
        pieces.append((label, sample.output_text[start:end]))
        cursor = end
    if cursor < len(sample.output_text):
        pieces.append((None, sample.output_text[cursor:]))
    rewritten = [_SENTENCE_PUNCT.sub("、", text) for _, text in pieces]
    rewritten[-1] = rewritten[-1].rstrip("、") or rewritten[-1]
    reply = "".join(rewritten)
    steps = []
    spans = iter(t for (label, _), t in zip(pieces, rewritten, strict=True) if label is not None)
    for step in sample.acts:
        steps.append(Step(step.act, step.importance, step.rationale, next(spans)))
    return replace(sample, id=sample.id + "#asr", output_text=reply, acts=tuple(steps))


def examples_from(samples: Sequence[GoldSample], *, asr_variants: bool = False) -> list[ReplyExample]:
    """Segment-level training examples of gold rows, and of their ASR-style copies when asked."""
    examples = []
    for sample in samples:
        versions = [("original", sample), ("asr", asr_variant(sample))] if asr_variants else [("original", sample)]
        for variant, version in versions:
            segments = segment(version.output_text)
            if segments:
                examples.append(ReplyExample(version, segments, label_segments(version, segments), variant))
    return examples


def embed_examples(examples: Sequence[ReplyExample], encoder: Encoder) -> Embedded:
    """Embed every segment of every example in one batched call."""
    vectors = encoder.encode([s.text for ex in examples for s in ex.segments])
    bounds = np.cumsum([0, *(len(ex.segments) for ex in examples)])
    return [vectors[a:b] for a, b in itertools.pairwise(bounds)]


def with_formulae(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], every: int
) -> tuple[list[ReplyExample], Embedded]:
    """Copies of every ``every``-th training reply with one of the training replies' social formulae (``none``
    segments) added — at the start if it opened its own reply, else at the end — so the rare ``none`` class is
    seen in varied company and positions."""
    formulae: dict[str, tuple[bool, np.ndarray]] = {}
    for i in idx:
        for k, (seg, label) in enumerate(zip(examples[i].segments, examples[i].labels, strict=True)):
            if label == NONE:
                formulae.setdefault(seg.text, (k == 0, emb[i][k]))
    bases = [i for i in idx if examples[i].variant == "original" and NONE not in examples[i].labels]
    if not formulae or every <= 0:
        return [], []
    texts = sorted(formulae)
    out_examples, out_emb = [], []
    for n, i in enumerate(bases[::every]):
        text = texts[n % len(texts)]
        at_start, vector = formulae[text]
        base = examples[i].sample
        reply = text + base.output_text if at_start else base.output_text + text
        sample = replace(base, id=f"{base.id}#formula", output_text=reply)
        segments = segment(reply)
        expected = (
            [text, *(s.text for s in examples[i].segments)]
            if at_start
            else [
                *(s.text for s in examples[i].segments),
                text,
            ]
        )
        if [s.text for s in segments] != expected:
            continue
        stacked = np.vstack([vector, emb[i]] if at_start else [emb[i], vector])
        out_examples.append(ReplyExample(sample, segments, label_segments(sample, segments), "formula"))
        out_emb.append(stacked)
    return out_examples, out_emb


def build_vocabulary(examples: Sequence[ReplyExample], min_count: int) -> tuple[str, ...]:
    """N-gram keys seen in at least ``min_count`` training segments, sorted."""
    counts = Counter(key for ex in examples for s in ex.segments for key in set(ngram_keys(s.text)))
    return tuple(sorted(k for k, n in counts.items() if n >= min_count))


def _design(
    examples: Sequence[ReplyExample], emb: Embedded, idx: Sequence[int], vocab: Sequence[str]
) -> list[np.ndarray]:
    return [design_rows(examples[i].segments, examples[i].sample.input_text, emb[i], vocab) for i in idx]


def fit_classifier(x: np.ndarray, y: np.ndarray, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """Logistic-regression weights and biases for all of :data:`CLASSES` (absent classes get a -30 bias)."""
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError as exc:
        raise MissingDependencyError("training the offline annotator", "annotator", "scikit-learn") from exc
    clf = LogisticRegression(
        C=settings.c, max_iter=2000, tol=1e-5, class_weight="balanced" if settings.balanced else None
    )
    clf.fit(x, y)
    coef = np.zeros((len(CLASSES), x.shape[1]))
    intercept = np.full(len(CLASSES), -30.0)
    for row, cls in enumerate(clf.classes_):
        coef[int(cls)] = clf.coef_[row] if len(clf.classes_) > 2 else (clf.coef_[0] if row else -clf.coef_[0])
        intercept[int(cls)] = clf.intercept_[row] if len(clf.classes_) > 2 else 0.0
    return coef, intercept


def fit_transitions(sequences: Sequence[Sequence[int]], smoothing: float) -> np.ndarray:
    """Log-probabilities of class bigrams (row = previous, index ``C`` = start/end), add-k smoothed."""
    c = len(CLASSES)
    counts = np.full((c + 1, c + 1), smoothing)
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
    return beta


def train_model(
    examples: Sequence[ReplyExample], emb: Embedded, settings: Settings, idx: Sequence[int] | None = None
) -> OfflineModel:
    """Fit every part of the model on the examples at ``idx`` (all when ``None``)."""
    picked = list(range(len(examples))) if idx is None else list(idx)
    extra, extra_emb = with_formulae(examples, emb, picked, settings.formula_every)
    examples = [*examples, *extra]
    emb = [*emb, *extra_emb]
    picked += range(len(examples) - len(extra), len(examples))
    vocab = build_vocabulary([examples[i] for i in picked], settings.min_count)
    x = np.vstack(_design(examples, emb, picked, vocab))
    y = np.array([CLASSES.index(label) for i in picked for label in examples[i].labels])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    scale[:EMBED_DIM] /= settings.embedding_weight
    coef, intercept = fit_classifier((x - mean) / scale, y, settings)
    sequences = [[CLASSES.index(label) for label in examples[i].labels] for i in picked]
    return OfflineModel(
        vocabulary=vocab,
        mean=mean,
        scale=scale,
        coef=coef,
        intercept=intercept,
        transitions=fit_transitions(sequences, settings.transition_smoothing),
        transition_weight=settings.transition_weight,
        importance_coef=fit_importance([examples[i].sample for i in picked], settings.importance_ridge),
        settings=settings.to_json(),
    )


def domain_folds(examples: Sequence[ReplyExample], k: int) -> list[list[int]]:
    """``k`` folds of example indices, whole domains per fold (domains dealt round-robin in sorted order)."""
    domains = sorted({ex.sample.domain or ex.sample.id for ex in examples})
    fold_of = {d: i % k for i, d in enumerate(domains)}
    return [[i for i, ex in enumerate(examples) if fold_of[ex.sample.domain or ex.sample.id] == f] for f in range(k)]


def cross_validate(
    examples: Sequence[ReplyExample], emb: Embedded, settings: Settings
) -> dict[str, tuple[AnnotatorScore, float]]:
    """Domain-grouped cross-validation: per variant, the out-of-fold score and segment-label accuracy.

    Training folds use the ASR-style copies only when ``settings.asr_variants`` is set; every variant present
    in ``examples`` is scored.
    """
    gold: dict[str, list[Acts]] = {}
    pred: dict[str, list[Acts]] = {}
    hits: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for fold in domain_folds(examples, settings.folds):
        held = set(fold)
        train = [
            i
            for i in range(len(examples))
            if i not in held and (settings.asr_variants or examples[i].variant == "original")
        ]
        model = train_model(examples, emb, settings, train)
        for i, rows in zip(fold, _design(examples, emb, fold, model.vocabulary), strict=True):
            ex = examples[i]
            classes = model.decode(model.proba(rows))
            hits[ex.variant] += sum(CLASSES[c] == label for c, label in zip(classes, ex.labels, strict=True))
            total[ex.variant] += len(classes)
            pred.setdefault(ex.variant, []).append(
                model.steps(ex.sample.output_text, ex.segments, classes, ex.sample.input_text)
            )
            gold.setdefault(ex.variant, []).append(ex.sample.acts)
    return {v: (score_annotations(gold[v], pred[v]), hits[v] / max(total[v], 1)) for v in sorted(gold)}
