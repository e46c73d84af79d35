"""VStyle's own data layout as a style set for ``voxeval run --benchmark style``.

VStyle ships one row per instruction (``metadata*.jsonl`` in a language folder, or the same columns in a Hugging Face
dataset): ``instruct_text``, ``ability`` (``category/sub``), ``instruct_id``, ``instruct_audio_path`` and the
``responses`` of the models it judged. A run needs the instruction only: its language is read from its script, the
content to speak and the style requirements from its text (as ``voxeval judge`` reads VStyle rows), and an
``empathy/*`` instruction states no style (no requirements). The responses and instruction audio are not used: the
run's systems answer, and the instruction is spoken by the run's TTS like any style set's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.data import atomic_write_jsonl, read_jsonl
from voxeval.errors import InputError, Location
from voxeval.style import StyleItem, StyleSet

VSTYLE_COLUMNS = ("instruct_text", "ability")
"""Columns every VStyle instruction row has."""

PUBLISHED_ABILITY_NAMES = {
    "Instruction/conversion": "instruction/variation",
    "Instruction/emotion": "instruction/emotion",
    "Instruction/style": "instruction/style",
    "Role-Playing/character": "role_play/character",
    "Role-Playing/scenario": "role_play/scenario",
}
"""Ability names of VStyle's published data that differ from its result format's (the same table as
benchmarks/acoustic_vstyle_data.py reads the development examples with)."""


def vstyle_item(row: dict[str, Any], where: Location) -> StyleItem:
    """One VStyle instruction row as a style item (id: ``instruct_id``, else ``id``)."""
    from voxeval.style._vstyle import _ability, _identifier, _text, detect_language, read_instruction

    instruction = _text(row, "instruct_text", where)
    name = row.get("ability")
    ability = _ability(
        {**row, "ability": PUBLISHED_ABILITY_NAMES.get(name, name) if isinstance(name, str) else name}, where
    )
    language = detect_language(instruction)
    task, requirements = read_instruction(instruction, ability, language)
    key = "instruct_id" if row.get("instruct_id") is not None else "id"
    item_id = _identifier(row, key, where)
    return StyleItem(
        id=item_id,
        ability=ability,
        instruction=instruction,
        language=language,
        content=task.content,
        content_check=task.check,
        requirements=requirements,
        instruct_id=item_id,
    )


def _metadata_file(folder: Path) -> Path | None:
    """The one VStyle metadata file directly in ``folder`` (``None`` when there is none)."""
    found = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise InputError(Location(str(folder)), f"several JSONL files ({names}); give the metadata file itself")
    return found[0] if found else None


def _from_hf(spec: str) -> Path:
    """A Hugging Face dataset folder of VStyle rows, materialised once as a VStyle metadata JSONL file."""
    from voxeval.interop._columns import parse_source
    from voxeval.interop._hf import folder_digest, read_hf_folder
    from voxeval.paths import cache_dir

    folder = Path(parse_source(spec)[0])
    if not folder.is_dir():
        raise InputError(Location(str(folder)), "no such dataset folder")
    root = cache_dir("interop", "vstyle-" + folder_digest(folder)[:20])
    target = root / f"{folder.resolve().name}.jsonl"
    if not target.is_file():
        rows = [
            {k: v for k, v in r.items() if not isinstance(v, (bytes, dict)) or k == "responses"}
            for records in read_hf_folder(folder).values()
            for r in records
        ]
        atomic_write_jsonl(target, rows)
    return target


def vstyle_set(spec: str) -> StyleSet:
    """``vstyle:FILE_OR_FOLDER`` (or a folder): VStyle instruction rows as a style set named after the folder."""
    body = spec.removeprefix("vstyle:")
    path = Path(body.removeprefix("hf:"))
    if path.is_dir():
        found = None if body.startswith("hf:") else _metadata_file(path)
        name = path.resolve().name
        path = found if found is not None else _from_hf(body)
    else:
        name = path.parent.resolve().name if path.stem.startswith("metadata") else path.stem
    if not path.is_file():
        raise InputError(Location(str(path)), "no such VStyle metadata file or folder")
    items: list[StyleItem] = []
    seen: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        missing = [c for c in VSTYLE_COLUMNS if c not in row]
        if missing:
            raise InputError(where.child(missing[0]), "missing: not a VStyle instruction row")
        item = vstyle_item(row, where)
        if item.id in seen:
            raise InputError(where.child("instruct_id"), f"id {item.id!r} already used on line {seen[item.id]}")
        seen[item.id] = line
        items.append(item)
    if not items:
        raise InputError(Location(str(path)), "no rows")
    return StyleSet(name, path, tuple(items))
