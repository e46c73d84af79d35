"""Built-in style instruction sets (and user files in the same format)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from voxeval.data import parse_id, read_jsonl
from voxeval.errors import InputError, Location
from voxeval.style._types import LEVELS, StyleItem


@dataclass(frozen=True)
class StyleSet:
    """A named list of style items."""

    name: str
    """Built-in name (``acoustic-ja``) or the file's stem."""
    path: Path
    """The JSONL file."""
    items: tuple[StyleItem, ...]
    """Items in file order."""


def builtin_style_sets() -> list[str]:
    """Names of the built-in style sets."""
    root = resources.files("voxeval.data.builtin").joinpath("style")
    return sorted(p.name[: -len(".jsonl")] for p in root.iterdir() if p.name.endswith(".jsonl"))


def _requirements(raw: Any, where: Location) -> dict[str, str]:
    if not isinstance(raw, dict) or not raw:
        raise InputError(where, "must be a non-empty object of attribute → level")
    for attribute, level in raw.items():
        if attribute not in LEVELS:
            raise InputError(where.child(attribute), f"unknown attribute; expected one of {', '.join(LEVELS)}")
        if level not in LEVELS[attribute]:
            raise InputError(where.child(attribute), f"unknown level {level!r}; expected one of {LEVELS[attribute]}")
    return dict(raw)


def parse_style_row(row: dict[str, Any], where: Location) -> StyleItem:
    """One row: id, language, ability, instruction, content, requirements, content_check."""
    for key in ("language", "ability", "instruction", "requirements"):
        if key not in row:
            raise InputError(where.child(key), "missing")
    check = row.get("content_check", "exact" if row.get("content") else "unknown")
    if check not in ("exact", "open", "unknown"):
        raise InputError(where.child("content_check"), f"must be exact, open or unknown, got {check!r}")
    for key in ("language", "ability", "instruction"):
        if not isinstance(row[key], str) or not row[key].strip():
            raise InputError(where.child(key), "must be a non-empty string")
    return StyleItem(
        id=parse_id(row, where),
        ability=row["ability"],
        instruction=row["instruction"],
        language=row["language"],
        content=str(row.get("content") or ""),
        content_check=check,
        requirements=_requirements(row["requirements"], where.child("requirements")),
        instruct_id=row.get("instruct_id") or parse_id(row, where),
    )


def load_style_set(spec: str | Path) -> StyleSet:
    """A built-in set name (``acoustic-ja``, also ``style/acoustic-ja``), a JSONL file of style rows, or VStyle's
    own layout (``vstyle:FILE_OR_FOLDER``, a folder, or ``hf:DIR`` of VStyle rows; :mod:`voxeval.interop`)."""
    if str(spec).startswith(("vstyle:", "hf:")) or Path(spec).is_dir():
        from voxeval.interop._vstyle import vstyle_set

        return vstyle_set(str(spec))
    path = Path(spec)
    name = path.stem
    if not (path.suffix == ".jsonl" or path.exists()):
        name = str(spec).removeprefix("style/")
        path = Path(str(resources.files("voxeval.data.builtin").joinpath("style").joinpath(f"{name}.jsonl")))
        if not path.is_file():
            raise InputError(
                Location(field="dataset"), f"no style set {spec!r}; built-in: {', '.join(builtin_style_sets())}"
            )
    items, seen = [], set()
    for line, row in read_jsonl(path):
        item = parse_style_row(row, Location(str(path), line))
        if item.id in seen:
            raise InputError(Location(str(path), line, "id"), f"duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise InputError(Location(str(path)), "no rows")
    return StyleSet(name, path, tuple(items))
