"""The compiled parts of ``voxeval score`` (``_native.c``), when they are built, and their Python faces.

Two hot loops of scoring large files run in C: turning decoded rows into act columns (:func:`columns`, for
:mod:`voxeval.data._fast`) and writing a batch of ``scores.jsonl`` rows (:func:`rows`, for
:mod:`voxeval.run._score_rows`). Each gives exactly what the Python code gives (tested against it), or
``None`` where only the Python code decides (a rare shape, or an input error the user is to see), and then the
Python code runs. The module is built when voxeval is installed (``pip install -e .``, which ``make test`` and
``make demo`` run) on a machine with a C compiler. Without it, the Python code does all of it, more slowly, and
:func:`module` says so once on standard error.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from functools import cache
from types import ModuleType
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

VERSION = 4
"""The C module's ``VERSION`` this code expects; another build is refused (rebuild: ``pip install -e .``)."""

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
_ENCODE = msgspec.json.Encoder().encode


class StaleBuildError(RuntimeError):
    """The compiled module is from another version of ``_native.c``."""


@cache
def module() -> ModuleType | None:
    """The compiled module, or ``None`` (said once on stderr) when it was not built."""
    try:
        compiled = importlib.import_module("voxeval._native")
    except ImportError as exc:
        print(
            f"voxeval: the compiled scoring code is not built ({exc}); scoring in Python, which gives the same "
            "results more slowly. Build it with a C compiler: pip install -e . (see docs/performance.md)",
            file=sys.stderr,
        )
        return None
    found = getattr(compiled, "VERSION", None)
    if found != VERSION:
        raise StaleBuildError(
            f"{compiled.__file__} is version {found} of voxeval's compiled scoring code, this code needs "
            f"version {VERSION}: rebuild it with `pip install -e .` (or `make test`)"
        )
    return compiled


def columns(ids: list[Any], step_lists: list[Any], label_codes: dict[str, int]) -> tuple[I8, F64, I64, F64] | None:
    """Label codes, raw weights (concatenated), acts per row and ``math.fsum`` per row of decoded rows.

    ``step_lists`` holds each row's list of steps (objects with ``act`` and ``importance``). ``None``: not
    built, or a row only the Python code handles (see ``_native.c``).
    """
    native = module()
    found = None if native is None else native.columns(ids, step_lists, label_codes)
    if found is None:
        return None
    codes, weights, lengths, totals = found
    return (
        np.frombuffer(codes, dtype=np.int8),
        np.frombuffer(weights, dtype=np.float64),
        np.frombuffer(lengths, dtype=np.int64),
        np.frombuffer(totals, dtype=np.float64),
    )


def all_nonblank(strings: list[str]) -> bool:
    """``all(s.strip() for s in strings)``."""
    native = module()
    return bool(native.all_nonblank(strings)) if native is not None else all(map(str.strip, strings))


def utf8_lines(lines: list[bytes]) -> bool | None:
    """Whether every line decodes as UTF-8; ``None`` when not built."""
    native = module()
    return None if native is None else bool(native.utf8_lines(lines))


def newlines(data: bytes) -> npt.NDArray[np.int64]:
    """Offsets of every ``b"\\n"`` in ``data`` (``np.flatnonzero(bytes == 10)``)."""
    native = module()
    if native is None:
        return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    return np.frombuffer(native.newlines(data), dtype=np.int64)


def rows(
    encoded_ids: list[str], gold: tuple[I8, F64, I64], pred: tuple[I8, F64, I64], missing: Sequence[bool] | np.ndarray
) -> tuple[bytes, I64, F64] | None:
    """Rows (UTF-8, in batch order), each row's length in bytes and the six per-pair numbers (``(6, n)``: wlcs,
    gold_coverage, wed, deletion, insertion, substitution) of a batch, or ``None``.

    ``encoded_ids`` are JSON string literals (``json.encoder.encode_basestring``); ``gold`` and ``pred`` are
    flat label codes, normalised weights and lengths. ``None``: not built, or the batch holds something only
    the Python code handles (a non-finite number, an id that is not valid UTF-8), which then gives the user the
    same error as before.
    """
    native = module()
    if native is None:
        return None

    def flat(side: tuple[I8, F64, I64]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        codes, weights, lengths = side
        return (
            np.ascontiguousarray(codes, dtype=np.int8),
            np.ascontiguousarray(weights, dtype=np.float64),
            np.ascontiguousarray(lengths, dtype=np.int64),
        )

    flags = np.ascontiguousarray(missing, dtype=np.bool_).view(np.uint8)
    found = native.rows(encoded_ids, *flat(gold), *flat(pred), flags, _ENCODE)
    if found is None:
        return None
    data, lengths, values = found
    n = len(encoded_ids)
    return data, np.frombuffer(lengths, dtype=np.int64), np.frombuffer(values, dtype=np.float64).reshape(6, n)
