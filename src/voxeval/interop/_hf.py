"""Hugging Face dataset folders on disk (the ``datasets`` library, extra ``hf``): writing the Hub's layout and
reading it back, or a ``save_to_disk`` folder, as plain records.

The layout written is the one the Hub serves and ``datasets.load_dataset(DIR)`` reads offline: one parquet file per
split under ``data/`` (``data/dev-00000-of-00001.parquet``) and a dataset card ``README.md`` whose YAML header
names the files of each split (``configs``). Audio is an ``Audio`` column stored as encoded bytes (WAV) with a file
name, written without decoding (no ``torchcodec`` needed) and read back the same way (``Audio(decode=False)``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError, InputError, Location

SAVED_MARKERS = ("dataset_dict.json", "state.json")
"""Files that mark a folder written by ``Dataset.save_to_disk`` / ``DatasetDict.save_to_disk``."""


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise ConfigError("Hugging Face datasets need the `datasets` library: pip install 'voxeval[hf]'") from None
    datasets.disable_progress_bars()
    return datasets


def _features(kind: str, audio: bool) -> Any:
    """The ``datasets.Features`` of an exported single-turn (``gold``) or dialogue (``dialogue``) dataset."""
    ds = _datasets()
    text, number = ds.Value("string"), ds.Value("float64")
    steps = ds.List({"act": text, "importance": number, "rationale": text, "span": text})
    if kind == "gold":
        columns: dict[str, Any] = {k: text for k in ("id", "split", "domain", "background", "input_text", "locale")}
        columns.update(output_text=text, steps=steps, extra=text)
    else:
        turn = {"role": text, "text": text, "context": text, "phenomena": ds.List(text), "steps": steps, "extra": text}
        columns = {k: text for k in ("id", "split", "domain", "locale", "background")}
        columns.update(turns=ds.List(turn), extra=text)
    if audio:
        columns["audio"] = {"bytes": ds.Value("binary"), "path": ds.Value("string")}
    return ds.Features(columns)


def split_files(records: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Records by split name (``train`` when a record has none, as the Hub names a single split)."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        out.setdefault(str(record.get("split") or "train"), []).append(record)
    return out


def _fresh(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"{out} already exists and is not an empty folder; give a new --out (nothing was written)")


def write_hf_folder(out: Path, records: Sequence[Mapping[str, Any]], kind: str, card: str, audio: bool) -> list[Path]:
    """Write ``records`` as a dataset folder (parquet per split + ``README.md``); returns the parquet files.

    Written into a temporary sibling folder and renamed into place, so ``out`` is either complete or absent.
    """
    ds = _datasets()
    _fresh(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        files = []
        for split, rows in split_files(records).items():
            table = ds.Dataset.from_list([dict(r) for r in rows], features=_features(kind, audio))
            if audio:
                table = table.cast_column("audio", ds.Audio())
            path = work / "data" / f"{split}-00000-of-00001.parquet"
            table.to_parquet(str(path))
            files.append(out / path.relative_to(work))
        (work / "README.md").write_text(card, encoding="utf-8")
        if out.exists():
            out.rmdir()
        os.replace(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return files


def _table_rows(table: Any) -> list[dict[str, Any]]:
    ds = _datasets()
    for name, feature in table.features.items():
        if isinstance(feature, ds.Audio):
            table = table.cast_column(name, ds.Audio(decode=False))
    return [dict(row) for row in table]


def read_hf_folder(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Every split of a local dataset folder as records (audio cells as ``{"bytes", "path"}``).

    A ``save_to_disk`` folder is read with ``load_from_disk``; any other folder with ``load_dataset(folder)``
    (parquet, JSON, CSV files in the Hub's layouts, split by file name or by the card's ``configs``), which reads
    local files only.
    """
    ds = _datasets()
    if not folder.is_dir():
        raise InputError(Location(str(folder)), "no such dataset folder")
    with tempfile.TemporaryDirectory(prefix="voxeval-hf-") as cache:
        try:
            if any((folder / m).is_file() for m in SAVED_MARKERS):
                loaded = ds.load_from_disk(str(folder))
            else:
                loaded = ds.load_dataset(str(folder), cache_dir=cache)
        except (ValueError, FileNotFoundError, OSError) as exc:  # datasets' own errors name no file: add the folder
            raise InputError(Location(str(folder)), f"not a readable Hugging Face dataset folder: {exc}") from None
        if isinstance(loaded, ds.Dataset):
            return {"train": _table_rows(loaded)}
        return {split: _table_rows(table) for split, table in loaded.items()}


_DIGESTS: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}
"""Digests already computed in this process, keyed by folder and every file's (name, mtime, size): a run resolves
its ``hf:`` folder several times (config, fingerprint, loading), and rehashing a large folder each time is waste."""


def folder_digest(folder: Path) -> str:
    """A sha256 over the names and bytes of every file in ``folder`` (what a materialised copy is keyed by).

    Memoised per process on the files' names, modification times and sizes: a file rewritten in place changes its
    mtime, so a changed folder is hashed again.
    """
    import hashlib

    from voxeval.paths import sha256_file

    files = sorted(p for p in folder.rglob("*") if p.is_file() and ".cache" not in p.parts)
    stamps = []
    for path in files:
        stat = path.stat()
        stamps.append((path.relative_to(folder).as_posix(), stat.st_mtime_ns, stat.st_size))
    key = (str(folder.resolve()), tuple(stamps))
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        for path, (name, _, _) in zip(files, stamps, strict=True):
            digest.update(f"{name}\0{sha256_file(path)}\n".encode())
        _DIGESTS[key] = digest.hexdigest()
    return _DIGESTS[key]
