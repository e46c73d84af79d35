"""Reading a whole file that a user, a dataset or a log names: a regular file, and no bigger than its limit.

``Path.read_bytes`` on ``/dev/zero`` reads until memory runs out, on a FIFO it waits for a writer forever, and on
a sparse file of 2 GB apparent size it allocates 2 GB. Every such read goes through :func:`read_bounded`, which
opens without blocking, checks the type and the size on the open descriptor, then reads at most the limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from voxeval.errors import InputError, Location

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"


def not_regular(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file (``"a FIFO (named pipe)"``), else ``None``."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_size(path: str | Path, where: Location, limit: int, what: str) -> int:
    """The size of ``path`` after checking that it is a regular file of at most ``limit`` bytes (no read)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(where, f"{what} not found") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise InputError(where, f"cannot read {what}: {getattr(exc, 'strerror', None) or exc}") from None
    _refuse(info, where, limit, what)
    return info.st_size


def _refuse(info: os.stat_result, where: Location, limit: int, what: str) -> None:
    kind = not_regular(info.st_mode)
    if kind is not None:
        raise InputError(where, f"is {kind}, expected a regular file" + (f" ({what})" if what != "file" else ""))
    if info.st_size > limit:
        raise InputError(
            where, f"{what} is {_mib(info.st_size)}, above the limit of {_mib(limit)}; nothing of it was read"
        )


def open_regular(path: str | Path, where: Location, what: str, limit: int | None = None) -> int:
    """A read-only descriptor of ``path``, refused (:class:`InputError` at ``where``) unless a regular file.

    Opened with ``O_NONBLOCK``, so that a FIFO planted where a log or a human file should be is refused instead of
    waited on forever; the type (and the size, against ``limit``) is checked on the open descriptor. The caller
    closes it. The one opening of every file of a run or of a labeller that voxeval reads.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(where, f"{what} not found") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise InputError(where, f"cannot read {what}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        _refuse(os.fstat(fd), where, limit if limit is not None else 1 << 62, what)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | Path, where: Location, limit: int, what: str) -> bytes:
    """The bytes of ``path``: a regular file of at most ``limit`` bytes, else :class:`InputError` at ``where``.

    Opened by :func:`open_regular` (a FIFO is refused instead of waited on); at most ``limit + 1`` bytes are read
    (a file growing meanwhile is refused too).
    """
    fd = open_regular(path, where, what, limit)
    try:
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise InputError(where, f"cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if total > limit:
        raise InputError(where, f"{what} grew beyond the limit of {_mib(limit)} while being read")
    return b"".join(chunks)
