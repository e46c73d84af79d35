"""JSON Lines input and output: strict reading with file/line errors, atomic and append-only writing."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from voxeval.errors import InputError, Location, OutputError
from voxeval.io._files import open_regular, read_bounded
from voxeval.io._safe import open_append, refuse_link, write_replace

MAX_LINE_BYTES = 1 << 20
"""Longest JSONL line accepted (1 MiB). Rows reference audio by path, so a longer line is a broken file."""

MAX_JSON_BYTES = 64 << 20
"""Largest JSON object file read (``config.json``, ``summary.json``): 64 MiB."""

_BOM = b"\xef\xbb\xbf"


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
"""A ``\\uD800``-``\\uDFFF`` escape: the only way a lone surrogate (text no file can hold) enters a JSON line."""


def lone_surrogate(value: object, path: str = "", skip: frozenset[str] = frozenset()) -> str | None:
    """The field path (``steps[0].act``, ``""`` for the value itself) of the first string or key of ``value``
    that holds a lone surrogate, or ``None``; top-level fields named in ``skip`` are not looked at.

    Walks with an explicit stack: ``value`` came out of ``json.loads`` and may be as deep as it allows.
    """
    stack: list[tuple[object, str]] = [(value, path)]
    if isinstance(value, dict) and skip:
        stack = [({k: v for k, v in value.items() if k not in skip}, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _has_surrogate(item):
                return where
        elif isinstance(item, dict):
            for key, child in item.items():
                if _has_surrogate(key):
                    return f"{where}.{key!a}".lstrip(".")
                stack.append((child, f"{where}.{key}".lstrip(".")))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{k}]") for k, child in enumerate(item))
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _decode_line(raw: bytes, where: Location, keep_surrogates_in: frozenset[str] = frozenset()) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(where, f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8") from None
    try:
        # NaN / Infinity are not JSON; refusing them here keeps them out of every score.
        row = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise InputError(where, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise InputError(where, "invalid JSON: nested too deeply (arrays or objects inside each other)") from None
    if not isinstance(row, dict):
        raise InputError(where, f"each line must be a JSON object, got {type(row).__name__}")
    if SURROGATE_ESCAPE.search(raw):
        field = lone_surrogate(row, skip=keep_surrogates_in)
        if field is not None:
            # `\udc80` is valid JSON but no text: it cannot be written back as UTF-8 (a crash after scores or
            # replies were written) nor spoken, so it is refused where it enters.
            raise InputError(
                where.child(field) if field else where,
                "holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which is not text",
            )
    return row


def open_jsonl(path: str | Path) -> BinaryIO:
    """``path`` opened for binary reading; a missing file, a directory, a FIFO or a device is the user's error
    naming the path (:func:`~voxeval.io._files.open_regular`: never waited on)."""
    return os.fdopen(open_regular(path, Location(str(path)), "file"), "rb")


def iter_lines(path: str | Path, *, complete_only: bool = False) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line_number, byte_offset, raw_line)`` for each non-blank line of a JSONL file, undecoded.

    The line-level half of :func:`read_jsonl` (missing file, over-long line, BOM, blank lines, torn last
    line), for readers that decode rows themselves. ``byte_offset`` is where the line starts in the file.
    """
    name = str(path)
    with open_jsonl(path) as handle:
        offset = 0
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""), start=1):
            start, offset = offset, offset + len(raw)
            if len(raw) > MAX_LINE_BYTES:
                raise InputError(
                    Location(name, number), f"line longer than {MAX_LINE_BYTES} bytes; is this really a JSONL file?"
                )
            if complete_only and not raw.endswith(b"\n"):
                return
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
                start += len(_BOM)
            if not raw.strip():
                continue
            yield number, start, raw


READ_BLOCK = 1 << 22
"""Bytes read at a time by :func:`iter_line_blocks`."""

BLANK_START = frozenset(b" \t\r\n\x0b\x0c")
"""Bytes ``bytes.strip()`` removes: a line is blank when it is empty or starts with one and strips to nothing."""


def iter_line_blocks(path: str | Path) -> Iterator[tuple[int, int, list[bytes], bool]]:
    """Yield ``(first line number, its byte offset, lines, terminated)`` for successive blocks of a JSONL file.

    The same lines, numbers and errors as :func:`iter_lines`, cut from large reads instead of one ``readline``
    per line: lines come without their newline (``terminated`` is false only for a last block holding a last
    line that had none), blank lines included (numbering is by position; callers skip them), the BOM of the
    first line removed. An over-long line raises after the lines before it were yielded.
    """
    name = str(path)
    with open_jsonl(path) as handle:
        number, offset, carry = 1, 0, b""
        while True:
            chunk = handle.read(READ_BLOCK)
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop() if chunk else b""
            # A line with its newline may hold MAX_LINE_BYTES bytes in all; the last line, without one, as many.
            # Lengths count a leading BOM, as readline does.
            too_long = None
            if lines and max(map(len, lines)) >= MAX_LINE_BYTES:
                too_long = next(k for k, line in enumerate(lines) if len(line) >= MAX_LINE_BYTES)
                if not (chunk or len(lines[too_long]) > MAX_LINE_BYTES or too_long < len(lines) - 1):
                    too_long = None  # an unterminated last line of exactly MAX_LINE_BYTES bytes is accepted
            if number == 1 and lines and lines[0].startswith(_BOM):
                lines[0] = lines[0][len(_BOM) :]
                offset += len(_BOM)
            if too_long is not None:
                yield number, offset, lines[:too_long], True
                raise InputError(
                    Location(name, number + too_long),
                    f"line longer than {MAX_LINE_BYTES} bytes; is this really a JSONL file?",
                )
            if len(carry) > MAX_LINE_BYTES:
                yield number, offset, lines, True
                raise InputError(
                    Location(name, number + len(lines)),
                    f"line longer than {MAX_LINE_BYTES} bytes; is this really a JSONL file?",
                )
            if lines:
                yield number, offset, lines, bool(chunk)
            if not chunk:
                return
            number += len(lines)
            offset += sum(map(len, lines)) + len(lines)


def decode_line(raw: bytes, where: Location) -> dict[str, Any]:
    """One JSONL line as a JSON object; anything else raises :class:`InputError` naming ``where``."""
    return _decode_line(raw, where)


def read_jsonl(
    path: str | Path, *, complete_only: bool = False, keep_surrogates_in: frozenset[str] = frozenset()
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, row)`` for each non-blank line of a JSONL file.

    Repairs, both documented: a UTF-8 byte-order mark at the start is skipped, and blank lines are
    ignored. Everything else that is wrong raises :class:`InputError` naming the file and line.
    ``complete_only`` stops before a last line with no newline (one still being written, or torn by a crash).
    A lone surrogate is refused in every field but the top-level ones in ``keep_surrogates_in`` (a replay row's
    ``text``, which the reply stage classifies as ``undecodable``).
    """
    name = str(path)
    for number, _, raw in iter_lines(path, complete_only=complete_only):
        yield number, _decode_line(raw, Location(name, number), keep_surrogates_in)


def read_json_object(path: str | Path) -> dict[str, Any] | None:
    """A JSON file holding one object (``config.json``, ``summary.json``); ``None`` when there is none.

    Unreadable bytes, invalid JSON (NaN included) or anything but an object raise :class:`InputError` naming the
    file: a tampered or truncated file is never a traceback.
    """
    where = Location(str(path))
    if not os.path.lexists(path):
        return None
    try:
        text = read_bounded(path, where, MAX_JSON_BYTES, "the JSON file").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(where, f"cannot read it: {exc}") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise InputError(where, f"invalid JSON ({exc}); restore it or use a new --out folder") from None
    if not isinstance(value, dict):
        raise InputError(where, f"must be a JSON object, got {type(value).__name__}; not a file voxeval writes")
    return value


def dumps(row: Any) -> str:
    """One compact JSON line (no trailing newline), UTF-8 text kept readable, NaN refused."""
    return json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


dumps_str = json.encoder.encode_basestring
"""A str as :func:`dumps` writes it (``ensure_ascii=False``): the JSON string literal, quotes included."""


def atomic_write_text(path: str | Path, text: str, *, root: str | Path | None = None) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename, so readers never see a partial file."""
    atomic_write_bytes(path, text.encode("utf-8"), root=root)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte (``os.write`` may write fewer than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _unchanged(target: Path, data: bytes) -> bool:
    """The file already holds exactly ``data`` (a rerun then rewrites nothing, even on a read-only mount); only a
    regular file, not a link, is looked at."""
    try:
        info = os.lstat(target)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        return read_bounded(target, Location(str(target)), len(data), "the file") == data
    except (OSError, InputError):
        return False


def atomic_write_bytes(path: str | Path, data: bytes, *, root: str | Path | None = None) -> None:
    """Write bytes via a temporary file and rename; a file that already holds ``data`` is left untouched.

    The file is reached from ``root`` (default: its own folder) without following a link
    (:mod:`voxeval.io._safe`). An ``OSError`` (disk full, read-only, permissions) raises :class:`OutputError`
    naming the file; the old file, if any, is kept whole and the temporary one removed.
    """
    target = Path(path)
    if _unchanged(target, data):
        return
    write_replace(target, data, root)


def atomic_write_json(path: str | Path, obj: Any, *, root: str | Path | None = None) -> None:
    """Pretty-printed JSON, written atomically."""
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False) + "\n", root=root)


def atomic_write_jsonl(path: str | Path, rows: Iterable[Any], *, root: str | Path | None = None) -> None:
    """A whole JSONL file, written atomically."""
    atomic_write_text(path, "".join(dumps(r) + "\n" for r in rows), root=root)


def finite_or_none(value: float | None) -> float | None:
    """``None`` for NaN/inf so that JSON output never carries non-standard numbers."""
    return None if value is None or not math.isfinite(value) else value


RowCheck = Callable[[dict[str, Any]], tuple[str, str] | None]
"""A log's row check: ``(field, problem)`` for a row its writer never writes, else ``None``."""


def read_log(path: str | Path, key: str = "id", check: RowCheck | None = None) -> dict[str, dict[str, Any]]:
    """The rows of an append-only result log by key, read without touching the file.

    For readers (reports, dry runs) of a run that may still be going: an incomplete last line is skipped,
    not cut off, and a missing file reads as empty. A later row supersedes an earlier ``failed`` one; any
    other repeated key is an error. A row without a string ``key`` field, or one ``check`` finds wrong (a
    tampered log), raises :class:`InputError` naming the file, line and field.
    """
    rows: dict[str, dict[str, Any]] = {}
    if not Path(path).exists():
        return rows
    for line, row in read_jsonl(path, complete_only=True):
        value = row.get(key)
        keyed = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
        problem = (key, "missing or not a string") if not keyed else check(row) if check is not None else None
        if problem is not None:
            raise InputError(Location(str(path), line, problem[0]), f"{problem[1]} (not a row voxeval writes)")
        name = str(value)
        if name in rows and rows[name].get("status") != "failed":
            raise InputError(Location(str(path), line, key), f"result {name!r} recorded twice")
        rows[name] = row
    return rows


class RowTooLong(ValueError):
    """A row whose line would be longer than :data:`MAX_LINE_BYTES`: never written, since no reader would accept it."""


class AppendLog:
    """An append-only JSONL file of results keyed by a stable id; the basis of resumable runs.

    On open, complete rows are read back (their keys are :attr:`done`); a torn last line left by a
    crash (no trailing newline) is cut off, since it was never completely written. Each :meth:`append`
    writes one whole line straight to the file (no buffer), so a killed process loses at most the row it
    was writing and never duplicates one. The file is opened for writing only when a row is appended.
    """

    def __init__(
        self, path: str | Path, key: str = "id", check: RowCheck | None = None, *, root: str | Path | None = None
    ) -> None:
        self.path = Path(path)
        self.root = root
        """Folder the log is written inside (default: its own); no link below it is followed."""
        self.key = key
        self.check = check
        """Checks each row read back (:func:`read_log`)."""
        self.rows: dict[str, dict[str, Any]] = {}
        self._fd: int | None = None  # opened on the first append: a run with nothing to do writes nothing
        self._repair_and_load()

    def _repair_and_load(self) -> None:
        refuse_link(self.path)  # a planted link is refused before anything is read, cut or appended through it
        if not os.path.lexists(self.path):
            return
        with open_jsonl(self.path) as log:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(0, size - 1))
            torn = size > 0 and log.read(1) != b"\n"
            if torn:
                # The last line was torn by a crash mid-write: drop it, keep everything complete before it.
                log.seek(0)
                cut = log.read().rfind(b"\n") + 1
        if torn:
            try:
                os.truncate(self.path, cut)
            except OSError as exc:
                raise OutputError(self.path, exc) from exc
        self.rows = read_log(self.path, self.key, self.check)

    @property
    def done(self) -> set[str]:
        """Keys already recorded."""
        return set(self.rows)

    def append(self, row: dict[str, Any]) -> None:
        """Record one result. A key already present is refused unless its row has ``status: failed``; a row longer
        than a line may be raises :class:`RowTooLong` and writes nothing."""
        key = str(row[self.key])
        if key in self.rows and self.rows[key].get("status") != "failed":
            raise ValueError(f"{self.path}: key {key!r} already recorded")
        line = dumps(row) + "\n"
        if len(line) > MAX_LINE_BYTES // 4 and len(line.encode("utf-8")) > MAX_LINE_BYTES:
            raise RowTooLong(f"{self.path}: the row of {key!r} is over {MAX_LINE_BYTES} bytes; not recorded")
        # Lone surrogates cannot be UTF-8: written as visible escapes rather than making the log unreadable.
        self._write(line.encode("utf-8", "backslashreplace"))
        self.rows[key] = row

    def _write(self, data: bytes) -> None:
        """Append one whole line; on an error (disk full, read-only) the log is cut back to its last whole line."""
        try:
            if self._fd is None:
                self._fd = open_append(self.path, self.root)
            fd = self._fd
            before = os.fstat(fd).st_size
        except OSError as exc:
            raise OutputError(self.path, exc) from exc
        try:
            _write_all(fd, data)
        except OSError as exc:
            with contextlib.suppress(OSError):  # if this fails too, the torn line is cut when the log is next opened
                os.ftruncate(fd, before)
            raise OutputError(self.path, exc) from exc

    def close(self) -> None:
        """Flush to disk and close the file."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.fsync(fd)
        except OSError as exc:
            raise OutputError(self.path, exc) from exc
        finally:
            os.close(fd)

    def __enter__(self) -> AppendLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
