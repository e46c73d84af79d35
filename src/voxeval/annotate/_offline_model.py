"""The offline annotator's trained model: plain numpy arrays and prediction.

Its classes, tags and decoding into steps are in ``_decode``; its artefact files and their loading in ``_artefact``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from voxeval.acts import Step
from voxeval.annotate._answers import answer_features
from voxeval.annotate._boundary import boundary_row
from voxeval.annotate._decode import CLASSES, CONTINUES, NONE, merge_runs, merge_tags, viterbi
from voxeval.annotate._encoder import EMBED_DIM
from voxeval.annotate._features import hand_features
from voxeval.annotate._gate import Gate, gate_row
from voxeval.annotate._importance import importance_steps
from voxeval.annotate._segment import Segment
from voxeval.annotate._stack import raw_columns, stack_rows
from voxeval.annotate._surface import surface_features
from voxeval.annotate._trees import TreeEnsemble

MIN_WORD_CHARS = 2
"""A reply with fewer word characters (letters, kana, kanji, digits) performs no act: ``x``, ``。``."""

_WORD_CHAR = re.compile(r"[^\W_]")


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
    """Weights (bias last) of the same-label boundary model over ``_boundary.BOUNDARY_FEATURES``; empty: always
    merge."""
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
