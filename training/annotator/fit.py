"""Fitting the offline annotator: segment classifier, label transitions, boundaries, importances, reply gate.

- Segment classifier: L2 logistic regression (scikit-learn, deterministic lbfgs, balanced classes) over the
  segment's embedding, hand features (own and neighbours' sentence-final patterns, the user's input), cosine to the
  user's input and surface statistics; its weights are stored as arrays.
- Stacked label model: gradient-boosted trees (scikit-learn, one thread, fixed seed) over the classifier's
  out-of-fold log-probabilities (cross-fitted in folds grouped by input) and context; exported to numpy arrays
  (``training/annotator/trees.py``).
- Label sequence: bigram transition scores, decoded by Viterbi together with the stacked model's (or, with
  ``stack=false``, the classifier's) log-probabilities.
- Boundaries: a small logistic model that starts a new step between adjacent same-label segments with new content.
- Importances: a log-linear model fitted by ridge regression on the gold importances.
- Gate: logistic regression of real replies (kept) against garbage made from them (rejected); its threshold keeps
  99% of real replies, measured out of fold.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from training.annotator.augment import off_topic_copies
from training.annotator.examples import Embedded, ReplyExample, gold_offsets
from training.annotator.trees import average_ensembles, export_trees
from voxeval.annotate._boundary import boundary_row
from voxeval.annotate._decode import CLASSES, CONTINUES, NONE, TAGS
from voxeval.annotate._encoder import EMBED_DIM
from voxeval.annotate._features import ngram_keys
from voxeval.annotate._gate import Gate
from voxeval.annotate._importance import importance_features
from voxeval.annotate._offline_model import OfflineModel, design_rows
from voxeval.annotate._stack import raw_columns, stack_rows
from voxeval.annotate._surface import bigram_table
from voxeval.annotate._trees import TreeEnsemble
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
    answers: bool = False
    """Add the ``answers`` block (``annotate/_answers.py``: does the segment answer the question, give the kind of
    content asked for) to the classifier's rows. Off: grouped 5-fold CV on the train split, labels without the
    gate, mean WED 0.1605 without the stack (0.1590 without the block) and 0.1487 with it (0.1445 without the
    block; issue 17, fifth round)."""
    stack: bool = True
    """Decode the log-probabilities of a stacked tree model (``annotate/_stack.py``) over the classifier's
    out-of-fold log-probabilities and context, instead of the classifier's own. On: grouped 5-fold CV on the
    train split, labels without the gate, mean WED 0.1445 / exact 65.4% against 0.1590 / 63.5% (issue 17, fifth
    round; the stack_* values below were the best of the grid tried there)."""
    stack_folds: int = 5
    """Folds (grouped by input) of the cross-fitting that gives the stacked model out-of-fold log-probabilities."""
    stack_iter: int = 100
    """Boosting iterations of the stacked model (one tree per class each)."""
    stack_rate: float = 0.1
    """Learning rate of the stacked model."""
    stack_leaves: int = 15
    """Most leaves per tree of the stacked model."""
    stack_min_leaf: int = 20
    """Fewest training segments per leaf of the stacked model."""
    stack_l2: float = 1.0
    """L2 regularisation of the stacked model's leaf values."""
    stack_balanced: bool = True
    """Weight the stacked model's classes inversely to their frequency (as the classifier's)."""
    stack_bags: int = 1
    """Tree ensembles fitted and averaged (their raw class scores; bagging), shipped as one ensemble. Bag 0 is the
    single model above; each further bag has its own cross-fitting fold split and random state. 1: grouped 5-fold
    CV on the train split, labels without the gate, mean WED 0.1484 with 4 bags against 0.1476 (issue 17, sixth
    round; docs/annotators.md)."""
    stack_subsample: float = 1.0
    """Share of the input groups (by sha256 per bag) each bag's trees are fitted on; 1: all (4 bags on 0.8: CV mean
    WED 0.1502)."""
    stack_max_features: float = 1.0
    """Share of the columns each split of the stacked model may choose from (scikit-learn's ``max_features``,
    drawn with the bag's random state); 1: all (4 bags on 0.8 of the groups and 0.5 of the columns: 0.1515)."""
    stack_seed: int = 0
    """First bag's number: bag ``b`` uses the fold split, group subsample and random state of number
    ``stack_seed + b`` (0: the shipped model's); other values measure how much the split alone moves results."""
    stack_blend: float = 0.0
    """Weight of the classifier's own log-probabilities mixed into the stacked model's when decoding; 0: none (0.3:
    CV mean WED 0.1495 against 0.1476)."""
    stack_splits: int = 1
    """Fold splits whose out-of-fold classifier log-probabilities are averaged into the stacked model's columns
    (per bag); 1: one (more: not measured)."""
    stack_raw: bool = False
    """Give the stacked model the classifier's own non-embedding, non-vocabulary columns as well
    (``annotate/_stack.py``, ``RAW_COLUMNS``)."""
    gate_authors: tuple[str, ...] = ()
    """Authors (``builtin``, ``a1`` …) whose training rows the gate is fitted on; empty: every training row. The
    label models are fitted on every training row either way."""
    off_topic_share: float = 0.0
    """Share of the concise and chatty training replies with an Answer that the label models also see as an
    off-topic copy (``training/annotator/augment.py``: another domain's input, Answers relabelled Inform). 0: at
    0.3, grouped 5-fold CV on the train split with the later authors' rows added (labels without the gate,
    continuation tags) gave mean WED 0.1388 against 0.1292 without copies: ``off_topic`` improved, real Answers
    were read as Inform more often (issue 17, eighth round; docs/annotators.md)."""

    def relevance(self) -> tuple[float, int]:
        """The relevance model's settings, as :func:`~training.annotator.gate.fit_gate` takes them."""
        return self.relevance_c, self.relevance_same_domain

    def __post_init__(self) -> None:
        # JSON (``--set``, the artefact's settings) gives a list; the record holds a tuple so equality holds.
        object.__setattr__(self, "gate_authors", tuple(self.gate_authors))

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON object."""
        values = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}

    def gate_rows(self, examples: Sequence[ReplyExample], idx: Sequence[int]) -> list[int]:
        """The rows of ``idx`` the gate is fitted on (see :attr:`gate_authors`); ``ValueError`` when there are none."""
        if not self.gate_authors:
            return list(idx)
        rows = [i for i in idx if examples[i].reply.author in self.gate_authors]
        if not rows:
            raise ValueError(f"gate_authors {list(self.gate_authors)}: no training rows by these authors")
        return rows


def parse_settings(pairs: Sequence[str]) -> Settings:
    """Settings with ``NAME=JSON`` overrides (``--set`` of ``python -m training.annotator[.cv]``)."""
    changes: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in Settings.__dataclass_fields__:
            known = ", ".join(sorted(Settings.__dataclass_fields__))
            raise ValueError(f"bad setting {pair!r}: expected NAME=JSON with NAME one of {known}")
        changes[name] = json.loads(value)
    return dataclasses.replace(Settings(), **changes)


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


def standardise(x: np.ndarray, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """Per-column mean and scale of the classifier's rows (the embedding columns' scale divided by
    ``settings.embedding_weight``)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    scale[:EMBED_DIM] /= settings.embedding_weight
    return mean, scale


def _hash_share(salt: str, group: str) -> int:
    return int.from_bytes(hashlib.sha256((salt + group).encode("utf-8")).digest()[:4], "big")


def _stack_salt(bag: int, split: int) -> str:
    """The salt of a fold split of the stacked model's cross-fitting (``stack:`` for the first, as before)."""
    return "stack:" if (bag, split) == (0, 0) else f"stack{bag}.{split}:"


def _stack_fold(group: str, folds: int, salt: str = "stack:") -> int:
    """A group's fold of the stacked model's cross-fitting, by sha256 (stable; not the CV folds' salt)."""
    return _hash_share(salt, group) % folds


def _in_bag(group: str, bag: int, share: float) -> bool:
    """Whether a group is among the ``share`` of groups a bag's trees are fitted on (by sha256; all at 1)."""
    return share >= 1.0 or _hash_share(f"bag{bag}:", group) < share * 2**32


def out_of_fold_log_proba(
    rows: Sequence[np.ndarray],
    y: Sequence[np.ndarray],
    groups: Sequence[str],
    settings: Settings,
    n_tags: int,
    salts: Sequence[str] = ("stack:",),
    cache: dict[str, list[np.ndarray]] | None = None,
) -> list[np.ndarray]:
    """Per reply, the classifier's class log-probabilities from a classifier fitted without the reply's fold
    (folds grouped by input; standardisation refitted per fold; the vocabulary is the whole training set's),
    averaged over the fold splits given by ``salts``. ``cache`` (by salt) lets calls with the same rows and
    classifier settings share fold splits."""
    cache = {} if cache is None else cache
    for salt in salts:
        if salt not in cache:
            cache[salt] = _out_of_fold(rows, y, groups, settings, n_tags, salt)
    parts = [cache[salt] for salt in salts]
    return [np.mean(per_reply, axis=0) for per_reply in zip(*parts, strict=True)]


def _out_of_fold(
    rows: Sequence[np.ndarray],
    y: Sequence[np.ndarray],
    groups: Sequence[str],
    settings: Settings,
    n_tags: int,
    salt: str,
) -> list[np.ndarray]:
    fold = [_stack_fold(g, settings.stack_folds, salt) for g in groups]
    out: list[np.ndarray] = [np.zeros((len(r), n_tags)) for r in rows]
    for f in sorted(set(fold)):
        train = [k for k, g in enumerate(fold) if g != f]
        x = np.vstack([rows[k] for k in train])
        mean, scale = standardise(x, settings)
        coef, intercept = fit_classifier((x - mean) / scale, np.concatenate([y[k] for k in train]), settings, n_tags)
        for k in (k for k, g in enumerate(fold) if g == f):
            z = ((rows[k] - mean) / scale) @ coef.T + intercept
            z -= z.max(axis=1, keepdims=True)
            out[k] = np.clip(z - np.log(np.exp(z).sum(axis=1, keepdims=True)), np.log(1e-12), None)
    return out


def fit_stack(
    examples: Sequence[ReplyExample],
    picked: Sequence[int],
    rows: Sequence[np.ndarray],
    sequences: Sequence[Sequence[int]],
    settings: Settings,
    n_tags: int,
    vocabulary_size: int,
    cache: dict[str, list[np.ndarray]] | None = None,
) -> TreeEnsemble:
    """The stacked label model: gradient-boosted trees over the classifier's out-of-fold log-probabilities and
    context (:func:`~voxeval.annotate._stack.stack_rows`), fitted single-threaded (deterministic) and exported;
    with ``stack_bags`` > 1 the average of several (:func:`~training.annotator.trees.average_ensembles`).
    ``vocabulary_size``: the classifier's n-gram columns (to find the raw columns in ``rows``). ``cache``: as
    :func:`out_of_fold_log_proba` takes it."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits
    except ImportError as exc:
        raise MissingDependencyError("training the offline annotator", "annotator", "scikit-learn") from exc
    y = [np.asarray(seq, dtype=np.int64) for seq in sequences]
    groups = [examples[i].reply.group for i in picked]
    bags = []
    for bag in range(settings.stack_seed, settings.stack_seed + settings.stack_bags):
        salts = [_stack_salt(bag, split) for split in range(settings.stack_splits)]
        oof = out_of_fold_log_proba(rows, y, groups, settings, n_tags, salts, cache)
        keep = [k for k, g in enumerate(groups) if _in_bag(g, bag, settings.stack_subsample)]
        x = np.vstack(
            [
                stack_rows(
                    oof[k],
                    examples[picked[k]].segments,
                    examples[picked[k]].sample.input_text,
                    raw_columns(rows[k], vocabulary_size) if settings.stack_raw else None,
                    examples[picked[k]].sample.language,
                )
                for k in keep
            ]
        )
        clf = HistGradientBoostingClassifier(
            max_iter=settings.stack_iter,
            learning_rate=settings.stack_rate,
            max_leaf_nodes=settings.stack_leaves,
            min_samples_leaf=settings.stack_min_leaf,
            l2_regularization=settings.stack_l2,
            max_features=settings.stack_max_features,
            class_weight="balanced" if settings.stack_balanced else None,
            early_stopping=False,
            random_state=bag,
        )
        with threadpool_limits(1):
            clf.fit(x, np.concatenate([y[k] for k in keep]))
        bags.append(_all_tags(export_trees(clf), [int(c) for c in clf.classes_], n_tags))
    return average_ensembles(bags)


def _all_tags(trees: TreeEnsemble, present: Sequence[int], n_tags: int) -> TreeEnsemble:
    """The ensemble over all ``n_tags`` tags when training saw fewer: each absent tag gets a -30 baseline and, in
    every iteration, a tree that is one leaf adding 0 (so the layout, one tree per tag and iteration, holds)."""
    if list(present) == list(range(n_tags)):
        return trees
    if len(trees.baseline) != len(present):
        raise ValueError(f"the stacked model saw only tags {list(present)}: too few to fit")
    leaf = len(trees.left)  # one shared leaf node, appended
    iterations = len(trees.roots) // len(present)
    roots = np.full((iterations, n_tags), leaf, dtype=np.int64)
    roots[:, list(present)] = trees.roots.reshape(iterations, len(present))
    baseline = np.full(n_tags, -30.0)
    baseline[list(present)] = trees.baseline
    return TreeEnsemble(
        feature=np.append(trees.feature, 0),
        threshold=np.append(trees.threshold, 0.0),
        missing_left=np.append(trees.missing_left, False),
        left=np.append(trees.left, leaf),
        right=np.append(trees.right, leaf),
        value=np.append(trees.value, 0.0),
        roots=roots.reshape(-1),
        tree_class=np.tile(np.arange(n_tags, dtype=np.int64), iterations),
        baseline=baseline,
    )


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
        feats = importance_features(labels, spans, sample.input_text, sample.language)
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
    feats = [
        importance_features([a.act for a in s.acts], [a.span or "" for a in s.acts], s.input_text, s.language)
        for s in multi
    ]
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
                prev, text = ex.segments[k - 1].text, ex.segments[k].text
                xs.append(boundary_row(label, prev, text, seg_emb[k - 1], seg_emb[k], ex.sample.language))
                ys.append(int(steps[k] != steps[k - 1]))
    if len(set(ys)) < 2:
        return np.zeros(0)
    clf = _logistic(np.vstack(xs), np.array(ys), c, balanced=False)
    return np.concatenate([clf.coef_[0], clf.intercept_]).astype(np.float64)


def build_vocabulary(examples: Sequence[ReplyExample], min_count: int) -> tuple[str, ...]:
    """N-gram keys seen in at least ``min_count`` training segments, sorted."""
    counts = Counter(key for ex in examples for s in ex.segments for key in set(ngram_keys(s.text, ex.sample.language)))
    return tuple(sorted(k for k, n in counts.items() if n >= min_count))


def design(
    examples: Sequence[ReplyExample],
    emb: Embedded,
    idx: Sequence[int],
    vocab: Sequence[str],
    table: np.ndarray,
    answers: bool = False,
) -> list[np.ndarray]:
    """Segment feature rows of the examples at ``idx``."""
    return [
        design_rows(
            examples[i].segments,
            examples[i].sample.input_text,
            emb.segments[i],
            emb.users[i],
            vocab,
            table,
            answers=answers,
            language=examples[i].sample.language,
        )
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
    originals = list(idx)
    language = language_of(examples, originals)
    vocab = build_vocabulary([examples[i] for i in originals], settings.min_count)
    examples, emb, picked = off_topic_copies(examples, emb, originals, settings.off_topic_share)
    rows = design(examples, emb, picked, vocab, table, settings.answers)
    x = np.vstack(rows)
    tags = TAGS if settings.continuation else CLASSES
    if settings.continuation:
        sequences = [[TAGS.index(tag) for tag in segment_tags(examples[i])] for i in picked]
    else:
        sequences = [[CLASSES.index(label) for label in examples[i].labels] for i in picked]
    y = np.array([k for seq in sequences for k in seq])
    mean, scale = standardise(x, settings)
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
        importance_coef=fit_importance([examples[i].sample for i in originals], settings.importance_ridge),
        boundary_coef=boundaries,
        bigrams=table,
        gate=gate,
        settings=settings.to_json(),
        tags=tags,
        answers=settings.answers,
        stack=fit_stack(examples, picked, rows, sequences, settings, len(tags), len(vocab)) if settings.stack else None,
        stack_blend=settings.stack_blend,
        stack_raw=settings.stack_raw,
        language=language,
    )


def language_of(examples: Sequence[ReplyExample], idx: Sequence[int]) -> str:
    """The one language of the examples at ``idx`` (a model knows one); ``ValueError`` when they mix."""
    found = sorted({examples[i].sample.language for i in idx})
    if len(found) != 1:
        raise ValueError(f"training rows must share one language, found {found or 'none'}")
    return found[0]


def training_table(examples: Sequence[ReplyExample], idx: Sequence[int]) -> np.ndarray:
    """The known-bigram table of the training replies, inputs and backgrounds at ``idx``."""
    texts = []
    for i in idx:
        sample = examples[i].sample
        texts += [sample.output_text, sample.input_text, sample.background]
    return bigram_table(texts)
