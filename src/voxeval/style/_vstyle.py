"""VStyle's result format: JSONL rows of responses to judge, read into :class:`StyleItem` s.

A row: ``id`` (the response), ``instruct_id`` (the instruction several models answered; optional),
``model_name``, ``ability`` (``category/sub``), ``instruct_text``, ``response_audio_path`` (WAV or MP3,
relative to a root folder) and optionally ``response_text``. The instruction's language is read from its
script (kana → ``ja``, other CJK ideographs → ``zh``, else ``en``), the content to speak with
:func:`~voxeval.judge.read_task`, and the requirements with :func:`parse_requirements` on the instruction
without that content, except for ``empathy/*`` items, whose instruction describes the user's feelings rather than
the reply's style (no requirements). Errors name the file, line and field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from voxeval.data import read_jsonl, resolve_inside
from voxeval.errors import InputError, Location
from voxeval.style._requirements import parse_requirements
from voxeval.style._task import read_task, style_text
from voxeval.style._types import StyleItem

AUDIO_SUFFIXES = (".wav", ".mp3")
"""Response audio formats VStyle uses."""

_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> str:
    """``ja`` if the text has kana, ``zh`` if it has CJK ideographs, else ``en``.

    >>> detect_language("とても大きな声で"), detect_language("用非常快的语速"), detect_language("Speak slowly")
    ('ja', 'zh', 'en')
    """
    if _KANA.search(text):
        return "ja"
    if _CJK.search(text):
        return "zh"
    return "en"


def _text(row: dict[str, Any], name: str, where: Location) -> str:
    if name not in row:
        raise InputError(where.child(name), "missing")
    value = row[name]
    if not isinstance(value, str) or not value.strip():
        raise InputError(where.child(name), f"must be a non-empty string, got {value!r}")
    return value


def _identifier(row: dict[str, Any], name: str, where: Location) -> str:
    value = row.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # VStyle ids may be numbers; ids are compared as strings
    return _text(row, name, where)


def _ability(row: dict[str, Any], where: Location) -> str:
    # Imported here: voxeval.metrics._vstyle imports voxeval.style (its Judgement type), which imports this module.
    from voxeval.metrics._vstyle import ABILITIES

    ability = _text(row, "ability", where)
    if ability not in ABILITIES:
        raise InputError(where.child("ability"), f"unknown ability {ability!r}; VStyle's are: {', '.join(ABILITIES)}")
    return ability


def _audio_path(row: dict[str, Any], root: Path, where: Location) -> str:
    value = _text(row, "response_audio_path", where)
    if Path(value).suffix.lower() not in AUDIO_SUFFIXES:
        raise InputError(where.child("response_audio_path"), f"expected a .wav or .mp3 file, got {value!r}")
    resolve_inside(root, value, where.child("response_audio_path"))
    return value


def read_instruction(instruction: str, ability: str, language: str) -> tuple[Any, dict[str, Any]]:
    """The task an instruction sets (what to say, how it is checked) and the style requirements it states."""
    task = read_task(instruction, language)
    # An empathy instruction tells how the *user* feels ("I'm so sad today"); it states no style for the reply.
    requirements = {} if ability.startswith("empathy/") else parse_requirements(style_text(instruction, task), language)
    return task, requirements


def parse_vstyle_row(row: dict[str, Any], root: Path, where: Location) -> StyleItem:
    """One VStyle row as a :class:`StyleItem` (the audio file must exist inside ``root``)."""
    instruction = _text(row, "instruct_text", where)
    response_text = row.get("response_text")
    if response_text is not None and not isinstance(response_text, str):
        raise InputError(where.child("response_text"), f"must be a string or null, got {response_text!r}")
    language = detect_language(instruction)
    ability = _ability(row, where)
    task, requirements = read_instruction(instruction, ability, language)
    return StyleItem(
        id=_identifier(row, "id", where),
        ability=ability,
        instruction=instruction,
        language=language,
        content=task.content,
        content_check=task.check,
        requirements=requirements,
        instruct_id=None if row.get("instruct_id") is None else _identifier(row, "instruct_id", where),
        model_name=_text(row, "model_name", where),
        response_audio=_audio_path(row, root, where),
        response_text=response_text,
    )


def read_vstyle(path: str | Path, root: str | Path) -> list[StyleItem]:
    """All rows of a VStyle metadata JSONL file; a repeated ``id`` is an error naming both lines."""
    items: list[StyleItem] = []
    seen: dict[str, int] = {}
    for line, row in read_jsonl(path):
        where = Location(str(path), line)
        item = parse_vstyle_row(row, Path(root), where)
        if item.id in seen:
            raise InputError(where.child("id"), f"id {item.id!r} already used on line {seen[item.id]}")
        seen[item.id] = line
        items.append(item)
    return items


def read_response_audio(item: StyleItem, root: str | Path) -> bytes:
    """The bytes of an item's response audio, resolved inside ``root`` again (the folder may have changed)."""
    where = Location(item.response_audio, field=f"response of {item.id}")
    from voxeval.speech.audio import read_audio_file

    return read_audio_file(resolve_inside(Path(root), item.response_audio, where), where)
