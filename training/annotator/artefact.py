"""Writing the offline annotator's artefact: a pickle-free ``.npz`` and a ``.json``, byte-for-byte reproducible."""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.annotate._artefact import STACK_PREFIX, Artefact, load_artefact
from voxeval.annotate._boundary import BOUNDARY_FEATURES
from voxeval.annotate._decode import CLASSES
from voxeval.annotate._gate import GATE_FEATURES
from voxeval.annotate._importance import IMPORTANCE_FEATURES
from voxeval.annotate._offline_model import OfflineModel
from voxeval.annotate._stack import stack_names
from voxeval.annotate._surface import BIGRAM_BITS

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
"""Fixed timestamp of every member of a written ``.npz``, so equal arrays give equal bytes."""


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


def _tree_array(a: np.ndarray) -> np.ndarray:
    """A tree array as stored: node numbers and columns as int32, flags as uint8, values as float64."""
    if a.dtype == bool:
        return a.astype(np.uint8)
    return a.astype(np.int32) if np.issubdtype(a.dtype, np.integer) else a.astype(np.float64)


def artefact_bytes(model: OfflineModel, meta: dict[str, Any]) -> tuple[bytes, bytes]:
    """The ``.npz`` and ``.json`` bytes of an artefact (the JSON gets the vocabulary and the npz's sha256)."""
    gate = model.gate
    empty = np.zeros(0, dtype=np.float32)
    arrays: dict[str, np.ndarray] = {
        "mean": model.mean.astype(np.float32),
        "scale": model.scale.astype(np.float32),
        "coef": model.coef.astype(np.float32),
        "intercept": model.intercept.astype(np.float32),
        "transitions": model.transitions.astype(np.float32),
        "importance_coef": model.importance_coef.astype(np.float32),
        "boundary_coef": model.boundary_coef.astype(np.float32),
        "bigrams": np.packbits(model.bigrams.astype(np.uint8)),
        "gate_mean": gate.mean.astype(np.float32) if gate else empty,
        "gate_scale": gate.scale.astype(np.float32) if gate else empty,
        "gate_coef": gate.coef.astype(np.float32) if gate else empty,
        "gate_anchors": gate.anchors.astype(np.float32) if gate else empty.reshape(0, 0),
        "gate_relevance": gate.relevance.astype(np.float32) if gate else empty,
    }
    if model.stack is not None:
        # full precision: a float32 threshold or leaf value would move the trees' decisions off the fitted model's
        arrays |= {STACK_PREFIX + name: _tree_array(a) for name, a in model.stack.arrays().items()}
    npz = _npz_bytes(arrays)
    # the language is recorded for English and Mandarin; Japanese artefacts (offline-v3) stay byte-identical and
    # a loader reads a missing language as Japanese
    full = {
        **meta,
        **({"language": model.language} if model.language != "ja" else {}),
        "classes": list(CLASSES),
        "tags": list(model.tags),
        "vocabulary": list(model.vocabulary),
        "transition_weight": model.transition_weight,
        "importance_features": list(IMPORTANCE_FEATURES),
        "boundary_features": list(BOUNDARY_FEATURES),
        "gate_features": list(GATE_FEATURES),
        "gate": None if gate is None else {"intercept": gate.intercept, "threshold": round(gate.threshold, 6)},
        "answers": model.answers,
        "stack": None
        if model.stack is None
        else {
            "features": stack_names(model.tags, model.stack_raw),
            "trees": len(model.stack.roots),
            "depth": model.stack.depth,
            **({"blend": model.stack_blend} if model.stack_blend else {}),
            **({"raw": True} if model.stack_raw else {}),
        },
        "bigram_bits": BIGRAM_BITS,
        "settings": model.settings,
        "arrays": {name: list(arrays[name].shape) for name in sorted(arrays)},
        "npz_sha256": hashlib.sha256(npz).hexdigest(),
    }
    text = json.dumps(full, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    return npz, text.encode("utf-8")


def as_loaded(model: OfflineModel, meta: dict[str, Any]) -> Artefact:
    """The model as the runtime will load it (float32 arrays), for evaluating exactly what is shipped."""
    npz, text = artefact_bytes(model, meta)
    with tempfile.TemporaryDirectory() as tmp:
        npz_path, json_path = Path(tmp) / "m.npz", Path(tmp) / "m.json"
        npz_path.write_bytes(npz)
        json_path.write_bytes(text)
        return load_artefact(npz_path, json_path)
