"""Opening a file for writing inside a root folder, never through a symbolic link planted below it.

A run folder or a labelling folder can be shared, copied or prepared by someone else. A link planted where voxeval
writes (``replies.jsonl`` → ``~/.bashrc``, ``audio/replies`` → ``/tmp/elsewhere``, ``human/da/me.jsonl`` dangling
to a path outside) would make a plain ``open`` write outside the folder. Every writer reaches its file from the
``root`` it writes into (the run or labelling folder; by default the file's own folder) one folder at a time with
``O_NOFOLLOW | O_DIRECTORY`` on descriptors (``openat``), creating missing folders as it goes, and opens the file
itself with ``O_NOFOLLOW``: a link anywhere below the root is refused with :class:`OutputError`, nothing written.
The root itself is the user's choice (``--out`` may be a link) and is followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from voxeval.errors import OutputError

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | _CLOEXEC


def _linked(path: Path, root: Path) -> OutputError:
    reason = f"is a symbolic link or not a folder; voxeval writes only inside {root} and never through a link"
    return OutputError(path, OSError(errno.ELOOP, reason + " (remove it)"))


def _inside(path: Path, root: Path) -> tuple[str, ...]:
    """The folders between ``root`` and ``path``'s name (lexically: ``..`` is refused)."""
    relative = Path(os.path.abspath(path)).parent.relative_to(os.path.abspath(root))
    if ".." in relative.parts:
        raise ValueError(relative)
    return relative.parts


@contextlib.contextmanager
def folder_of(path: str | Path, root: str | Path | None = None) -> Iterator[int]:
    """A descriptor of ``path``'s folder, reached from ``root`` (default: that folder) without following a link.

    Missing folders are created. A link (or a file) where a folder should be, or a ``path`` outside ``root``,
    raises :class:`OutputError` naming it.
    """
    target = Path(path)
    base = Path(root) if root is not None else target.parent
    try:
        parts = _inside(target, base)
    except ValueError:
        raise OutputError(target, OSError(errno.EXDEV, f"outside the folder voxeval writes into ({base})")) from None
    try:
        base.mkdir(parents=True, exist_ok=True)
        fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError as exc:
        raise OutputError(base, exc) from exc
    try:
        here = base
        for part in parts:
            here = here / part
            try:
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass  # a folder already, or a link: opened without following below
            except OSError as exc:
                raise OutputError(here, exc) from exc
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _linked(here, base) from None
                raise OutputError(here, exc) from exc
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def open_file(name: str, folder: int, flags: int, where: Path, root: Path) -> int:
    """``name`` in the folder descriptor ``folder``, opened with ``flags | O_NOFOLLOW``; it must be (or become) a
    regular file: a link, a FIFO or a device there raises :class:`OutputError` and nothing is written."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, 0o644, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _linked(where, root) from None
        raise OutputError(where, exc) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputError(where, OSError(errno.EINVAL, "is not a regular file (a FIFO, a device?); remove it"))
    os.set_blocking(fd, True)
    return fd


def open_append(path: str | Path, root: str | Path | None = None) -> int:
    """``path`` opened for appending (created if missing) inside ``root``, never through a link."""
    target = Path(path)
    with folder_of(target, root) as folder:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        return open_file(target.name, folder, flags, target, Path(root or target.parent))


def refuse_link(path: str | Path) -> None:
    """:class:`OutputError` when ``path`` itself is a symbolic link (checked before a log is repaired in place)."""
    with contextlib.suppress(OSError):
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise _linked(Path(path), Path(path).parent)


def write_replace(path: str | Path, data: bytes, root: str | Path | None = None) -> None:
    """Write ``data`` to a new temporary file beside ``path`` and rename it over ``path`` (inside ``root``, no
    link followed: a link at ``path`` itself is replaced, never written through). The temporary file is removed
    on any error."""
    target = Path(path)
    with folder_of(target, root) as folder:
        tmp = f".{target.name}.{secrets.token_hex(6)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        fd = open_file(tmp, folder, flags, target.parent / tmp, Path(root or target.parent))
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            if isinstance(exc, OSError):
                raise OutputError(target, exc) from exc
            raise
