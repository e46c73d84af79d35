"""The offline annotator's pickle-free artefact files, checked and loaded into an :class:`OfflineModel`.

An artefact is two files under ``voxeval/annotate/artefacts/``: ``NAME.npz`` (arrays only, read with
``allow_pickle=False``) and ``NAME.json`` (labels, n-gram vocabulary, training-data sha256, settings, metrics).
They are written (byte-for-byte reproducibly) by the training code under ``training/annotator``.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.annotate._decode import CLASSES, TAGS
from voxeval.annotate._gate import GATE_FEATURES, Gate
from voxeval.annotate._offline_model import OfflineModel
from voxeval.annotate._patterns import LANGUAGES
from voxeval.annotate._stack import stack_names
from voxeval.annotate._trees import TREE_ARRAYS, TreeEnsemble
from voxeval.errors import ConfigError

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
    gate = _gate(meta, arrays, json_path)
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


def _gate(meta: dict[str, Any], arrays: dict[str, np.ndarray], json_path: Path) -> Gate | None:
    """The artefact's reply gate (``None`` when it has none), its features checked against this voxeval's."""
    if meta.get("gate") is None:
        return None
    if tuple(meta.get("gate_features", ())) != GATE_FEATURES:
        raise ConfigError(f"{json_path}: the gate's features differ from this voxeval's (retrain the artefact)")
    return Gate(
        mean=arrays["gate_mean"].astype(np.float64),
        scale=arrays["gate_scale"].astype(np.float64),
        coef=arrays["gate_coef"].astype(np.float64),
        intercept=float(meta["gate"]["intercept"]),
        threshold=float(meta["gate"]["threshold"]),
        anchors=arrays["gate_anchors"].astype(np.float64),
        relevance=arrays["gate_relevance"].astype(np.float64),
    )
