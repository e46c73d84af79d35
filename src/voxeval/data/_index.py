"""Gold acts held compactly (arrays, one dict of ids) and predictions read as a stream, for ``voxeval score``.

Errors are those of :func:`~voxeval.data.load_gold` / :func:`~voxeval.data.load_predictions`, raised at the
same lines with the same messages: a row the fast path does not accept is parsed by the full parser.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voxeval.acts import Acts
from voxeval.data._fast import LABEL_CODES, RawActs, fast_gold, fast_prediction
from voxeval.data._schema import GoldSample, Prediction, parse_gold, parse_prediction
from voxeval.errors import InputError, Location
from voxeval.io._jsonl import BLANK_START, decode_line, iter_line_blocks


def _parsed(sample_id: str, acts: Acts, failure: str | None = None) -> RawActs:
    # Already normalised by the full parser: a sum of 1.0 leaves the weights as they are (w / 1.0 == w).
    return sample_id, [LABEL_CODES[s.act] for s in acts], [s.importance for s in acts], 1.0, failure


def normalised(weights: npt.ArrayLike, totals: npt.ArrayLike, lengths: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Concatenated raw weights divided by their sequence's sum; a zero sum gives equal shares (as ``normalise``)."""
    w, t = np.asarray(weights, dtype=np.float64), np.asarray(totals, dtype=np.float64)
    n = np.asarray(lengths, dtype=np.int64)
    per_step_total, per_step_len = np.repeat(t, n), np.repeat(n, n).astype(np.float64)
    zero = per_step_total == 0.0
    return np.where(zero, 1.0 / np.where(zero, per_step_len, 1.0), w / np.where(zero, 1.0, per_step_total))


@dataclass(frozen=True)
class GoldIndex:
    """Every gold sample's id and normalised acts, in file order, without the rest of the row."""

    path: str
    """The gold file."""
    ids: dict[str, int]
    """Sample id → position in file order."""
    codes: npt.NDArray[np.int8]
    """All label codes, concatenated in file order."""
    weights: npt.NDArray[np.float64]
    """All normalised weights, concatenated like ``codes``."""
    starts: npt.NDArray[np.int64]
    """Where each sample's acts start in ``codes`` (one more entry than samples: the end)."""
    lines: npt.NDArray[np.int64]
    """Line number of each sample."""
    offsets: npt.NDArray[np.int64]
    """Byte offset of each sample's line, to read the whole row again when a report needs it."""

    def __len__(self) -> int:
        return len(self.ids)

    def sample(self, position: int) -> GoldSample:
        """The full :class:`GoldSample` at ``position`` (read again from the file)."""
        where = Location(self.path, int(self.lines[position]))
        return parse_gold(decode_line(read_line_at(self.path, int(self.offsets[position])), where), where)


def read_line_at(path: str | Path, offset: int) -> bytes:
    """The line starting at byte ``offset`` of ``path``."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.readline()


def load_gold_index(path: str | Path) -> GoldIndex:
    """Read a gold file into a :class:`GoldIndex`; ids must be unique and the file non-empty."""
    name = str(path)
    ids: dict[str, int] = {}
    codes, weights, totals, lengths = array("b"), array("d"), array("d"), array("q")
    lines, offsets = array("q"), array("q")
    for first, offset, block, terminated in iter_line_blocks(path):
        newline = b"\n" if terminated else b""
        starts = list(accumulate(map((1).__add__, map(len, block)), initial=offset))
        for k, raw in enumerate(block):
            acts = fast_gold(raw)
            if acts is None:
                if not raw or (raw[0] in BLANK_START and not raw.strip()):
                    continue
                where = Location(name, first + k)
                sample = parse_gold(decode_line(raw + newline, where), where)
                acts = _parsed(sample.id, sample.acts)
            sample_id, row_codes, row_weights, total, _ = acts
            if sample_id in ids:
                line = lines[ids[sample_id]]
                raise InputError(Location(name, first + k, "id"), f"duplicate id {sample_id!r} (first on line {line})")
            ids[sample_id] = len(lines)
            codes.extend(row_codes)
            weights.extend(row_weights)
            totals.append(total)
            lengths.append(len(row_codes))
            lines.append(first + k)
            offsets.append(starts[k])
    if not ids:
        raise InputError(Location(name), "no rows: a gold file needs at least one sample")
    n = np.frombuffer(lengths, dtype=np.int64)
    return GoldIndex(
        name,
        ids,
        np.frombuffer(codes, dtype=np.int8),
        normalised(np.frombuffer(weights), np.frombuffer(totals), n),
        np.concatenate(([0], np.cumsum(n))),
        np.frombuffer(lines, dtype=np.int64),
        np.frombuffer(offsets, dtype=np.int64),
    )


@dataclass(frozen=True)
class PredictionBlock:
    """Consecutive lines of a prediction file, decoded by the fast path where it could."""

    path: str
    """The prediction file."""
    first: int
    """Line number of the first line."""
    offsets: list[int]
    """Byte offset of each line."""
    acts: list[RawActs | None]
    """Each line's acts (weights not yet normalised); ``None`` where the fast path did not accept the line."""
    lines: list[bytes]
    """The lines, without newline."""
    newline: bytes
    """What ended the lines (``b""`` only for an unterminated last line)."""

    def parse(self, k: int) -> RawActs | None:
        """Line ``k`` through the full parser: its acts, ``None`` for a blank line, or the user's error."""
        raw = self.lines[k]
        if not raw or (raw[0] in BLANK_START and not raw.strip()):
            return None
        where = Location(self.path, self.first + k)
        pred = parse_prediction(decode_line(raw + self.newline, where), where)
        return _parsed(pred.id, pred.acts, pred.failure)


def iter_prediction_blocks(path: str | Path) -> Iterator[PredictionBlock]:
    """A prediction file a block at a time; the caller walks each block in order, parsing ``None`` entries."""
    for first, offset, block, terminated in iter_line_blocks(path):
        offsets = list(accumulate(map((1).__add__, map(len, block)), initial=offset))
        yield PredictionBlock(
            str(path), first, offsets, list(map(fast_prediction, block)), block, b"\n" if terminated else b""
        )


def prediction_at(path: str | Path, line: int, offset: int) -> Prediction:
    """The full :class:`Prediction` on ``line`` (at byte ``offset``) of ``path``."""
    where = Location(str(path), line)
    return parse_prediction(decode_line(read_line_at(path, offset), where), where)
