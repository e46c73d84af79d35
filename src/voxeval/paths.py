"""Where voxeval keeps caches (assembled model files, request cache): ``$VOXEVAL_CACHE`` or ~/.cache/voxeval."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    """A folder under the cache root, created on demand."""
    root = Path(os.environ.get("VOXEVAL_CACHE") or Path.home() / ".cache" / "voxeval")
    path = root.joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def join_parts(parts: Sequence[Path], target: Path, expected_sha256: str) -> Path:
    """Concatenate split model files into ``target`` (temp file + rename) and verify the sha256.

    Reuses an existing ``target`` when a sidecar ``.sha256`` file records the expected hash.
    Raises ``ValueError`` when the joined file does not have the expected hash (it is then removed).
    """
    stamp = target.with_name(target.name + ".sha256")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == expected_sha256:
        return target
    tmp = target.with_name(target.name + f".{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    for block in iter(lambda f=f: f.read(1 << 20), b""):  # type: ignore[misc]
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != expected_sha256:
            raise ValueError(f"joined {target.name} has sha256 {digest.hexdigest()}, expected {expected_sha256}")
        os.replace(tmp, target)
        stamp.write_text(expected_sha256 + "\n")
    finally:
        tmp.unlink(missing_ok=True)
    return target
