"""The labelling page's URL token, kept per run (or items folder) and labeller, so a restarted server keeps it.

A tab left open while ``voxeval label`` restarts goes on working: the token is read back from
``ROOT/human/.<labeller>.token`` (created owner-only, 0600, never through a symlink) instead of drawn anew.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from voxeval.errors import InputError, Location

TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,128}$")
"""What a stored token must look like (``secrets.token_urlsafe(24)`` gives 32 characters)."""


def token_path(root: Path, labeller: str) -> Path:
    """Where a labeller's token for ``root`` is kept."""
    return root / "human" / f".{labeller}.token"


def stored_token(root: Path, labeller: str) -> str:
    """The labeller's token for ``root``: the stored one, or a new one written owner-only (0600)."""
    path = token_path(root, labeller)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read(path)
    token = secrets.token_urlsafe(24)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(token + "\n")
    return token


def _read(path: Path) -> str:
    where = Location(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:  # a symlink (ELOOP) or unreadable: never followed, never replaced silently
        raise InputError(
            where, f"cannot read the labeller's token ({exc.strerror}); delete the file to draw a new one"
        ) from None
    with os.fdopen(fd, encoding="ascii", errors="replace") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077:
            raise InputError(where, "must be a regular file readable by its owner only (0600); delete it to draw anew")
        token = f.read(256).strip()
    if not TOKEN.match(token):
        raise InputError(where, "not a voxeval label token; delete the file to draw a new one")
    return token
