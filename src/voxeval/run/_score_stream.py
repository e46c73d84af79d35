"""``voxeval score`` on files of any size in flat memory: the same outputs and errors as the in-memory scorer.

Gold is held as arrays (:class:`~voxeval.data._index.GoldIndex`), predictions stream in batches through the
numpy kernel, and each batch's rows are appended to a spill file next to the outputs, which becomes
``scores.jsonl`` (in gold order) at the end. Only per-sample numbers (a few arrays) grow with the input.
On a large input, decoding blocks and scoring batches run in two worker processes (:mod:`._score_rows`);
this process keeps the state, checks ids and writes, in file order, so outputs and errors do not change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import os
import tempfile
from collections import deque
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import numpy.typing as npt

from voxeval.data import atomic_write_json, atomic_write_text
from voxeval.data._fast import ActsBlock
from voxeval.data._index import (
    Digest,
    GoldIndex,
    PredictionBlock,
    block_of,
    iter_prediction_blocks,
    load_gold_index,
    prediction_at,
)
from voxeval.errors import InputError, Location
from voxeval.metrics import Summary, score_sample, summary_of
from voxeval.report import Representative, TableRow, render_markdown
from voxeval.run._score_rows import COLUMNS, Lanes, Pending, Scored, lanes, score_rows, take

SYNC_EVERY = 1 << 25
"""Spilled bytes after which the spill file is synced to disk in the background (the last sync is then short)."""
BATCH = 4096
"""Missing predictions scored per batch (predictions are scored a file block at a time)."""
_NONE, _SCORED, _FAILED = 0, 1, 2


class _Stream:
    """State of one scoring: per-gold arrays, the spill file of rows, failures and extra ids."""

    def __init__(self, gold: GoldIndex, spill: IO[bytes], workers: Lanes, syncer: Executor) -> None:
        n = len(gold)
        self.gold, self.spill, self.workers, self.syncer = gold, spill, workers, syncer
        self.synced = 0
        self.syncing: Future[None] | None = None
        self.status = np.zeros(n, dtype=np.int8)
        self.pred_line = np.zeros(n, dtype=np.int64)
        self.pred_offset = np.zeros(n, dtype=np.int64)
        self.row_offset = np.zeros(n, dtype=np.int64)
        self.row_length = np.zeros(n, dtype=np.int64)
        self.values = np.zeros((len(COLUMNS), n))
        self.failures: dict[int, str] = {}
        self.extra: dict[str, int] = {}
        self.written = 0
        self.ids = list(gold.ids)
        self.gold_lengths = np.diff(gold.starts)
        self.pending: deque[tuple[npt.NDArray[np.int64], Pending[Scored]]] = deque()

    def flush(self, pos: npt.NDArray[np.int64], block: ActsBlock, missing: npt.NDArray[np.bool_]) -> None:
        """Score a batch of (gold position, prediction row) pairs; ``missing``: no prediction. Spilled in order."""
        if not pos.size:
            return
        g_len = self.gold_lengths[pos]
        at = take(self.gold.starts[pos], g_len)
        gold = (self.gold.codes[at], self.gold.weights[at], g_len)
        ids = list(map(self.ids.__getitem__, pos.tolist()))
        acts = dataclasses.replace(block, ids=[], failures={})  # score_rows takes the ids from `ids`: not sent twice
        self.pending.append((pos, self.workers.submit(score_rows, ids, gold, acts, missing)))
        while len(self.pending) > self.workers.window:
            self._land()

    def drain(self) -> None:
        """Spill every batch still being scored."""
        while self.pending:
            self._land()

    def _land(self) -> None:
        pos, result = self.pending.popleft()
        data, lengths, values = result.result()
        self.row_offset[pos] = self.written + np.cumsum(lengths) - lengths
        self.row_length[pos] = lengths
        self.values[:, pos] = values
        self.status[pos] = _SCORED
        self.spill.write(data)
        self.written += len(data)
        if self.written - self.synced >= SYNC_EVERY and (self.syncing is None or self.syncing.done()):
            self.settle()
            self.spill.flush()  # the kernel has the bytes; fsync (which releases the GIL) writes them meanwhile
            self.syncing = self.syncer.submit(os.fsync, self.spill.fileno())
            self.synced = self.written

    def settle(self) -> None:
        """Wait for the background sync, raising its error."""
        if self.syncing is not None:
            self.syncing.result()
            self.syncing = None


def _subset(block: ActsBlock, rows: npt.NDArray[np.int64]) -> ActsBlock:
    at = take((np.cumsum(block.lengths) - block.lengths)[rows], block.lengths[rows])
    ids = [block.ids[k] for k in rows.tolist()]
    return ActsBlock(ids, block.lengths[rows], block.codes[at], block.weights[at], block.totals[rows], {})


_Taken = tuple[npt.NDArray[np.int64], ActsBlock, npt.NDArray[np.bool_]]


def _take_columns(stream: _Stream, block: PredictionBlock, columns: ActsBlock) -> _Taken | None:
    """A block decoded whole, when all its ids are known and new; else ``None`` (the caller goes line by line)."""
    found = list(map(stream.gold.ids.get, columns.ids))
    if None in found:
        return None
    pos = np.array(found, dtype=np.int64)
    if stream.pred_line[pos].any():
        return None
    lines = np.arange(block.first, block.first + pos.size)
    stream.pred_line[pos] = lines
    if not np.array_equal(stream.pred_line[pos], lines):  # an id twice in the block: the later line won
        stream.pred_line[pos] = 0
        return None
    stream.pred_offset[pos] = block.offsets[: pos.size]
    if columns.failures:
        for k, reason in columns.failures.items():
            stream.status[pos[k]] = _FAILED
            stream.failures[int(pos[k])] = reason
        keep = np.setdiff1d(np.arange(pos.size), list(columns.failures))
        pos, columns = pos[keep], _subset(columns, keep)
    return pos, columns, np.zeros(pos.size, dtype=bool)


def _take_lines(stream: _Stream, block: PredictionBlock) -> _Taken:
    """A block line by line: errors (parse, duplicate id) in the order of the file's lines."""
    ids, positions, rows = stream.gold.ids, [], []
    for k in range(len(block.lines)):
        acts = block.parse(k)
        if acts is None:
            continue
        sample_id, line = acts[0], block.first + k
        position = ids.get(sample_id)
        first = stream.extra.get(sample_id) if position is None else int(stream.pred_line[position])
        if first:
            raise InputError(Location(block.path, line, "id"), f"duplicate id {sample_id!r} (first on line {first})")
        if position is None:
            stream.extra[sample_id] = line
            continue
        stream.pred_line[position], stream.pred_offset[position] = line, block.offsets[k]
        if acts[4] is not None:
            stream.status[position] = _FAILED
            stream.failures[position] = acts[4]
            continue
        positions.append(position)
        rows.append(acts)
    return np.array(positions, dtype=np.int64), block_of(rows), np.zeros(len(rows), dtype=bool)


def _read_predictions(stream: _Stream, pred_path: Path, digest: Digest) -> None:
    for block in iter_prediction_blocks(pred_path, stream.workers.decoder, digest):
        taken = None if block.columns is None else _take_columns(stream, block, block.columns)
        stream.flush(*(taken or _take_lines(stream, block)))
    stream.drain()  # every row's status is known from here on


def _score_absent(stream: _Stream) -> None:
    """The model said nothing we can score: count it as an empty reply, and report it."""
    absent = np.flatnonzero(stream.status == _NONE)
    for k in range(0, absent.size, BATCH):
        pos = absent[k : k + BATCH]
        empty = np.zeros(pos.size, dtype=np.int64)
        ids = list(map(stream.ids.__getitem__, pos.tolist()))
        block = ActsBlock(ids, empty, np.zeros(0, dtype=np.int8), np.zeros(0), np.zeros(pos.size), {})
        stream.flush(pos, block, np.ones(pos.size, dtype=bool))
    stream.drain()


def _write_in_gold_order(stream: _Stream, spill: IO[bytes], target: Path) -> None:
    """``scores.jsonl``: the spilled rows in gold order (a rename when they already are), atomically."""
    order = np.flatnonzero(stream.status == _SCORED)
    start, length = stream.row_offset[order], stream.row_length[order]
    spill.flush()
    stream.settle()
    if np.array_equal(start, np.cumsum(length) - length):
        os.fsync(spill.fileno())  # what the background syncs left
        os.replace(spill.name, target)
        return
    # Copy runs of rows that are contiguous in the spill file, a bounded read at a time.
    breaks = np.flatnonzero(start[1:] != start[:-1] + length[:-1]) + 1
    run_lo, run_hi = np.concatenate(([0], breaks)), np.concatenate((breaks, [order.size]))
    fd, tmp = tempfile.mkstemp(prefix=".scores.jsonl.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for lo, hi in zip(run_lo.tolist(), run_hi.tolist(), strict=True):
                begin, end = int(start[lo]), int(start[hi - 1] + length[hi - 1])
                for at in range(begin, end, 1 << 24):
                    out.write(os.pread(spill.fileno(), min(1 << 24, end - at), at))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    Path(spill.name).unlink(missing_ok=True)


def _summary(stream: _Stream) -> Summary:
    keep = stream.status == _SCORED
    missing = np.flatnonzero(keep & (stream.pred_line == 0)).tolist()
    every = bool(keep.all())
    columns = [stream.values[k] if every else stream.values[k, keep] for k in range(len(COLUMNS))]
    excluded = {stream.ids[p]: stream.failures[p] for p in sorted(stream.failures)}
    return summary_of(*columns, missing_ids=tuple(stream.ids[p] for p in missing), excluded=excluded)


_PICKS = (
    ("largest insertion", "insertion", True),
    ("largest deletion", "deletion", True),
    ("largest substitution", "substitution", True),
    ("smallest distance", "wed", False),
)


def _representatives(stream: _Stream, pred_path: Path, system: str) -> list[Representative]:
    """Table 2 from the arrays: the picks of :func:`~voxeval.report.representatives`, rows read again."""
    keep = np.flatnonzero(stream.status == _SCORED)
    reps: list[Representative] = []
    if not keep.size:
        return reps
    for name, column, largest in _PICKS:
        values = stream.values[COLUMNS.index(column), keep]
        at = int(np.argmax(values) if largest else np.argmin(values))  # the first of equals: dataset order
        if largest and values[at] == 0.0:
            continue
        position = int(keep[at])
        sample = stream.gold.sample(position)
        line = int(stream.pred_line[position])
        pred = prediction_at(pred_path, line, int(stream.pred_offset[position])) if line else None
        score = score_sample(sample.id, sample.acts, pred.acts if pred else (), missing=pred is None)
        value = score.edit.total if column == "wed" else getattr(score.edit, column)
        reps.append(Representative(f"{name} (={value:.2f})", score, sample, pred, system))
    return reps


class _BackgroundSha256:
    """sha256 of the bytes given to :meth:`update`, hashed in order in a thread (hashlib releases the GIL).

    Hashing both files of a 1M-pair input takes ~1 s of CPU; here it overlaps the main thread's own work. At
    most ``ahead`` pieces wait to be hashed, so the bytes held stay bounded.
    """

    def __init__(self, hasher: Executor, ahead: int = 8) -> None:
        self._hash, self._hasher, self._ahead = hashlib.sha256(), hasher, ahead
        self._pending: deque[Future[None]] = deque()

    def update(self, data: bytes, /) -> None:
        self._pending.append(self._hasher.submit(self._hash.update, data))
        while len(self._pending) > self._ahead:
            self._pending.popleft().result()

    def hexdigest(self) -> str:
        while self._pending:
            self._pending.popleft().result()
        return self._hash.hexdigest()


@dataclass(frozen=True)
class ScoredFiles:
    """What :func:`score_files` scored: Table 1's row, and the sha256 of the two files as they were read."""

    row: TableRow
    gold_sha256: str
    pred_sha256: str


def score_files(
    gold_path: Path, pred_path: Path, out_dir: Path, *, dataset: str, system: str, ignore_extra: bool = False
) -> ScoredFiles:
    """Score a prediction file against a gold file and write ``scores.jsonl``, ``summary.json``, ``report.md``.

    Same results and errors as :func:`~voxeval.run.score_predictions` + :func:`~voxeval.run.write_score_outputs`
    on the loaded files. On any error nothing is left behind (not even ``out_dir``, when this call made it).
    The files are hashed while they are read (no second read to record them).
    """
    # Scoring allocates millions of short-lived containers and makes no reference cycles: the cyclic collector
    # would only rescan them again and again (a third of the decoding time), so it is paused for the call.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _score_files(gold_path, pred_path, out_dir, dataset=dataset, system=system, ignore_extra=ignore_extra)
    finally:
        if enabled:
            gc.enable()


def _score_files(
    gold_path: Path, pred_path: Path, out_dir: Path, *, dataset: str, system: str, ignore_extra: bool
) -> ScoredFiles:
    with (
        lanes(_size(gold_path) + _size(pred_path)) as workers,  # forks its workers now, before any thread starts
        ThreadPoolExecutor(1, thread_name_prefix="voxeval-sha256") as hasher,
    ):
        gold_digest, pred_digest = _BackgroundSha256(hasher), _BackgroundSha256(hasher)
        gold = load_gold_index(gold_path, workers.decoder, gold_digest)
        row = _score_against(
            gold, pred_path, out_dir, workers, pred_digest, dataset=dataset, system=system, ignore_extra=ignore_extra
        )
        return ScoredFiles(row, gold_digest.hexdigest(), pred_digest.hexdigest())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # missing or unreadable: the reader reports it
        return 0


def _score_against(
    gold: GoldIndex,
    pred_path: Path,
    out_dir: Path,
    workers: Lanes,
    pred_digest: Digest,
    *,
    dataset: str,
    system: str,
    ignore_extra: bool,
) -> TableRow:
    created = [p for p in (out_dir, *out_dir.parents) if not p.exists()]
    out_dir.mkdir(parents=True, exist_ok=True)
    spill = tempfile.NamedTemporaryFile(prefix=".scores.spill.", dir=out_dir, delete=False)  # noqa: SIM115
    try:
        with spill, ThreadPoolExecutor(1, thread_name_prefix="voxeval-spill-sync") as syncer:
            stream = _Stream(gold, spill, workers, syncer)
            _read_predictions(stream, pred_path, pred_digest)
            if stream.extra and not ignore_extra:
                raise InputError(
                    Location(str(pred_path), field="id"),
                    f"{len(stream.extra)} prediction id(s) not in the gold file "
                    f"(first: {next(iter(stream.extra))!r}); pass --ignore-extra to skip them",
                )
            _score_absent(stream)
            _write_in_gold_order(stream, spill, out_dir / "scores.jsonl")
    except BaseException:
        Path(spill.name).unlink(missing_ok=True)
        for path in created:  # innermost first; only directories this call made, and only while empty
            with contextlib.suppress(OSError):
                path.rmdir()
        raise
    row = TableRow(dataset, system, _summary(stream))
    atomic_write_json(out_dir / "summary.json", {"dataset": dataset, "system": system, **row.summary.to_json()})
    atomic_write_text(out_dir / "report.md", render_markdown([row], _representatives(stream, pred_path, system)))
    return row
