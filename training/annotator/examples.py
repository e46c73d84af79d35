"""Segment-level training examples: gold replies cut by the runtime segmenter, each segment with its label.

Every segment gets the label of the gold span it overlaps most, or ``none`` when it overlaps none (chatter
outside spans). Embeddings of the segments and of the user's input are computed once per example and reused
by every fit (validation, leave-one-author-out, final).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from training.annotator.data import LabelledReply
from voxeval.acts import Step
from voxeval.annotate._decode import NONE
from voxeval.annotate._encoder import Encoder
from voxeval.annotate._segment import Segment, segment
from voxeval.data import GoldSample


@dataclass(frozen=True)
class ReplyExample:
    """One gold reply cut into segments, each with its training label."""

    reply: LabelledReply
    """The labelled reply (with style, flaw, author, split)."""
    segments: tuple[Segment, ...]
    """The segmenter's output on the reply."""
    labels: tuple[str, ...]
    """Per segment: the label of the gold span it overlaps most, or ``none``."""
    variant: str = "original"
    """``original``, or ``asr`` for an ASR-style copy (see :func:`asr_variant`)."""

    @property
    def sample(self) -> GoldSample:
        """The gold row."""
        return self.reply.sample


@dataclass(frozen=True)
class Embedded:
    """Embeddings of every example: per example its segments' rows, and its user input's row."""

    segments: list[np.ndarray]
    """Per example, shape ``(len(segments), 512)``."""
    users: np.ndarray
    """Shape ``(len(examples), 512)``; zeros for a blank input."""
    backgrounds: np.ndarray
    """Shape ``(len(examples), 512)``: the scenario backgrounds; zeros when blank."""


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


def examples_from(replies: Sequence[LabelledReply], *, asr_variants: bool = False) -> list[ReplyExample]:
    """Segment-level training examples of labelled replies, and of their ASR-style copies when asked."""
    examples = []
    for reply in replies:
        if asr_variants and reply.sample.language != "ja":
            raise ValueError("ASR-style copies rewrite Japanese punctuation only (asr_variants with Japanese rows)")
        versions = [("original", reply)]
        if asr_variants and reply.sample.acts:
            versions.append(("asr", replace(reply, sample=asr_variant(reply.sample))))
        for variant, version in versions:
            segments = segment(version.sample.output_text, version.sample.language)
            if segments:
                examples.append(ReplyExample(version, segments, label_segments(version.sample, segments), variant))
    return examples


def embed_examples(examples: Sequence[ReplyExample], encoder: Encoder) -> Embedded:
    """Embed every segment, user input and background in one batched call."""
    texts = [s.text for ex in examples for s in ex.segments]
    n = len(texts)
    contexts = [ex.sample.input_text for ex in examples] + [ex.sample.background for ex in examples]
    vectors = encoder.encode(texts + contexts)
    bounds = np.cumsum([0, *(len(ex.segments) for ex in examples)])
    segments = [vectors[a:b] for a, b in itertools.pairwise(bounds)]
    return Embedded(segments, vectors[n : n + len(examples)], vectors[n + len(examples) :])


def segmentation_ceiling(examples: Sequence[ReplyExample]) -> float:
    """Share of examples whose gold steps the segmenter can reproduce exactly (same labels and spans)."""
    from voxeval.annotate._decode import merge_runs

    hits = 0
    for ex in examples:
        groups = merge_runs(ex.segments, ex.labels)
        got = [(label, ex.sample.output_text[a:b].strip()) for label, a, b in groups]
        hits += got == [(s.act, (s.span or "").strip()) for s in ex.sample.acts]
    return hits / max(len(examples), 1)


class CachedEncoder(Encoder):
    """An encoder that remembers every text it has embedded (training embeds the same garbage in several folds)."""

    def __init__(self, inner: Encoder) -> None:
        super().__init__()
        self._inner = inner
        self._memo: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings as :meth:`Encoder.encode`, each distinct text computed once per process."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            for text, vector in zip(todo, self._inner.encode(todo), strict=True):
                self._memo[text] = vector
        if not texts:
            return self._inner.encode([])
        return np.stack([self._memo[t] for t in texts])
