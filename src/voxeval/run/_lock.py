"""An exclusive lock on a run directory: two runs writing the same logs would interleave and corrupt them."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from types import TracebackType

from voxeval.errors import ConfigError

LOCK_NAME = ".voxeval.lock"
"""File holding the lock, and the pid and host of its holder."""


class RunLock:
    """Held while a command writes into a run directory; released on exit (and by the OS if the process dies).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d, RunLock(Path(d)):
    ...     RunLock(Path(d)).__enter__()
    Traceback (most recent call last):
    ...
    voxeval.errors.ConfigError: ...
    """

    def __init__(self, run_dir: Path, name: str = LOCK_NAME) -> None:
        self.path = run_dir / name
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise ConfigError(
                f"{self.path.parent} is in use by {holder}; wait for it to finish, or use another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)  # closing releases the flock
            self._fd = None
