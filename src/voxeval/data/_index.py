"""Gold acts held compactly (arrays, one dict of ids) and predictions read as a stream, for ``voxeval score``.

Errors are those of :func:`~voxeval.data.load_gold` / :func:`~voxeval.data.load_predictions`, raised at the
same lines with the same messages: a row the fast path does not accept is parsed by the full parser.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from voxeval import native
from voxeval.acts import Acts
from voxeval.data._fast import LABEL_CODES, ActsBlock, RawActs, fast_gold, fast_prediction, gold_block, prediction_block
from voxeval.data._schema import GoldSample, Prediction, parse_gold, parse_prediction
from voxeval.errors import InputError, Location
from voxeval.io import _jsonl
from voxeval.io._jsonl import BLANK_START, decode_line


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


class _GoldArrays:
    """The growing arrays of :func:`load_gold_index` (normalised a block at a time: no whole-file temporaries)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ids: dict[str, int] = {}
        self.codes, self.weights, self.lengths = array("b"), array("d"), array("q")
        self.lines, self.offsets = array("q"), array("q")

    def _append(self, block: ActsBlock, lines: npt.ArrayLike, offsets: npt.ArrayLike) -> None:
        """Append the arrays of a block whose ids are already in ``ids``."""
        self.codes.frombytes(block.codes.tobytes())
        self.weights.frombytes(normalised(block.weights, block.totals, block.lengths).tobytes())
        self.lengths.frombytes(block.lengths.tobytes())
        self.lines.frombytes(np.asarray(lines, dtype=np.int64).tobytes())
        self.offsets.frombytes(np.asarray(offsets, dtype=np.int64).tobytes())

    def add_fast(self, first: int, starts: npt.NDArray[np.int64], block: ActsBlock) -> bool:
        """Append a block the fast path decoded whole, unless an id repeats (then the caller goes line by line)."""
        n, base = len(block.ids), len(self.lengths)
        positions = range(base, base + n)
        # setdefault keeps an earlier position: any difference from `positions` is a repeated id.
        if list(map(self.ids.setdefault, block.ids, positions)) != list(positions):
            for sample_id in block.ids:  # take this block's entries back out; the line-by-line pass reports
                if self.ids.get(sample_id, -1) >= base:
                    del self.ids[sample_id]
            return False
        self._append(block, np.arange(first, first + n), starts[:n])
        return True

    def add_lines(self, first: int, starts: npt.NDArray[np.int64], raw_lines: list[bytes], newline: bytes) -> None:
        """Append a block line by line: blank lines skipped, odd rows through the full parser, errors in order."""
        rows: list[RawActs] = []
        lines: list[int] = []
        seen: dict[str, int] = {}
        for k, raw in enumerate(raw_lines):
            acts = fast_gold(raw)
            if acts is None:
                if not raw or (raw[0] in BLANK_START and not raw.strip()):
                    continue
                where = Location(self.name, first + k)
                sample = parse_gold(decode_line(raw + newline, where), where)
                acts = _parsed(sample.id, sample.acts)
            sample_id = acts[0]
            before = self.lines[self.ids[sample_id]] if sample_id in self.ids else seen.get(sample_id)
            if before is not None:
                where = Location(self.name, first + k, "id")
                raise InputError(where, f"duplicate id {sample_id!r} (first on line {before})")
            seen[sample_id] = first + k
            rows.append(acts)
            lines.append(first + k)
        if rows:
            base = len(self.lengths)
            self.ids.update(zip(seen, range(base, base + len(rows)), strict=True))
            self._append(block_of(rows), lines, [starts[line - first] for line in lines])


def block_of(rows: list[RawActs]) -> ActsBlock:
    """Rows decoded one by one, in columns."""
    lengths = np.fromiter((len(r[1]) for r in rows), dtype=np.int64, count=len(rows))
    failures = {k: r[4] for k, r in enumerate(rows) if r[4] is not None}
    return ActsBlock(
        [r[0] for r in rows],
        lengths,
        np.array([c for r in rows for c in r[1]], dtype=np.int8),
        np.array([w for r in rows for w in r[2]], dtype=np.float64),
        np.array([r[3] for r in rows], dtype=np.float64),
        failures,
    )


class LineBlock(NamedTuple):
    """Consecutive lines of a file, by position only: the lines themselves are read when needed."""

    first: int
    """Line number of the first line."""
    starts: npt.NDArray[np.int64]
    """Byte offset of each line."""
    size: int
    """Bytes of the lines, newlines included (the last line's only when ``terminated``)."""
    terminated: bool
    """False only for a last block holding a last line that had no newline."""

    @property
    def offset(self) -> int:
        """Byte offset of the first line."""
        return int(self.starts[0])

    def lines(self, path: str | Path) -> list[bytes]:
        """The lines, read from ``path``, without newline."""
        lines = read_lines(path, *extent(self))
        if lines is None:
            raise InputError(Location(str(path), self.first), "the file changed while it was being read")
        return lines


class Digest(Protocol):
    """What :func:`line_blocks` feeds the bytes it reads to (a ``hashlib`` hash object)."""

    def update(self, data: bytes, /) -> None: ...


Decode = Callable[[list[bytes]], "ActsBlock | None"]
BlockDecoder = Callable[[Decode, str, Iterable[LineBlock]], Iterable[Any]]
"""Maps a block decoder over a file's line blocks, giving ``(line block, decoded)`` in order (maybe elsewhere)."""
SUB_BLOCK = 4096
"""Lines decoded (and later scored) together: small enough that a block's objects stay a few megabytes."""


def _too_long(name: str, number: int) -> InputError:
    return InputError(
        Location(name, number), f"line longer than {_jsonl.MAX_LINE_BYTES} bytes; is this really a JSONL file?"
    )


def _pieces(first: int, starts: npt.NDArray[np.int64], end: int, terminated: bool) -> Iterator[LineBlock]:
    """Lines ``starts`` (the last one ending at ``end``) in blocks of at most :data:`SUB_BLOCK` lines."""
    for k in range(0, starts.size, SUB_BLOCK):
        piece = starts[k : k + SUB_BLOCK]
        stop = int(starts[k + SUB_BLOCK]) if k + SUB_BLOCK < starts.size else end
        yield LineBlock(first + k, piece, stop - int(piece[0]), terminated or k + SUB_BLOCK < starts.size)


def line_blocks(path: str | Path, digest: Digest | None = None) -> Iterator[LineBlock]:
    """The lines, numbers, offsets and errors of :func:`~voxeval.io._jsonl.iter_line_blocks`, without the lines.

    Line ends are found by numpy over large reads: no object per line. Blocks hold at most :data:`SUB_BLOCK`
    lines; blank lines are included (numbering is by position), the BOM of the first line skipped, and an
    over-long line raises after the blocks before it were yielded. ``digest`` (e.g. ``hashlib.sha256()``) is
    updated with every byte read, so a file read to its end is hashed without a second read.
    """
    name, limit = str(path), _jsonl.MAX_LINE_BYTES
    with _jsonl.open_jsonl(path) as handle:
        number, base, carry = 1, 0, b""  # base: file offset of data[0]
        while True:
            chunk = handle.read(_jsonl.READ_BLOCK)
            if digest is not None:
                digest.update(chunk)
            data = carry + chunk
            if chunk:  # the complete lines; the rest is carried to the next read
                ends = native.newlines(data)
                cut = int(ends[-1]) + 1 if ends.size else 0
                carry = data[cut:]
            else:  # the last line, without newline (b"" when the file ends with one)
                ends, cut, carry = np.array([len(data)]), len(data), b""
            starts = np.concatenate(([0], ends[:-1] + 1)) if ends.size else ends
            lengths = ends - starts  # a BOM counts, as for readline
            at = int(np.argmax(lengths >= limit)) if ends.size and lengths.max() >= limit else -1
            if at == ends.size - 1 and not chunk and lengths[at] == limit:
                at = -1  # an unterminated last line of exactly MAX_LINE_BYTES bytes is accepted
            starts = starts + base
            if number == 1 and ends.size and data.startswith(_jsonl._BOM):
                starts[0] += len(_jsonl._BOM)
            if at >= 0:
                yield from _pieces(number, starts[:at], int(starts[at]), True)
                raise _too_long(name, number + at)
            if len(carry) > limit:
                yield from _pieces(number, starts, base + cut, True)
                raise _too_long(name, number + ends.size)
            yield from _pieces(number, starts, base + cut, bool(chunk))
            if not chunk:
                return
            number += ends.size
            base += cut


def read_lines(path: str | Path, offset: int, size: int, count: int) -> list[bytes] | None:
    """The ``count`` lines at ``[offset, offset + size)`` of ``path``, without newline; ``None`` when the bytes are
    not the expected lines any more (the file changed)."""
    with open(path, "rb") as handle:
        data = os.pread(handle.fileno(), size, offset)
    lines = data.split(b"\n")
    if data.endswith(b"\n"):  # the last line's newline, not an empty line after it
        lines.pop()
    return lines if len(lines) == count and len(data) == size else None


def decode_range(decode: Decode, path: str, offset: int, size: int, count: int) -> ActsBlock | None:
    """``decode`` over the ``count`` lines at ``[offset, offset + size)`` of ``path``, read here (in a worker).

    ``None`` when the bytes are not the expected lines any more (the file changed): the caller goes line by line.
    """
    lines = read_lines(path, offset, size, count)
    return None if lines is None else decode(lines)


def extent(block: LineBlock) -> tuple[int, int, int]:
    """Offset, size in bytes and number of lines of a line block: the arguments of :func:`decode_range`."""
    return block.offset, block.size, len(block.starts)


def decode_inline(decode: Decode, path: str, blocks: Iterable[LineBlock]) -> Iterator[Any]:
    """The :data:`BlockDecoder` that decodes each block here, as it comes."""
    return ((block, decode_range(decode, path, *extent(block))) for block in blocks)


def load_gold_index(path: str | Path, decoder: BlockDecoder = decode_inline, digest: Digest | None = None) -> GoldIndex:
    """Read a gold file into a :class:`GoldIndex`; ids must be unique and the file non-empty.

    ``digest`` is updated with the file's bytes (see :func:`line_blocks`).
    """
    name = str(path)
    gold = _GoldArrays(name)
    for block, columns in decoder(gold_block, name, line_blocks(path, digest)):
        if columns is None or not gold.add_fast(block.first, block.starts, columns):
            gold.add_lines(block.first, block.starts, block.lines(name), b"\n" if block.terminated else b"")
    if not gold.ids:
        raise InputError(Location(name), "no rows: a gold file needs at least one sample")
    n = np.frombuffer(gold.lengths, dtype=np.int64)
    return GoldIndex(
        name,
        gold.ids,
        np.frombuffer(gold.codes, dtype=np.int8),
        np.frombuffer(gold.weights),
        np.concatenate(([0], np.cumsum(n))),
        np.frombuffer(gold.lines, dtype=np.int64),
        np.frombuffer(gold.offsets, dtype=np.int64),
    )


@dataclass(frozen=True)
class PredictionBlock:
    """Consecutive lines of a prediction file, decoded whole by the fast path where it could."""

    path: str
    """The prediction file."""
    first: int
    """Line number of the first line."""
    offsets: npt.NDArray[np.int64]
    """Byte offset of each line."""
    columns: ActsBlock | None
    """Every line's acts (weights not yet normalised); ``None`` unless every line is a valid row."""
    span: LineBlock
    """Where the lines are in the file (read only when the block goes line by line)."""

    @cached_property
    def lines(self) -> list[bytes]:
        """The lines, without newline."""
        return self.span.lines(self.path)

    @property
    def newline(self) -> bytes:
        """What ended the lines (``b""`` only for an unterminated last line)."""
        return b"\n" if self.span.terminated else b""

    def parse(self, k: int) -> RawActs | None:
        """Line ``k``: its acts, ``None`` for a blank line, or the user's error (from the full parser)."""
        raw = self.lines[k]
        acts = fast_prediction(raw)
        if acts is not None:
            return acts
        if not raw or (raw[0] in BLANK_START and not raw.strip()):
            return None
        where = Location(self.path, self.first + k)
        pred = parse_prediction(decode_line(raw + self.newline, where), where)
        return _parsed(pred.id, pred.acts, pred.failure)


def iter_prediction_blocks(
    path: str | Path, decoder: BlockDecoder = decode_inline, digest: Digest | None = None
) -> Iterator[PredictionBlock]:
    """A prediction file a block at a time; where ``columns`` is ``None`` the caller parses line by line, in order.

    ``digest`` is updated with the file's bytes (see :func:`line_blocks`).
    """
    for block, columns in decoder(prediction_block, str(path), line_blocks(path, digest)):
        yield PredictionBlock(str(path), block.first, block.starts, columns, block)


def prediction_at(path: str | Path, line: int, offset: int) -> Prediction:
    """The full :class:`Prediction` on ``line`` (at byte ``offset``) of ``path``."""
    where = Location(str(path), line)
    return parse_prediction(decode_line(read_line_at(path, offset), where), where)
