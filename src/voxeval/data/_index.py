"""Gold acts held compactly (arrays, one dict of ids) and predictions read as a stream, for ``voxeval score``.

Errors are those of :func:`~voxeval.data.load_gold` / :func:`~voxeval.data.load_predictions`, raised at the
same lines with the same messages: a row the fast path does not accept is parsed by the full parser.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from voxeval.data._fast import LABEL_CODES, FastActs, fast_gold, fast_prediction
from voxeval.data._jsonl import decode_line, iter_lines
from voxeval.data._schema import GoldSample, Prediction, parse_gold, parse_prediction
from voxeval.errors import InputError, Location


def _acts_of(sample_id: str, acts: tuple, failure: str | None = None) -> FastActs:
    return FastActs(sample_id, [LABEL_CODES[s.act] for s in acts], [s.importance for s in acts], failure)


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
        line = int(self.lines[position])
        where = Location(self.path, line)
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
    codes, weights = array("b"), array("d")
    starts, lines, offsets = array("q", [0]), array("q"), array("q")
    for number, offset, raw in iter_lines(path):
        acts = fast_gold(raw)
        if acts is None:
            where = Location(name, number)
            sample = parse_gold(decode_line(raw, where), where)
            acts = _acts_of(sample.id, sample.acts)
        if acts.id in ids:
            first = lines[ids[acts.id]]
            raise InputError(Location(name, number, "id"), f"duplicate id {acts.id!r} (first on line {first})")
        ids[acts.id] = len(lines)
        codes.extend(acts.codes)
        weights.extend(acts.weights)
        starts.append(len(codes))
        lines.append(number)
        offsets.append(offset)
    if not ids:
        raise InputError(Location(name), "no rows: a gold file needs at least one sample")
    return GoldIndex(
        name,
        ids,
        np.frombuffer(codes, dtype=np.int8),
        np.frombuffer(weights, dtype=np.float64),
        np.frombuffer(starts, dtype=np.int64),
        np.frombuffer(lines, dtype=np.int64),
        np.frombuffer(offsets, dtype=np.int64),
    )


def iter_prediction_acts(path: str | Path) -> Iterator[tuple[int, int, FastActs]]:
    """``(line, byte offset, acts)`` for each prediction row, in file order; duplicates are the caller's check."""
    name = str(path)
    for number, offset, raw in iter_lines(path):
        acts = fast_prediction(raw)
        if acts is None:
            where = Location(name, number)
            pred = parse_prediction(decode_line(raw, where), where)
            acts = _acts_of(pred.id, pred.acts, pred.failure)
        yield number, offset, acts


def prediction_at(path: str | Path, line: int, offset: int) -> Prediction:
    """The full :class:`Prediction` on ``line`` (at byte ``offset``) of ``path``."""
    where = Location(str(path), line)
    return parse_prediction(decode_line(read_line_at(path, offset), where), where)
