"""An exclusive lock on a run directory: two runs writing the same logs would interleave and corrupt them."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from pathlib import Path
from types import TracebackType

from voxeval.errors import ConfigError, OutputError

LOCK_NAME = ".voxeval.lock"
"""File holding the lock, and the pid and host of its holder."""


class RunLock:
    """Held while a command writes into a run directory; released on exit (and by the OS if the process dies).

    The holder removes the lock file when it exits, so a finished command leaves nothing beside its output. It
    unlinks the file while it still holds the ``flock``, and a process that locks a file checks that the path still
    names what it locked (else it was removed meanwhile and the process locks the new file): so a holder only ever
    removes its own lock, and two processes never both hold one path.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d, RunLock(Path(d)):
    ...     RunLock(Path(d)).__enter__()
    Traceback (most recent call last):
    ...
    voxeval.errors.ConfigError: ...
    """

    def __init__(
        self, run_dir: Path, name: str = LOCK_NAME, *, instead: str = "use another --out", root: Path | None = None
    ) -> None:
        self.path = run_dir / name
        self.instead = instead
        """What else to do while it is held (the end of the error message)."""
        self.root = root
        """Folder the lock file is created inside without following a link (default: ``run_dir``)."""
        self._fd: int | None = None
        self._writable = True

    def __enter__(self) -> RunLock:
        import fcntl

        while True:
            fd = self._open()
            if fd is None:  # a folder this process cannot write: nothing to lock (see _open)
                return self
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
                os.close(fd)
                raise ConfigError(
                    f"{self.path.parent} is in use by {holder}; wait for it to finish, or {self.instead}"
                ) from None
            if self._names(fd):
                break
            os.close(fd)  # its holder removed this file between our open and flock: lock the path's new file
        self._fd = fd
        if self._writable:
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode(), 0)
            except OSError as exc:
                self.__exit__(None, None, None)
                raise OutputError(self.path, exc) from exc
        return self

    def _open(self) -> int | None:
        """The lock file, for writing; on a read-only folder an existing one for reading, or ``None`` when there is
        none (the holder that wrote the folder removed it): nothing can write there, and a finished run's rerun
        writes nothing (an unfinished one stops at its first write, naming the file). Anything else raises
        :class:`OutputError`."""
        from voxeval.io._safe import folder_of, open_file

        self._writable = True
        try:
            with folder_of(self.path, self.root) as folder:  # never through a planted link (voxeval.io._safe)
                flags = os.O_RDWR | os.O_CREAT
                return open_file(self.path.name, folder, flags, self.path, self.root or self.path.parent)
        except OutputError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) and self.path.is_file():
                self._writable = False
                return os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) and self.path.parent.is_dir():
                return None
            raise

    def _names(self, fd: int) -> bool:
        """Whether the lock path still names the open file ``fd``."""
        try:
            here, held = os.stat(self.path), os.fstat(fd)
        except FileNotFoundError:
            return False
        return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            if self._writable:
                # Removed while still held (see the class docstring), on a clean exit and after an error alike: the
                # output's own files are closed by now. A lock file that cannot be removed (a folder made read-only
                # meanwhile, a full disk) is only left behind: it must not hide the error that stopped the command,
                # and the next holder reuses it.
                with contextlib.suppress(OSError):
                    if self._names(self._fd):
                        os.unlink(self.path)
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing releases the flock
            self._fd = None
