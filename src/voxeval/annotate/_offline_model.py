"""The offline annotator's trained model: plain numpy arrays, prediction, and its pickle-free artefact files.

An artefact is two files under ``voxeval/annotate/artefacts/``: ``NAME.npz`` (arrays only, read with
``allow_pickle=False``) and ``NAME.json`` (labels, n-gram vocabulary, training-data sha256, settings, metrics).
They are written (byte-for-byte reproducibly) by the training code under ``training/annotator``.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.acts import LABELS, Label, Step
from voxeval.annotate._answers import answer_features
from voxeval.annotate._boundary import BOUNDARY_FEATURES as BOUNDARY_FEATURES  # re-exported: training reads it here
from voxeval.annotate._boundary import boundary_row as boundary_row
from voxeval.annotate._features import EMBED_DIM, LANGUAGES, hand_features
from voxeval.annotate._gate import GATE_FEATURES, Gate, gate_row
from voxeval.annotate._importance import importance_steps
from voxeval.annotate._segment import Segment
from voxeval.annotate._stack import raw_columns, stack_names, stack_rows
from voxeval.annotate._surface import surface_features
from voxeval.annotate._trees import TREE_ARRAYS, TreeEnsemble
from voxeval.errors import ConfigError

NONE = "none"
"""Class of text the gold leaves outside every span (social formulae)."""

CLASSES: tuple[str, ...] = (*LABELS, NONE)
"""Segment classes: the seven labels, then ``none``."""

CONTINUES = "+"
"""Prefix of a continuation tag: ``+Answer`` continues the step of the segment before (same label, one step)."""

TAGS: tuple[str, ...] = (*CLASSES, *(CONTINUES + label for label in LABELS))
"""Segment tags of a model that segments and labels in one pass: a class starts a step (or is ``none``), a
continuation tag extends the previous segment's step."""

MIN_WORD_CHARS = 2
"""A reply with fewer word characters (letters, kana, kanji, digits) performs no act: ``x``, ``。``."""

_WORD_CHAR = re.compile(r"[^\W_]")

ARRAY_NAMES = (
    "mean",
    "scale",
    "coef",
    "intercept",
    "transitions",
    "importance_coef",
    "bigrams",
    "gate_mean",
    "gate_scale",
    "gate_coef",
    "gate_anchors",
    "boundary_coef",
    "gate_relevance",
)
"""Arrays stored in the ``.npz`` (``bigrams`` bit-packed)."""

STACK_PREFIX = "stack_"
"""Prefix of the stacked label model's arrays in the ``.npz`` (:data:`~voxeval.annotate._trees.TREE_ARRAYS`)."""


@dataclass(frozen=True)
class ReplyInput:
    """One segmented reply with its embeddings, as :meth:`OfflineModel.predict_many` takes it."""

    reply: str
    """The reply's text."""
    segments: Sequence[Segment]
    """Its segments."""
    seg_emb: np.ndarray
    """The segments' embeddings, shape ``(len(segments), 512)``."""
    user_input: str
    """The user's input."""
    user_emb: np.ndarray
    """The user input's embedding."""
    background: str = ""
    """The scenario background (may be blank)."""
    background_emb: np.ndarray | None = None
    """The background's embedding (``None``: zeros)."""


@dataclass(frozen=True)
class Artefact:
    """A loaded artefact: the model and where it came from."""

    model: OfflineModel
    """The model."""
    meta: dict[str, Any]
    """The JSON side (version, vocabulary, training data, metrics)."""
    sha256: str
    """sha256 of the ``.npz`` file."""
    meta_sha256: str
    """sha256 of the ``.json`` file."""


@dataclass(frozen=True)
class OfflineModel:
    """Segment classifier (standardised features → softmax), label-sequence decoding and an importance model."""

    vocabulary: tuple[str, ...]
    """Ending / opening n-gram keys used as indicator features."""
    mean: np.ndarray
    """Per-feature mean used to standardise."""
    scale: np.ndarray
    """Per-feature scale used to standardise."""
    coef: np.ndarray
    """Classifier weights, shape ``(len(CLASSES), n_features)``."""
    intercept: np.ndarray
    """Classifier biases, shape ``(len(CLASSES),)``."""
    transitions: np.ndarray
    """Log transition scores between classes, shape ``(C + 1, C + 1)``; row/column ``C`` is start/end."""
    transition_weight: float
    """Weight of the transition scores against the classifier's log-probabilities when decoding."""
    importance_coef: np.ndarray
    """Linear weights over ``_importance.importance_features``: a step's log-importance up to a per-reply
    constant."""
    boundary_coef: np.ndarray
    """Weights (bias last) of the same-label boundary model over :data:`BOUNDARY_FEATURES`; empty: always merge."""
    bigrams: np.ndarray
    """Bit table of hashed character bigrams of the training text (see ``_surface``)."""
    gate: Gate | None
    """The reply gate (``None``: every reply with words is annotated)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Training settings, kept for the JSON side."""
    tags: tuple[str, ...] = CLASSES
    """What the classifier's rows and the transition matrix index: :data:`CLASSES`, or :data:`TAGS` (with
    continuation tags, which decide step boundaries themselves)."""
    answers: bool = False
    """Whether the classifier's rows include the ``answers`` block (:mod:`._answers`)."""
    stack: TreeEnsemble | None = None
    """The stacked label model over the classifier's log-probabilities and context (:mod:`._stack`); ``None``:
    the classifier's log-probabilities are decoded directly."""
    stack_blend: float = 0.0
    """Weight of the classifier's own log-probabilities in the decoded ones (the stacked model's get ``1 -`` it);
    0: the stacked model's alone. Unused without a stacked model."""
    stack_raw: bool = False
    """Whether the stacked model's rows end with the classifier's own non-embedding columns
    (:func:`~voxeval.annotate._stack.raw_columns`)."""
    language: str = "ja"
    """The language of the replies it was trained on: it chooses the segmenter and the named patterns."""

    def features(
        self,
        segments: Sequence[Segment],
        user_input: str,
        seg_emb: np.ndarray,
        user_emb: np.ndarray,
        surface: np.ndarray | None = None,
    ) -> np.ndarray:
        """Raw (unstandardised) feature rows of one reply's segments."""
        return design_rows(
            segments,
            user_input,
            seg_emb,
            user_emb,
            self.vocabulary,
            self.bigrams,
            surface,
            answers=self.answers,
            language=self.language,
        )

    def predict(
        self,
        reply: str,
        segments: Sequence[Segment],
        seg_emb: np.ndarray,
        user_input: str,
        user_emb: np.ndarray,
        background: str = "",
        background_emb: np.ndarray | None = None,
    ) -> tuple[tuple[Step, ...], float | None]:
        """The steps of one segmented reply, and the gate's probability (``None`` without a gate).

        No steps when the reply has fewer than :data:`MIN_WORD_CHARS` word characters, when the gate rejects it,
        or when every segment is chatter.
        """
        item = ReplyInput(reply, segments, seg_emb, user_input, user_emb, background, background_emb)
        return self.predict_many([item])[0]

    def predict_many(self, items: Sequence[ReplyInput]) -> list[tuple[tuple[Step, ...], float | None]]:
        """:meth:`predict` for many replies: gate and features per reply, the label models over all segments of
        all replies at once, then decoding per reply."""
        out: list[tuple[tuple[Step, ...], float | None]] = [((), None)] * len(items)
        live: list[int] = []
        rows: list[np.ndarray] = []
        for k, item in enumerate(items):
            if not item.segments or len(_WORD_CHAR.findall(item.reply)) < MIN_WORD_CHARS:
                continue
            surface = np.array([surface_features(s.text, self.bigrams, self.language) for s in item.segments])
            surface = surface.reshape(len(item.segments), -1)
            p_real = self.gate_probability(item, surface)
            out[k] = ((), p_real)
            if p_real is not None and self.gate is not None and p_real < self.gate.threshold:
                continue
            live.append(k)
            rows.append(self.features(item.segments, item.user_input, item.seg_emb, item.user_emb, surface))
        if not live:
            return out
        log_proba = self.log_proba(rows, [items[k] for k in live])
        for k, scores in zip(live, log_proba, strict=True):
            item = items[k]
            classes = viterbi(scores, self.transitions, self.transition_weight)
            out[k] = (self.steps(item.reply, item.segments, classes, item.user_input, item.seg_emb), out[k][1])
        return out

    def gate_probability(self, item: ReplyInput, surface: np.ndarray) -> float | None:
        """The gate's probability that the reply is real (``None`` without a gate)."""
        if self.gate is None:
            return None
        bg_emb = np.zeros_like(item.user_emb) if item.background_emb is None else item.background_emb
        row = gate_row(
            item.reply,
            item.segments,
            item.seg_emb,
            item.user_input,
            item.user_emb,
            item.background,
            bg_emb,
            self.bigrams,
            self.gate.anchors,
            self.gate.relevance,
            surface,
            self.language,
        )
        return self.gate.probability(row)

    def log_proba(self, rows: Sequence[np.ndarray], items: Sequence[ReplyInput]) -> list[np.ndarray]:
        """Per reply, the class log-probabilities the Viterbi pass decodes: the classifier's (reply by reply, so a
        reply's figures do not depend on its batch), or the stacked model's over them (all replies' segments in
        one evaluation; exact per row)."""
        logp = [np.log(np.clip(self.proba(r), 1e-12, None)) for r in rows]
        if self.stack is None:
            return logp
        size = len(self.vocabulary)
        stacked = np.vstack(
            [
                stack_rows(
                    lp, it.segments, it.user_input, raw_columns(r, size) if self.stack_raw else None, self.language
                )
                for lp, it, r in zip(logp, items, rows, strict=True)
            ]
        )
        out = np.split(self.stack.log_proba(stacked), np.cumsum([len(r) for r in rows])[:-1])
        if self.stack_blend:
            out = [(1.0 - self.stack_blend) * s + self.stack_blend * c for s, c in zip(out, logp, strict=True)]
        return out

    def proba(self, rows: np.ndarray) -> np.ndarray:
        """Class probabilities of feature rows, shape ``(n, len(CLASSES))``."""
        z = ((rows - self.mean) / self.scale) @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return out

    def steps(
        self,
        reply: str,
        segments: Sequence[Segment],
        classes: Sequence[int],
        user_input: str,
        seg_emb: np.ndarray | None = None,
    ) -> tuple[Step, ...]:
        """Merge runs of equal labels into steps (``none`` segments dropped, a new step where the boundary model
        sees new content) and give them importances."""
        labels = [self.tags[c] for c in classes]
        if any(tag.startswith(CONTINUES) for tag in self.tags):
            groups = merge_tags(segments, labels)
        else:
            splits = self.splits(segments, labels, seg_emb) if seg_emb is not None else None
            groups = merge_runs(segments, labels, splits)
        if not groups:
            return ()
        spans = [reply[a:b] for _, a, b in groups]
        labels_of = [label for label, _, _ in groups]
        return importance_steps(self.importance_coef, labels_of, spans, user_input, self.language)

    def splits(self, segments: Sequence[Segment], labels: Sequence[str], seg_emb: np.ndarray) -> list[bool]:
        """Per segment: whether it starts a new step although it has its predecessor's label."""
        out = [False] * len(segments)
        if not self.boundary_coef.size:
            return out
        for i in range(1, len(segments)):
            if labels[i] != NONE and labels[i] == labels[i - 1]:
                prev, text = segments[i - 1].text, segments[i].text
                row = boundary_row(labels[i], prev, text, seg_emb[i - 1], seg_emb[i], self.language)
                out[i] = float(row @ self.boundary_coef[:-1] + self.boundary_coef[-1]) > 0.0
        return out


def design_rows(
    segments: Sequence[Segment],
    user_input: str,
    seg_emb: np.ndarray,
    user_emb: np.ndarray,
    vocabulary: Sequence[str],
    bigrams: np.ndarray,
    surface: np.ndarray | None = None,
    answers: bool = False,
    language: str = "ja",
) -> np.ndarray:
    """Feature rows ``[embedding | hand features | cosine to the user's input and to the neighbouring segments |
    surface statistics | with ``answers``, the answers block]`` (``answers``: Japanese only)."""
    if answers and language != "ja":
        raise ValueError("the answers block reads Japanese forms only (settings answers=true with language ja)")
    hand = hand_features(segments, user_input, vocabulary, language)
    emb = seg_emb.reshape(len(segments), EMBED_DIM)
    cosine = (emb @ user_emb.reshape(EMBED_DIM)).reshape(-1, 1)
    neighbours = np.zeros((len(segments), 2))  # cosine to the previous and to the next segment
    if len(segments) > 1:
        adjacent = np.einsum("ij,ij->i", emb[:-1], emb[1:])
        neighbours[1:, 0] = adjacent
        neighbours[:-1, 1] = adjacent
    if surface is None:
        surface = np.array([surface_features(s.text, bigrams, language) for s in segments])
        surface = surface.reshape(len(segments), -1)
    blocks = [emb, hand, cosine, neighbours, surface]
    if answers:
        blocks.append(answer_features(segments, user_input, cosine))
    return np.hstack(blocks).astype(np.float64)


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


def load_artefact(npz_path: Path, json_path: Path) -> Artefact:
    """Load an artefact, checking the JSON's record of the ``.npz`` hash and the array shapes."""
    try:
        npz = npz_path.read_bytes()
        meta_bytes = json_path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"offline annotator artefact missing: {exc}") from exc
    meta = json.loads(meta_bytes)
    digest = hashlib.sha256(npz).hexdigest()
    if meta.get("npz_sha256") != digest:
        raise ConfigError(f"{npz_path}: sha256 {digest} does not match {json_path.name} (retrain the artefact)")
    if tuple(meta.get("classes", ())) != CLASSES:
        raise ConfigError(f"{json_path}: classes {meta.get('classes')} differ from this voxeval's {list(CLASSES)}")
    language = str(meta.get("language", "ja"))  # artefacts before issue 34 are Japanese and do not say so
    if language not in LANGUAGES:
        raise ConfigError(f"{json_path}: language {language!r} is not one this voxeval knows ({', '.join(LANGUAGES)})")
    tags = tuple(meta.get("tags", CLASSES))
    if tags not in (CLASSES, TAGS):
        raise ConfigError(f"{json_path}: tags {list(tags)} are neither {list(CLASSES)} nor {list(TAGS)}")
    stacked = meta.get("stack") is not None
    raw = stacked and bool(meta["stack"].get("raw", False))
    if stacked and list(meta["stack"].get("features", ())) != stack_names(tags, raw):
        raise ConfigError(f"{json_path}: the stacked model's columns differ from this voxeval's (retrain the artefact)")
    with np.load(io.BytesIO(npz), allow_pickle=False) as z:
        arrays = {name: z[name] for name in ARRAY_NAMES}
        trees = {name: z[STACK_PREFIX + name] for name in TREE_ARRAYS} if stacked else None
    size = 1 << int(meta["bigram_bits"])
    gate = None
    if meta.get("gate") is not None:
        if tuple(meta.get("gate_features", ())) != GATE_FEATURES:
            raise ConfigError(f"{json_path}: the gate's features differ from this voxeval's (retrain the artefact)")
        gate = Gate(
            mean=arrays["gate_mean"].astype(np.float64),
            scale=arrays["gate_scale"].astype(np.float64),
            coef=arrays["gate_coef"].astype(np.float64),
            intercept=float(meta["gate"]["intercept"]),
            threshold=float(meta["gate"]["threshold"]),
            anchors=arrays["gate_anchors"].astype(np.float64),
            relevance=arrays["gate_relevance"].astype(np.float64),
        )
    model = OfflineModel(
        vocabulary=tuple(meta["vocabulary"]),
        transition_weight=float(meta["transition_weight"]),
        settings=dict(meta.get("settings", {})),
        bigrams=np.unpackbits(arrays["bigrams"].astype(np.uint8))[:size].astype(bool),
        gate=gate,
        boundary_coef=arrays["boundary_coef"].astype(np.float64),
        tags=tags,
        answers=bool(meta.get("answers", False)),
        stack=None if trees is None else TreeEnsemble.from_arrays(trees),
        stack_blend=float(meta["stack"].get("blend", 0.0)) if stacked else 0.0,
        stack_raw=raw,
        language=language,
        **{name: arrays[name].astype(np.float64) for name in ARRAY_NAMES[:6]},
    )
    return Artefact(model, meta, digest, hashlib.sha256(meta_bytes).hexdigest())
