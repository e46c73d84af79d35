"""``voxeval dataset export --format hf`` and ``--dataset hf:DIR``: voxeval's datasets as Hugging Face dataset folders
and back.

Reading never changes voxeval's own schema: a folder (voxeval's export, or anyone's dataset through a column mapping)
is materialised once into a JSONL file of the paper's schema, its audio into WAV files beside it, in the cache
(``$VOXEVAL_CACHE/interop/KEY/``, KEY a hash of the folder's files and the mapping). A run then reads that file like
any dataset file, and its ``config.json`` records the file's path and sha256.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from voxeval.data import atomic_write_bytes, atomic_write_jsonl, parse_dialogue, parse_gold
from voxeval.errors import InputError, Location
from voxeval.interop._columns import (
    ColumnMapping,
    dialogue_record,
    dialogue_row,
    gold_record,
    gold_row,
    mapped_gold_row,
    parse_source,
)
from voxeval.interop._hf import folder_digest, read_hf_folder

FORMAT = "voxeval-hf-1"
"""Version of the materialised layout (part of the cache key: a change re-materialises)."""

Row = dict[str, Any]

_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")
"""An audio file extension as kept from an audio cell's file name."""


def _own_row(rebuild: Callable[[Row, Location], Row], record: Row, where: Location) -> Row:
    """A row rebuilt from voxeval's export; a record whose columns claim the export but whose ``extra`` does not
    fit is an error naming the row, never a traceback."""
    try:
        return rebuild(record, where)
    except (TypeError, KeyError, AttributeError, ValueError) as exc:
        raise InputError(where.child("extra"), f"not a row of voxeval's export ({type(exc).__name__}: {exc})") from None


def is_hf_spec(spec: str | Path) -> bool:
    """Whether a ``--dataset`` value names a dataset folder (``hf:DIR…`` or an existing folder)."""
    return str(spec).startswith("hf:") or Path(spec).is_dir()


def _key(folder: Path, mapping: ColumnMapping, kind: str) -> str:
    blob = f"{FORMAT}\n{kind}\n{mapping.spec}\n{folder_digest(folder)}"
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


def _audio_file(cell: Any, root: Path, where: Location) -> str | None:
    """Write an audio cell's bytes beside the materialised file; its path relative to the file's folder."""
    if cell is None:
        return None
    if not isinstance(cell, Mapping) or not isinstance(cell.get("bytes"), bytes):
        raise InputError(where, "an audio cell must hold the audio's bytes (an Audio column stored with its data)")
    data = cell["bytes"]
    suffix = Path(str(cell.get("path") or "x.wav")).suffix.lower()
    suffix = suffix if _SUFFIX.fullmatch(suffix) else ".wav"  # a name from the data: only a plain extension kept
    name = f"audio/{hashlib.sha256(data).hexdigest()[:24]}{suffix}"
    if not (root / name).is_file():
        atomic_write_bytes(root / name, data)
    return name


def _order(record: Row) -> int:
    """The row position voxeval's export recorded in ``extra.order`` (0 when there is none)."""
    try:
        extra = json.loads(record.get("extra") or "{}")
    except (TypeError, json.JSONDecodeError):
        return 0  # not voxeval's export: the mapped reader keeps split and row order
    return int(extra.get("order", 0)) if isinstance(extra, dict) else 0


def _located(folder: Path, own: bool) -> list[tuple[Location, str, int, Row]]:
    """Every record with where it is (its split and row number); voxeval's own export back in file order (its
    splits are separate files, and a run's ``--limit`` takes the first rows)."""
    found = [
        (Location(f"{folder}/{split}", k + 1), split, k, record)
        for split, records in read_hf_folder(folder).items()
        for k, record in enumerate(records)
    ]
    return sorted(found, key=lambda entry: _order(entry[3])) if own else found


def _own_export(records: list[Row]) -> bool:
    return bool(records) and {"input_text", "output_text", "steps", "extra"} <= set(records[0])


def _gold_rows(folder: Path, mapping: ColumnMapping, root: Path) -> list[Row]:
    located = _located(folder, own=False)
    own = not mapping.columns and _own_export([entry[3] for entry in located[:1]])
    rows: list[Row] = []
    seen: dict[str, str] = {}
    for where, split, k, record in sorted(located, key=lambda e: _order(e[3])) if own else located:
        row = _own_row(gold_row, record, where) if own else mapped_gold_row(record, mapping, k, split, where)
        audio = _audio_file(record.get(mapping.column("audio", "audio")), root, where.child("audio"))
        if audio is not None:
            row["input"]["audio"] = audio
        sample = parse_gold(row, where)
        if sample.id in seen:
            raise InputError(where.child("id"), f"duplicate id {sample.id!r} (also in {seen[sample.id]})")
        seen[sample.id] = str(where)
        rows.append(row)
    if not rows:
        raise InputError(Location(str(folder)), "no rows")
    return rows


def _mapped_dialogue(record: Row, mapping: ColumnMapping, turns: str, cells: Any, where: Location) -> Row:
    """A dialogue row from someone else's record: its other columns kept, ``id`` / ``background`` / ``locale``
    renamed as the mapping says (``locale`` a column, else the locale itself)."""
    renamed: dict[str, str] = {mapping.columns[f]: f for f in ("id", "background") if f in mapping.columns}
    row = {renamed.get(k, k): v for k, v in record.items() if k != turns and v is not None}
    for source, target in renamed.items():
        if target not in row:
            raise InputError(where.child(source), f"no such column (columns: {', '.join(sorted(record))})")
    if "background" in row:
        row["scenario_context"] = {"background": row.pop("background")}
    if "locale" in mapping.columns:
        column = mapping.columns["locale"]
        row["locale"] = record.get(column, column)
    return row | {"turns": cells}


def _dialogue_rows(folder: Path, mapping: ColumnMapping, root: Path) -> list[Row]:
    own = not mapping.columns
    rows = []
    for where, _, _, record in _located(folder, own):
        if own and "extra" in record:
            row = _own_row(dialogue_row, record, where)
        else:
            turns = mapping.column("turns", "turns")
            if turns not in record:
                raise InputError(where.child(turns), "no such column; map the turns with ?turns=COLUMN")
            # Arrow gives every turn every struct field: a user turn's missing acts come back as nulls.
            cells = record[turns] if isinstance(record[turns], list) else []
            kept = [{k: v for k, v in t.items() if v is not None} if isinstance(t, dict) else t for t in cells]
            row = _mapped_dialogue(record, mapping, turns, kept or record[turns], where)
        parse_dialogue(row, where)
        rows.append(row)
    if not rows:
        raise InputError(Location(str(folder)), "no rows")
    return rows


def _materialise(spec: str, kind: str, convert: Callable[[Path, ColumnMapping, Path], list[Row]]) -> Path:
    from voxeval.paths import cache_dir

    folder_text, mapping = parse_source(str(spec))
    folder = Path(folder_text)
    if not folder.is_dir():
        raise InputError(Location(str(folder)), "no such dataset folder")
    root = cache_dir("interop", _key(folder, mapping, kind))
    target = root / f"{folder.resolve().name}.jsonl"
    if not target.is_file():
        atomic_write_jsonl(target, convert(folder, mapping, root))
    return target


def hf_gold_file(spec: str) -> Path:
    """The materialised single-turn JSONL file of ``hf:DIR[?mapping]`` (written on first use)."""
    return _materialise(spec, "gold", _gold_rows)


def hf_dialogue_file(spec: str) -> Path:
    """The materialised dialogue JSONL file of ``hf:DIR[?turns=COLUMN]`` (written on first use)."""
    return _materialise(spec, "dialogue", _dialogue_rows)


def _numbered(records: list[Row]) -> list[Row]:
    """Records carrying their row's position in ``extra.order``: the splits go to separate files, and reading them
    back restores the file order (a run's ``--limit`` takes the first rows)."""
    out = []
    for k, record in enumerate(records):
        extra = json.loads(record["extra"] or "{}")
        out.append({**record, "extra": json.dumps({**extra, "order": k}, ensure_ascii=False, sort_keys=True)})
    return out


def gold_records(rows: list[Row]) -> list[Row]:
    """Export records of single-turn rows (audio added by the caller)."""
    return _numbered([gold_record(r) for r in rows])


def dialogue_records(rows: list[Row]) -> list[Row]:
    """Export records of dialogue rows."""
    return _numbered([dialogue_record(r) for r in rows])
