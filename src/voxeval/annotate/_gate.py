"""The reply gate: does this text perform anything for this user's request, or is it noise or another exchange's reply?

A logistic model over reply-level features — the surface statistics of ``_surface`` (scripts, mojibake, known
character bigrams), the sentence-embedding agreement of the reply with the user's input and with the scenario
background, the characters and character bigrams they share, and how the reply's topic agrees with the
request's. Topics are read against the gate's *anchors*: the mean embedding of the training inputs of each
domain. A reply closer to another domain's requests than to its own request, or whose topic profile over the
anchors differs from the request's, looks like another exchange's reply. A learned pairwise *relevance* score adds
what the fixed cosines miss: a logistic model over ``[u*v, |u-v|, u.v]`` of the context's and the reply's unit
embeddings, trained on real (input, reply) pairs against (input, another domain's reply) pairs. A reply the gate
rejects gets no acts.
Trained on the training replies (kept) against garbage made from them (rejected), including each reply paired
with another training input: see ``training/annotator``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voxeval.annotate._features import topic_units
from voxeval.annotate._segment import Segment
from voxeval.annotate._surface import SURFACE_FEATURES, surface_features

_CONTENT_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u30a0-\u30ffA-Za-z0-9０-９Ａ-Ｚａ-ｚ]")
"""Characters that carry topic: kanji, katakana, Latin letters and digits."""
_CONTENT_RUN = re.compile(_CONTENT_CHAR.pattern + "{2,}")
"""Runs of two or more topic characters."""

TOPIC_TEMPERATURE = 0.05
"""Softmax temperature of a text's topic profile (its cosines to the anchors)."""

GATE_FEATURES = (
    *SURFACE_FEATURES,
    "min_segment_bigram_known",
    "cos_reply_user",
    "max_cos_segment_user",
    "cos_reply_background",
    "max_cos_segment_background",
    "user_chars_in_reply",
    "reply_chars_in_context",
    "user_blank",
    "background_blank",
    "log_segments",
    "reply_bigrams_in_context",
    "context_margin_over_anchors",
    "log_topic_agreement",
    "pair_relevance",
)
"""The gate's columns."""


def _content(text: str, language: str = "ja") -> set[str]:
    """Topic characters (Japanese, Mandarin) or content words (English: ``_features.topic_units``)."""
    if language == "en":
        return topic_units(text, language)
    return set(_CONTENT_CHAR.findall(text))


def _bigrams(text: str, language: str = "ja") -> set[str]:
    """Adjacent pairs of topic characters (e.g. ``タイ``, ``東京``, ``25``); in English, content words (a word
    pair shared by two texts is rare, a content word is the unit that carries the topic)."""
    if language == "en":
        return topic_units(text, language)
    return {run[k : k + 2] for run in _CONTENT_RUN.findall(text) for k in range(len(run) - 1)}


def topic_features(
    reply: str,
    reply_emb: np.ndarray,
    context: str,
    context_emb: np.ndarray,
    anchors: np.ndarray,
    language: str = "ja",
) -> list[float]:
    """The request-pairing columns: the share of the reply's topic bigrams found in the context (input and
    background), the reply's cosine to the context less its largest cosine to an anchor, and the log of the
    agreement (inner product) of the two topic profiles (softmax of the cosines to the anchors). Unit embeddings;
    a blank context gives ``shared, 0, log 1/k``."""
    reply_grams = _bigrams(reply, language)
    shared = len(reply_grams & _bigrams(context, language)) / max(len(reply_grams), 1)
    if not context.strip() or not len(anchors):
        return [shared, 0.0, float(np.log(1.0 / max(len(anchors), 1)))]
    reply_cos, context_cos = anchors @ reply_emb, anchors @ context_emb
    top = float(reply_cos.max())
    margin = float(reply_emb @ context_emb) - top
    reply_p = np.exp((reply_cos - top) / TOPIC_TEMPERATURE)
    context_p = np.exp((context_cos - float(context_cos.max())) / TOPIC_TEMPERATURE)
    agreement = float(reply_p @ context_p) / (float(reply_p.sum()) * float(context_p.sum()))
    return [shared, margin, float(np.log(agreement + 1e-6))]


def relevance_features(context_vec: np.ndarray, reply_vec: np.ndarray) -> np.ndarray:
    """The pairwise relevance model's input for unit embeddings: ``[u*v, |u-v|, u.v]`` (rows for 2-d input)."""
    prod = context_vec * reply_vec
    return np.concatenate([prod, np.abs(context_vec - reply_vec), prod.sum(axis=-1, keepdims=True)], axis=-1)


def relevance_score(weights: np.ndarray, context_vec: np.ndarray, reply_vec: np.ndarray) -> float:
    """The relevance model's log-odds that the reply answers the context (``weights``: coefficients, then the
    intercept)."""
    return float(relevance_features(context_vec, reply_vec) @ weights[:-1] + weights[-1])


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def gate_row(
    reply: str,
    segments: Sequence[Segment],
    seg_emb: np.ndarray,
    user_input: str,
    user_emb: np.ndarray,
    background: str,
    background_emb: np.ndarray,
    table: np.ndarray,
    anchors: np.ndarray,
    relevance: np.ndarray,
    segment_surface: np.ndarray | None = None,
    language: str = "ja",
) -> np.ndarray:
    """The gate's feature row of one reply (:data:`GATE_FEATURES`) given the topic ``anchors`` (unit rows) and the
    pairwise ``relevance`` weights; ``segment_surface`` (the segments' :func:`surface_features` rows) is computed
    when not given."""
    if segment_surface is None:
        segment_surface = np.array([surface_features(s.text, table, language) for s in segments])
    reply_emb = _unit(seg_emb.mean(axis=0))
    user_vec, background_vec = _unit(user_emb), _unit(background_emb)
    user_chars, reply_chars = _content(user_input, language), _content(reply, language)
    context = user_chars | _content(background, language)
    context_vec = _unit(user_vec + background_vec)
    named = [
        *surface_features(reply, table, language),
        float(segment_surface[:, SURFACE_FEATURES.index("bigram_known")].min()),
        float(reply_emb @ user_vec),
        float(np.max(seg_emb @ user_vec)),
        float(reply_emb @ background_vec),
        float(np.max(seg_emb @ background_vec)),
        len(user_chars & reply_chars) / max(len(user_chars), 1),
        len(reply_chars & context) / max(len(reply_chars), 1),
        0.0 if user_input.strip() else 1.0,
        0.0 if background.strip() else 1.0,
        float(np.log(len(segments))),
        *topic_features(reply, reply_emb, f"{user_input}\n{background}", context_vec, anchors, language),
        relevance_score(relevance, context_vec, reply_emb),
    ]
    return np.array(named, dtype=np.float64)


@dataclass(frozen=True)
class Gate:
    """Logistic gate: ``P(reply performs acts for this input)``; below ``threshold`` the reply gets no acts."""

    mean: np.ndarray
    """Per-feature mean used to standardise."""
    scale: np.ndarray
    """Per-feature scale used to standardise."""
    coef: np.ndarray
    """Weights over the standardised features."""
    intercept: float
    """Bias."""
    threshold: float
    """Smallest probability at which a reply is annotated."""
    anchors: np.ndarray
    """Topic anchors, shape ``(k, 512)``: the unit mean embedding of the training inputs of each domain."""
    relevance: np.ndarray
    """The pairwise relevance model's weights, shape ``(2 * 512 + 2,)``: coefficients, then the intercept."""

    def probability(self, row: np.ndarray) -> float:
        """``P(real reply)`` of one feature row."""
        z = float(((row - self.mean) / self.scale) @ self.coef + self.intercept)
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0))))

    def passes(self, row: np.ndarray) -> bool:
        """Whether the reply is annotated at all."""
        return self.probability(row) >= self.threshold
