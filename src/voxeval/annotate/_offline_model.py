"""The offline annotator's trained model: plain numpy arrays, prediction, and its pickle-free artefact files.

An artefact is two files under ``voxeval/annotate/artefacts/``: ``NAME.npz`` (arrays only, read with
``allow_pickle=False``) and ``NAME.json`` (labels, n-gram vocabulary, training-data sha256, settings, metrics).
Both are written byte-for-byte reproducibly (fixed zip timestamps, sorted JSON keys).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.acts import LABELS, Label, Step, normalise
from voxeval.annotate._features import EMBED_DIM, hand_features, user_flags
from voxeval.annotate._segment import Segment
from voxeval.errors import ConfigError

NONE = "none"
"""Class of text the gold leaves outside every span (social formulae)."""

CLASSES: tuple[str, ...] = (*LABELS, NONE)
"""Segment classes: the seven labels, then ``none``."""

ARRAY_NAMES = ("mean", "scale", "coef", "intercept", "transitions", "importance_coef")
"""Arrays stored in the ``.npz``."""

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Fixed timestamp of every member of a written ``.npz``, so equal arrays give equal bytes."""


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
    """Linear weights over :func:`importance_features`: a step's log-importance up to a per-reply constant."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Training settings, kept for the JSON side."""

    def features(self, segments: Sequence[Segment], user_input: str, seg_emb: np.ndarray) -> np.ndarray:
        """Raw (unstandardised) feature rows of one reply's segments."""
        return design_rows(segments, user_input, seg_emb, self.vocabulary)

    def proba(self, rows: np.ndarray) -> np.ndarray:
        """Class probabilities of feature rows, shape ``(n, len(CLASSES))``."""
        z = ((rows - self.mean) / self.scale) @ self.coef.T + self.intercept
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return out

    def decode(self, proba: np.ndarray) -> list[int]:
        """Most likely class sequence (Viterbi over log-probabilities plus weighted transition scores)."""
        return viterbi(np.log(np.clip(proba, 1e-12, None)), self.transitions, self.transition_weight)

    def steps(
        self, reply: str, segments: Sequence[Segment], classes: Sequence[int], user_input: str
    ) -> tuple[Step, ...]:
        """Merge runs of equal labels into steps (``none`` segments dropped) and give them importances."""
        groups = merge_runs(segments, [CLASSES[c] for c in classes])
        if not groups:
            return ()
        labels = [label for label, _, _ in groups]
        spans = [reply[a:b] for _, a, b in groups]
        return importance_steps(self.importance_coef, labels, spans, user_input)


def design_rows(
    segments: Sequence[Segment], user_input: str, seg_emb: np.ndarray, vocabulary: Sequence[str]
) -> np.ndarray:
    """Feature rows ``[segment embedding | hand features]`` of one reply."""
    hand = hand_features(segments, user_input, vocabulary)
    return np.hstack([seg_emb.reshape(len(segments), EMBED_DIM), hand]).astype(np.float64)


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


def merge_runs(segments: Sequence[Segment], labels: Sequence[str]) -> list[tuple[Label, int, int]]:
    """``(label, start, end)`` for each run of adjacent segments with the same label; ``none`` runs dropped."""
    groups: list[tuple[Label, int, int]] = []
    previous: str | None = None
    for seg, label in zip(segments, labels, strict=True):
        if label != NONE and label == previous:
            act, start, _ = groups[-1]
            groups[-1] = (act, start, seg.end)
        elif label != NONE:
            groups.append((_as_label(label), seg.start, seg.end))
        previous = label
    return groups


def _as_label(name: str) -> Label:
    for label in LABELS:
        if label == name:
            return label
    raise ValueError(f"not a dialogue-act label: {name!r}")


IMPORTANCE_FEATURES = (
    *(f"label={label}" for label in LABELS),
    *(f"first*label={label}" for label in LABELS),
    *(f"asks*label={label}" for label in LABELS),
    "is_first",
    "is_last",
    "relative_position",
    "share_of_reply",
)
"""Columns of :func:`importance_features`."""


def importance_features(labels: Sequence[str], spans: Sequence[str], user_input: str) -> np.ndarray:
    """Per-step features for the importance model (label, position, share of the reply, user asks × label)."""
    n = len(labels)
    asks = user_flags(user_input)["user_asks"]
    total = sum(len(s) for s in spans) or 1
    rows = np.zeros((n, len(IMPORTANCE_FEATURES)))
    k = len(LABELS)
    for i, label in enumerate(labels):
        j = LABELS.index(_as_label(label))
        rows[i, j] = 1.0
        rows[i, k + j] = 1.0 if i == 0 else 0.0
        rows[i, 2 * k + j] = asks
        rows[i, 3 * k :] = [i == 0, i == n - 1, i / (n - 1) if n > 1 else 0.0, len(spans[i]) / total]
    return rows


def importance_steps(
    coef: np.ndarray, labels: Sequence[Label], spans: Sequence[str], user_input: str
) -> tuple[Step, ...]:
    """Steps with importances ``softmax(features @ coef)``; the central (top-scoring) step has the unique maximum."""
    if len(labels) == 1:
        return (Step(labels[0], 1.0, span=spans[0]),)
    score = importance_features(labels, spans, user_input) @ coef
    weights = np.exp(score - score.max())
    weights /= weights.sum()
    top = int(np.argmax(weights))
    runner_up = max(float(w) for i, w in enumerate(weights) if i != top)
    if weights[top] - runner_up < 1e-3:
        weights[top] = runner_up + 1e-3  # keep the central act strictly first after normalising
    raw = [Step(label, float(w), span=span) for label, w, span in zip(labels, weights, spans, strict=True)]
    return normalise(raw)


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, member.getvalue())
    return buffer.getvalue()


def artefact_bytes(model: OfflineModel, meta: dict[str, Any]) -> tuple[bytes, bytes]:
    """The ``.npz`` and ``.json`` bytes of an artefact (the JSON gets the vocabulary and the npz's sha256)."""
    arrays = {
        "mean": model.mean.astype(np.float32),
        "scale": model.scale.astype(np.float32),
        "coef": model.coef.astype(np.float32),
        "intercept": model.intercept.astype(np.float32),
        "transitions": model.transitions.astype(np.float32),
        "importance_coef": model.importance_coef.astype(np.float32),
    }
    npz = _npz_bytes(arrays)
    full = {
        **meta,
        "classes": list(CLASSES),
        "vocabulary": list(model.vocabulary),
        "transition_weight": model.transition_weight,
        "importance_features": list(IMPORTANCE_FEATURES),
        "settings": model.settings,
        "arrays": {name: list(arrays[name].shape) for name in sorted(arrays)},
        "npz_sha256": hashlib.sha256(npz).hexdigest(),
    }
    text = json.dumps(full, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    return npz, text.encode("utf-8")


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
    with np.load(io.BytesIO(npz), allow_pickle=False) as z:
        arrays = {name: z[name].astype(np.float64) for name in ARRAY_NAMES}
    model = OfflineModel(
        vocabulary=tuple(meta["vocabulary"]),
        transition_weight=float(meta["transition_weight"]),
        settings=dict(meta.get("settings", {})),
        **arrays,
    )
    return Artefact(model, meta, digest, hashlib.sha256(meta_bytes).hexdigest())
