"""Resolving file paths written inside data files, refusing any that escape the data's root folder."""

from __future__ import annotations

from pathlib import Path

from voxeval.errors import InputError, Location


def resolve_inside(root: Path, value: object, where: Location, folder: str = "dataset folder") -> Path:
    """``root / value`` if it stays inside ``root`` (after following symlinks) and is a file.

    Absolute paths, ``..`` segments that leave the root, and symlinks pointing outside it are refused:
    a dataset must not be able to make voxeval read arbitrary files. ``folder`` names ``root`` in errors.
    """
    if not isinstance(value, str) or not value or "\x00" in value:  # a NUL byte: no path the OS can open
        raise InputError(where, f"must be a relative file path, got {value!r}")
    rel = Path(value)
    if rel.is_absolute():
        raise InputError(where, f"absolute paths are not allowed ({value!r}); use a path relative to {root}")
    base = root.resolve()
    target = (base / rel).resolve()
    if not target.is_relative_to(base):
        raise InputError(where, f"path {value!r} leaves the {folder} {base}")
    if not target.is_file():
        raise InputError(where, f"file {value!r} not found under {base}")
    return target
