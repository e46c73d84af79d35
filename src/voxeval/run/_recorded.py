"""Input files a run recorded in its ``config.json``, found again for ``voxeval report`` (by path and sha256).

A report is built only from what the run holds: each dataset (or ``voxeval score``'s gold and prediction file)
is looked for where the run recorded it, and used only when its sha256 is the recorded one. A relative path is
resolved against the run folder first (a run folder moved with its data), then the working directory; another
file of the same name elsewhere is never read in its place. No file with the recorded content is an error naming
the candidates and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location
from voxeval.paths import sha256_file


def _candidates(run_dir: Path, recorded: str, also: str | None) -> list[Path]:
    path = Path(recorded)
    found = [path] if path.is_absolute() else [run_dir / path, Path.cwd() / path]
    if also is not None:
        found.append(Path(also))
    return list(dict.fromkeys(found))


def locate_recorded(run_dir: Path, entry: Any, field: str, also: str | None = None) -> Path:
    """The file ``entry`` (``{"path", "sha256"}`` of ``config.json``'s ``field``) names, with its recorded content.

    ``also``: one more candidate (a built-in dataset's file in this installation).
    """
    where = Location(str(run_dir / "config.json"), field=field)
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("path"), str)
        or not isinstance(entry.get("sha256"), str)
    ):
        raise InputError(where, 'must be {"path": …, "sha256": …}; not a voxeval config')
    mismatched = []
    for candidate in _candidates(run_dir, entry["path"], also):
        if not candidate.is_file():
            continue
        digest = sha256_file(candidate)
        if digest == entry["sha256"]:
            return candidate
        mismatched.append(f"{candidate} (sha256 {digest[:12]}…)")
    looked = ", ".join(map(str, _candidates(run_dir, entry["path"], also)))
    if mismatched:
        raise InputError(
            where,
            f"{entry['path']} changed since the run (recorded sha256 {entry['sha256'][:12]}…, found "
            f"{'; '.join(mismatched)}); restore the file the run used, or rerun into a new --out folder",
        )
    raise InputError(where, f"{entry['path']} not found (looked for {looked}); the report needs the file the run used")
