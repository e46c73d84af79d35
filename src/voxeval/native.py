"""The compiled parts of ``voxeval score`` (``_native.c``), when they are built, and their Python faces.

The hot loops of scoring large files run in C: finding line ends (:func:`newlines`) and checking UTF-8
(:func:`utf8_lines`) in :mod:`voxeval.data._index` / :mod:`voxeval.data._fast`, turning decoded rows into act
columns (:func:`columns`, :func:`all_nonblank`) and writing a batch of ``scores.jsonl`` rows (:func:`rows`, for
:mod:`voxeval.run._score_rows`). Each gives exactly what the Python code gives (tested against it), or
``None`` where only the Python code decides (a rare shape, or an input error the user is to see), and then the
Python code runs. The module is built when voxeval is installed (``pip install -e .``, which ``make test`` and
``make demo`` run) on a machine with a C compiler. Without it, the Python code does all of it, more slowly, and
:func:`module` says so once on standard error.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
_ENCODE = msgspec.json.Encoder().encode


class StaleBuildError(RuntimeError):
    """The compiled module was built from another version of ``_native.c`` than the one next to this file."""


SOURCE = Path(__file__).with_name("_native.c")
"""The module's source; in a source checkout (an editable install) a build from another version is refused."""


@cache
def module() -> ModuleType | None:
    """The compiled module, or ``None`` (said once on stderr) when it was not built."""
    try:
        compiled = importlib.import_module("voxeval._native")
    except ImportError as exc:
        print(
            f"voxeval: the compiled scoring code is not built ({exc}); scoring in Python, which gives the same "
            "results more slowly. Build it with a C compiler: pip install -e . (see docs/metrics.md)",
            file=sys.stderr,
        )
        return None
    built_from = getattr(compiled, "SOURCE_SHA256", None)
    if SOURCE.is_file() and built_from != hashlib.sha256(SOURCE.read_bytes()).hexdigest():
        raise StaleBuildError(
            f"{compiled.__file__} was built from another version of {SOURCE.name} (sha256 {built_from}): rebuild "
            "it with `pip install -e .` (or `make test`)"
        )
    return compiled


def _float_texts_agree() -> bool:
    """Whether msgspec writes floats in [1e-4, 1e15) as ``repr`` does (checked once, on values near every
    power of ten and a fixed random sample; the rows' bytes rely on it)."""
    rng = np.random.default_rng(0)
    values = [float(v) for v in 10.0 ** rng.uniform(-4, 15, 2000)]
    for power in range(-4, 15):
        base = 10.0**power
        values += [base, np.nextafter(base, 0.0).item(), np.nextafter(base, np.inf).item(), base * 1.5]
    values = [v for v in values if 1e-4 <= v < 1e15]
    return _ENCODE(values) == _repr_encode(values)


def _repr_encode(values: list[float]) -> bytes:
    return ("[" + ",".join(map(repr, values)) + "]").encode()


@cache
def _float_encoder() -> Callable[[list[float]], bytes]:
    """msgspec's encoder when its float texts are ``repr``'s (they are, to date), else ``repr`` itself (slower)."""
    if _float_texts_agree():
        return _ENCODE
    print(
        f"voxeval: this msgspec ({msgspec.__version__}) writes some floats differently from Python's repr; "
        "scores.jsonl is written with repr (slower)",
        file=sys.stderr,
    )
    return _repr_encode


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

    ``encoded_ids`` are JSON string literals (:data:`voxeval.io.dumps_str`); ``gold`` and ``pred`` are
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
    found = native.rows(encoded_ids, *flat(gold), *flat(pred), flags, _float_encoder())
    if found is None:
        return None
    data, lengths, values = found
    n = len(encoded_ids)
    return data, np.frombuffer(lengths, dtype=np.int64), np.frombuffer(values, dtype=np.float64).reshape(6, n)
