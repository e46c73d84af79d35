"""``voxeval score`` on files of any size in flat memory: the same outputs and errors as the in-memory scorer.

Gold is held as arrays (:class:`~voxeval.data._index.GoldIndex`), predictions stream in batches through the
numpy kernel, and each batch's rows are appended to a spill file next to the outputs, which becomes
``scores.jsonl`` (in gold order) at the end. Only per-sample numbers (a few arrays) grow with the input.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from array import array
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from voxeval.acts import LABELS, Acts, Step
from voxeval.data import atomic_write_json, atomic_write_text, dumps
from voxeval.data._fast import RawActs
from voxeval.data._index import GoldIndex, iter_prediction_blocks, load_gold_index, normalised, prediction_at
from voxeval.errors import InputError, Location
from voxeval.metrics import Summary, batch_rows, pad, score_batch, score_sample, summary_of
from voxeval.report import Representative, TableRow, render_markdown

BATCH = 4096
"""Predictions scored per numpy batch."""
KERNEL_MAX = 12
"""Pairs with a sequence longer than this are scored one by one (a batch pads to its longest sequence)."""
_LENGTH_GROUPS = ((0, 3), (3, 6), (6, KERNEL_MAX), (KERNEL_MAX, 1 << 62))
_NONE, _SCORED, _FAILED = 0, 1, 2
_Scored = tuple[list[str], npt.NDArray[np.float64]]
_COLUMNS = ("wlcs", "gold_coverage", "wed", "deletion", "insertion", "substitution")


class _Stream:
    """State of one scoring: per-gold arrays, the spill file of rows, failures and extra ids."""

    def __init__(self, gold: GoldIndex, spill: IO[bytes]) -> None:
        n = len(gold)
        self.gold, self.spill = gold, spill
        self.status = np.zeros(n, dtype=np.int8)
        self.pred_line = array("q", bytes(8 * n))
        self.pred_offset = array("q", bytes(8 * n))
        self.row_offset = np.zeros(n, dtype=np.int64)
        self.row_length = np.zeros(n, dtype=np.int64)
        self.values = np.zeros((len(_COLUMNS), n))
        self.failures: dict[int, str] = {}
        self.extra: dict[str, int] = {}
        self.written = 0
        self.ids = list(gold.ids)
        self.gold_lengths = np.diff(gold.starts)

    def flush(self, positions: list[int], acts: list[RawActs | None]) -> None:
        """Score a batch of (gold position, prediction acts or ``None`` for a missing one) and spill its rows."""
        if not positions:
            return
        pos = np.asarray(positions, dtype=np.int64)
        g_len = self.gold_lengths[pos]
        p_len = np.fromiter((0 if a is None else len(a[1]) for a in acts), dtype=np.int64, count=len(acts))
        # A batch pads to its longest sequences, so pairs go in groups of similar length; long ones one by one.
        longest = np.maximum(g_len, p_len)
        text: list[str] = [""] * len(acts)
        values = np.zeros((len(_COLUMNS), len(acts)))
        for lo, hi in _LENGTH_GROUPS:
            part = np.flatnonzero((longest > lo) & (longest <= hi))
            if part.size:
                chosen = [acts[k] for k in part.tolist()]
                if hi <= KERNEL_MAX:
                    got, values[:, part] = self._kernel(pos[part], chosen, g_len[part], p_len[part])
                else:
                    got, values[:, part] = self._scalar(pos[part], chosen)
                for k, row in zip(part.tolist(), got, strict=True):
                    text[k] = row
        self._spill(pos, text, values)  # in batch order, so that rows in gold order stay so

    def _kernel(self, pos: npt.NDArray[np.int64], acts: list[RawActs | None], g_len: Any, p_len: Any) -> _Scored:
        present = [a for a in acts if a is not None]
        take = np.repeat(self.gold.starts[pos] - np.cumsum(g_len) + g_len, g_len) + np.arange(int(g_len.sum()))
        gold = pad(self.gold.codes[take], self.gold.weights[take], g_len, fill=-1)
        weights = normalised([w for a in present for w in a[2]], [a[3] for a in present], [len(a[1]) for a in present])
        pred = pad([c for a in present for c in a[1]], weights, p_len, fill=-2)
        scores = score_batch(gold, pred)
        rows = batch_rows([self.ids[p] for p in pos.tolist()], scores, [a is None for a in acts])
        values = [scores.wlcs, scores.gold_coverage, rows.wed, rows.deletion, rows.insertion, rows.substitution]
        return rows.text, np.asarray(values)

    def _scalar(self, pos: npt.NDArray[np.int64], acts: list[RawActs | None]) -> _Scored:
        text, values = [], []
        for p, a in zip(pos.tolist(), acts, strict=True):
            pred: Acts = ()
            if a is not None:
                weights = normalised(a[2], [a[3]], [len(a[1])]).tolist()
                pred = tuple(Step(LABELS[c], w) for c, w in zip(a[1], weights, strict=True))
            score = score_sample(self.ids[p], self._gold_acts(p), pred, missing=a is None)
            text.append(dumps(score.to_json()) + "\n")
            e = score.edit
            values.append([score.wlcs, score.gold_coverage, e.total, e.deletion, e.insertion, e.substitution])
        return text, np.asarray(values).T

    def _spill(self, pos: npt.NDArray[np.int64], text: list[str], values: npt.NDArray[np.float64]) -> None:
        encoded = [t.encode("utf-8") for t in text]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        self.row_offset[pos] = self.written + np.cumsum(lengths) - lengths
        self.row_length[pos] = lengths
        self.values[:, pos] = values
        self.status[pos] = _SCORED
        self.spill.write(b"".join(encoded))
        self.written += int(lengths.sum())

    def _gold_acts(self, position: int) -> Acts:
        lo, hi = int(self.gold.starts[position]), int(self.gold.starts[position + 1])
        codes, weights = self.gold.codes[lo:hi].tolist(), self.gold.weights[lo:hi].tolist()
        return tuple(Step(LABELS[c], w) for c, w in zip(codes, weights, strict=True))


def _read_predictions(stream: _Stream, pred_path: Path) -> None:
    name, ids, pred_line, pred_offset = str(pred_path), stream.gold.ids, stream.pred_line, stream.pred_offset
    positions: list[int] = []
    batch: list[RawActs | None] = []
    for block in iter_prediction_blocks(pred_path):
        for k, acts in enumerate(block.acts):
            if acts is None:
                acts = block.parse(k)  # in line order, so errors come in the order the file has them
                if acts is None:
                    continue
            sample_id, line = acts[0], block.first + k
            position = ids.get(sample_id)
            if position is None:
                first = stream.extra.get(sample_id)
                if first is not None:
                    raise InputError(Location(name, line, "id"), f"duplicate id {sample_id!r} (first on line {first})")
                stream.extra[sample_id] = line
                continue
            first = pred_line[position]
            if first:
                raise InputError(Location(name, line, "id"), f"duplicate id {sample_id!r} (first on line {first})")
            pred_line[position], pred_offset[position] = line, block.offsets[k]
            if acts[4] is not None:
                stream.status[position] = _FAILED
                stream.failures[position] = acts[4]
                continue
            positions.append(position)
            batch.append(acts)
        if len(positions) >= BATCH:
            stream.flush(positions, batch)
            positions, batch = [], []
    stream.flush(positions, batch)


def _write_in_gold_order(stream: _Stream, spill: IO[bytes], target: Path) -> None:
    """``scores.jsonl``: the spilled rows in gold order (a rename when they already are), atomically."""
    order = np.flatnonzero(stream.status == _SCORED)
    start, length = stream.row_offset[order], stream.row_length[order]
    spill.flush()
    os.fsync(spill.fileno())
    if np.array_equal(start, np.cumsum(length) - length):
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
    no_pred = np.frombuffer(stream.pred_line, dtype=np.int64) == 0
    missing = np.flatnonzero(keep & no_pred).tolist()
    columns = [stream.values[k, keep].tolist() for k in range(len(_COLUMNS))]
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
        values = stream.values[_COLUMNS.index(column), keep]
        at = int(np.argmax(values) if largest else np.argmin(values))  # the first of equals: dataset order
        if largest and values[at] == 0.0:
            continue
        position = int(keep[at])
        sample = stream.gold.sample(position)
        line = stream.pred_line[position]
        pred = prediction_at(pred_path, line, stream.pred_offset[position]) if line else None
        score = score_sample(sample.id, sample.acts, pred.acts if pred else (), missing=pred is None)
        value = score.edit.total if column == "wed" else getattr(score.edit, column)
        reps.append(Representative(f"{name} (={value:.2f})", score, sample, pred, system))
    return reps


def score_files(
    gold_path: Path, pred_path: Path, out_dir: Path, *, dataset: str, system: str, ignore_extra: bool = False
) -> TableRow:
    """Score a prediction file against a gold file and write ``scores.jsonl``, ``summary.json``, ``report.md``.

    Same results and errors as :func:`~voxeval.run.score_predictions` + :func:`~voxeval.run.write_score_outputs`
    on the loaded files. On any error nothing is left behind (not even ``out_dir``, when this call made it).
    """
    gold = load_gold_index(gold_path)
    created = [p for p in (out_dir, *out_dir.parents) if not p.exists()]
    out_dir.mkdir(parents=True, exist_ok=True)
    spill = tempfile.NamedTemporaryFile(prefix=".scores.spill.", dir=out_dir, delete=False)  # noqa: SIM115
    try:
        with spill:
            stream = _Stream(gold, spill)
            _read_predictions(stream, pred_path)
            if stream.extra and not ignore_extra:
                raise InputError(
                    Location(str(pred_path), field="id"),
                    f"{len(stream.extra)} prediction id(s) not in the gold file "
                    f"(first: {next(iter(stream.extra))!r}); pass --ignore-extra to skip them",
                )
            absent = np.flatnonzero(stream.status == _NONE).tolist()
            for k in range(0, len(absent), BATCH):
                # The model said nothing we can score: count it as an empty reply, and report it.
                chunk = absent[k : k + BATCH]
                stream.flush(chunk, [None] * len(chunk))
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
