"""One batch of ``voxeval score`` as a pure function, and the worker processes that run batches side by side.

:func:`score_rows` takes everything it needs as arguments (ids, both sides' acts) and returns the rows' bytes,
so it runs the same in this process or in a worker. :class:`Lanes` hands such calls to a small process pool, a
bounded number ahead, and gives the results back in the order the calls were made: the output, and the order
in which errors are found, do not depend on whether workers are used.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from voxeval import native
from voxeval.acts import LABELS, Step
from voxeval.data import dumps
from voxeval.data._fast import ActsBlock
from voxeval.data._index import Decode, LineBlock, decode_inline, decode_range, extent, normalised
from voxeval.io import dumps_str
from voxeval.metrics import batch_rows, pad, score_batch, score_sample

KERNEL_MAX = 12
"""Pairs with a sequence longer than this are scored one by one (a batch pads to its longest sequence)."""
_LENGTH_GROUPS = ((0, 3), (3, 6), (6, KERNEL_MAX), (KERNEL_MAX, 1 << 62))
COLUMNS = ("wlcs", "gold_coverage", "wed", "deletion", "insertion", "substitution")
"""The per-sample numbers :func:`score_rows` returns, in this order."""
WORKERS_FROM_BYTES = 1 << 25
"""Inputs (gold + predictions) smaller than this are scored in this process: a pool costs more than it saves."""

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Flat = tuple[npt.NDArray[np.int8], F64, I64]
"""Acts of a batch: concatenated label codes, normalised weights, and each pair's length."""
Scored = tuple[bytes, I64, F64]
"""Rows of a batch (UTF-8, in batch order), each row's length in bytes, and their ``COLUMNS`` values."""


def take(starts: I64, lengths: I64) -> I64:
    """Indices of the concatenated runs ``[start, start + length)`` of a flat array."""
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))


def _part(flat: Flat, starts: I64, rows: I64) -> Flat:
    at = take(starts[rows], flat[2][rows])
    return flat[0][at], flat[1][at], flat[2][rows]


def _kernel(ids: list[str], gold: Flat, pred: Flat, missing: list[bool]) -> tuple[bytes, I64, F64]:
    scores = score_batch(pad(*gold, fill=-1), pad(*pred, fill=-2))
    rows = batch_rows(ids, scores, missing)
    values = [scores.wlcs, scores.gold_coverage, rows.wed, rows.deletion, rows.insertion, rows.substitution]
    return rows.data, rows.ends, np.asarray(values)


def _acts(codes: list[int], weights: list[float]) -> tuple[Step, ...]:
    return tuple(Step(LABELS[c], w) for c, w in zip(codes, weights, strict=True))


def _scalar(ids: list[str], gold: Flat, pred: Flat, missing: list[bool]) -> tuple[bytes, I64, F64]:
    text: list[bytes] = []
    values = []
    g_codes, g_weights, g_len = gold[0].tolist(), gold[1].tolist(), gold[2].tolist()
    p_codes, p_weights, p_len = pred[0].tolist(), pred[1].tolist(), pred[2].tolist()
    sides = zip(accumulate(g_len), g_len, accumulate(p_len), p_len, strict=True)
    for sample_id, miss, (g_end, g_n, p_end, p_n) in zip(ids, missing, sides, strict=True):
        g = _acts(g_codes[g_end - g_n : g_end], g_weights[g_end - g_n : g_end])
        p = _acts(p_codes[p_end - p_n : p_end], p_weights[p_end - p_n : p_end])
        score = score_sample(sample_id, g, p, missing=miss)
        text.append((dumps(score.to_json()) + "\n").encode("utf-8"))
        e = score.edit
        values.append([score.wlcs, score.gold_coverage, e.total, e.deletion, e.insertion, e.substitution])
    return b"".join(text), np.cumsum(list(map(len, text)), dtype=np.int64), np.asarray(values).T


def score_rows(ids: list[str], gold: Flat, block: ActsBlock, missing: npt.NDArray[np.bool_]) -> Scored:
    """Score a batch of (gold acts, prediction row) pairs: ``missing`` marks pairs without a prediction.

    The compiled kernel writes the rows when it is built and takes the batch; else the numpy kernel (same bytes).
    """
    pred: Flat = (block.codes, normalised(block.weights, block.totals, block.lengths), block.lengths)
    found = native.rows(list(map(dumps_str, ids)), gold, pred, missing)
    if found is not None:
        return found
    return numpy_rows(ids, gold, pred, missing)


def numpy_rows(ids: list[str], gold: Flat, pred: Flat, missing: npt.NDArray[np.bool_]) -> Scored:
    """:func:`score_rows` by the numpy kernel (and one by one for long sequences)."""
    g_start, p_start = np.cumsum(gold[2]) - gold[2], np.cumsum(pred[2]) - pred[2]
    # A batch pads to its longest sequences, so pairs go in groups of similar length; long ones one by one.
    longest = np.maximum(gold[2], pred[2])
    rows: list[bytes] = [b""] * len(ids)
    lengths = np.zeros(len(ids), dtype=np.int64)
    values = np.zeros((len(COLUMNS), len(ids)))
    for lo, hi in _LENGTH_GROUPS:
        part = np.flatnonzero((longest > lo) & (longest <= hi))
        if not part.size:
            continue
        score = _kernel if hi <= KERNEL_MAX else _scalar
        part_ids, part_missing = list(map(ids.__getitem__, part.tolist())), missing[part].tolist()
        data, ends, values[:, part] = score(
            part_ids, _part(gold, g_start, part), _part(pred, p_start, part), part_missing
        )
        lengths[part] = np.diff(ends, prepend=0)
        if part.size == len(ids):
            rows = [data]
        else:  # back into batch order, so that rows in gold order stay so
            cuts = map(slice, (ends - lengths[part]).tolist(), ends.tolist())
            list(map(rows.__setitem__, part.tolist(), map(data.__getitem__, cuts)))
    return b"".join(rows), lengths, values


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Pending(Protocol[T_co]):
    """A call's result, now or later."""

    def result(self) -> T_co: ...


@dataclass(frozen=True)
class _Done(Generic[T]):
    value: T

    def result(self) -> T:
        return self.value


class Lanes:
    """Calls run in a process pool (or inline without one), at most ``window`` ahead, results in call order."""

    def __init__(self, pool: Executor | None, window: int = 4) -> None:
        self.pool, self.window = pool, window

    def submit(self, fn: Callable[..., T], *args: Any) -> Pending[T]:
        """Start ``fn(*args)``; inline, it has already run."""
        return _Done(fn(*args)) if self.pool is None else self.pool.submit(fn, *args)

    def decoder(self, decode: Decode, path: str, blocks: Iterable[LineBlock]) -> Iterator[tuple[LineBlock, Any]]:
        """A :data:`~voxeval.data._index.BlockDecoder`; a worker reads its block from the file itself."""
        if self.pool is None:
            return decode_inline(decode, path, blocks)
        return self.map(decode_range, blocks, key=lambda block: (decode, path, *extent(block)))

    def map(self, fn: Callable[..., T], items: Iterable[Any], key: Callable[[Any], tuple[Any, ...]]) -> Iterator[Any]:
        """``(item, fn(*key(item)))`` for each item, in order, with up to ``window`` calls running ahead."""
        pending: deque[tuple[Any, Pending[T]]] = deque()
        for item in items:
            pending.append((item, self.submit(fn, *key(item))))
            if len(pending) > self.window:
                done, result = pending.popleft()
                yield done, result.result()
        while pending:
            done, result = pending.popleft()
            yield done, result.result()


@contextmanager
def lanes(input_bytes: int) -> Iterator[Lanes]:
    """Worker processes for a large input on a machine with more than one core; inline otherwise."""
    cores = len(os.sched_getaffinity(0))
    if cores < 2 or input_bytes < WORKERS_FROM_BYTES:
        yield Lanes(None)
        return
    # Forked here, while this process is still small (the workers get only their tasks' data) and before the
    # caller starts any thread (a fork copies no thread, but would copy a lock one of them held).
    # Not multiprocessing.Pool: its worker-handler thread wakes whenever a result is waiting in the pipe and
    # spins while a large result is read, taking the CPU the workers need.
    pool = ProcessPoolExecutor(min(cores, 2), mp_context=multiprocessing.get_context("fork"))
    try:
        pool.submit(os.getpid).result()  # a fork-context pool starts all its processes at the first task
        yield Lanes(pool, window=2 * min(cores, 2))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
