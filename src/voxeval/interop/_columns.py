"""voxeval rows ↔ flat Hugging Face records (pure): the column layout of an exported dataset and the column mapping
that reads someone else's dataset.

An exported single-turn row is one record of :data:`GOLD_COLUMNS`; an exported dialogue one record of
:data:`DIALOGUE_COLUMNS` whose ``turns`` is a list of structs. Keys voxeval does not interpret travel in ``extra``
(JSON text), so ``record → row`` gives back exactly the row that was exported (its ``input.audio`` path aside: the
audio itself travels in the ``audio`` column).

>>> row = {"id": "a", "scenario_context": {"background": "b"}, "input": {"role": "USER", "text": "hi",
...        "locale": "en-US"}, "output": {"role": "ASSISTANT", "text": "Hello."},
...        "output_dialogue_acts": {"steps": [{"act": "Greeting", "importance": 1.0}]}}
>>> gold_row(gold_record(row)) == row
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from voxeval.errors import InputError, Location

STEP_FIELDS = ("act", "importance", "rationale", "span")
"""Fields of one dialogue-act step in the ``steps`` struct list."""

GOLD_COLUMNS = ("id", "split", "domain", "background", "input_text", "locale", "output_text", "steps", "extra")
"""Columns of an exported single-turn dataset (plus ``audio`` when it carries the input audio)."""

DIALOGUE_COLUMNS = ("id", "split", "domain", "locale", "background", "turns", "extra")
"""Columns of an exported dialogue set."""

TURN_FIELDS = ("role", "text", "context", "phenomena", "steps", "extra")
"""Fields of one turn in a dialogue record's ``turns``."""

MAPPABLE = ("id", "input", "output", "steps", "background", "domain", "split", "locale", "audio", "turns")
"""What a column mapping (``hf:DIR?input=question&output=answer``) may name: schema field → source column."""


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if value else ""


def _steps_record(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Steps as structs of :data:`STEP_FIELDS` and what each step holds beyond them."""
    structs = [{k: s.get(k) for k in STEP_FIELDS} for s in steps]
    rest = [{k: v for k, v in s.items() if k not in STEP_FIELDS} for s in steps]
    return structs, rest


def _leftover(obj: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in known}


def gold_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """A single-turn row (already validated) as a record of :data:`GOLD_COLUMNS`."""
    user, reply, scenario = row["input"], row["output"], row.get("scenario_context") or {}
    structs, step_rest = _steps_record(row["output_dialogue_acts"]["steps"])
    extra = {
        "row": _leftover(row, ("id", "split", "domain", "scenario_context", "input", "output", "output_dialogue_acts")),
        "scenario_context": _leftover(scenario, ("background",)),
        "input": _leftover(user, ("text", "locale", "audio")),
        "output": _leftover(reply, ("text",)),
        "output_dialogue_acts": _leftover(row["output_dialogue_acts"], ("steps",)),
        "steps": step_rest if any(step_rest) else [],
        "has": [k for k in ("background", "locale") if k in (scenario if k == "background" else user)],
        "int_id": isinstance(row["id"], int),
    }
    return {
        "id": str(row["id"]),
        "split": row.get("split"),
        "domain": row.get("domain"),
        "background": scenario.get("background"),
        "input_text": user["text"],
        "locale": user.get("locale"),
        "output_text": reply["text"],
        "steps": structs,
        "extra": _json({k: v for k, v in extra.items() if v}),
    }


def _steps_row(structs: list[dict[str, Any]], rest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rest = rest or [{} for _ in structs]
    return [{**{k: v for k, v in s.items() if v is not None}, **r} for s, r in zip(structs, rest, strict=False)]


def _extra(record: Mapping[str, Any], where: Location) -> dict[str, Any]:
    text = record.get("extra") or ""
    try:
        value = json.loads(text) if text else {}
    except json.JSONDecodeError as exc:
        raise InputError(where.child("extra"), f"not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise InputError(where.child("extra"), "must be a JSON object")
    return value


def gold_row(record: Mapping[str, Any], where: Location | None = None) -> dict[str, Any]:
    """The single-turn row an exported record came from (without ``input.audio``)."""
    extra = _extra(record, where or Location())
    has = set(extra.get("has", []))
    raw_id = record["id"]
    row: dict[str, Any] = {"id": int(raw_id) if extra.get("int_id") else raw_id}
    for key in ("domain", "split"):
        if record.get(key) is not None:
            row[key] = record[key]
    scenario = {
        **({"background": record["background"]} if "background" in has else {}),
        **extra.get("scenario_context", {}),
    }
    user = {**extra.get("input", {}), "text": record["input_text"]}
    if "locale" in has:
        user["locale"] = record["locale"]
    acts = {**extra.get("output_dialogue_acts", {}), "steps": _steps_row(record["steps"], extra.get("steps", []))}
    row.update(scenario_context=scenario, input=user, output={**extra.get("output", {}), "text": record["output_text"]})
    row["output_dialogue_acts"] = acts
    row.update(extra.get("row", {}))
    return row


def dialogue_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """A dialogue row (already validated) as a record of :data:`DIALOGUE_COLUMNS`."""
    turns = []
    for turn in row["turns"]:
        acts = turn.get("output_dialogue_acts")
        structs, rest = _steps_record(acts["steps"]) if isinstance(acts, dict) else (None, [])
        left = _leftover(turn, ("role", "text", "context", "phenomena", "output_dialogue_acts"))
        if isinstance(acts, dict):
            left["output_dialogue_acts"] = _leftover(acts, ("steps",))
            left["steps"] = rest if any(rest) else []
        left["has"] = [k for k in ("context", "phenomena") if k in turn]
        fields = {"role": turn["role"], "text": turn["text"], "context": turn.get("context")}
        turns.append({**fields, "phenomena": turn.get("phenomena"), "steps": structs, "extra": _json(left)})
    scenario = row.get("scenario_context") or {}
    extra = {
        "row": _leftover(row, ("id", "split", "domain", "locale", "scenario_context", "turns")),
        "scenario_context": _leftover(scenario, ("background",)),
        "has": [k for k in ("locale",) if k in row] + (["background"] if "background" in scenario else []),
    }
    return {
        "id": str(row["id"]),
        "split": row.get("split"),
        "domain": row.get("domain"),
        "locale": row.get("locale"),
        "background": scenario.get("background"),
        "turns": turns,
        "extra": _json({k: v for k, v in extra.items() if v}),
    }


def _turn_row(turn: Mapping[str, Any], where: Location) -> dict[str, Any]:
    extra = _extra(turn, where)
    has = set(extra.pop("has", []))
    out: dict[str, Any] = {"role": turn["role"], "text": turn["text"]}
    for key in ("context", "phenomena"):
        if key in has:
            out[key] = turn[key]
    if turn.get("steps") is not None:
        acts = extra.pop("output_dialogue_acts", {})
        out["output_dialogue_acts"] = {**acts, "steps": _steps_row(turn["steps"], extra.pop("steps", []))}
    out.update(extra)
    return out


def dialogue_row(record: Mapping[str, Any], where: Location | None = None) -> dict[str, Any]:
    """The dialogue row an exported record came from."""
    where = where or Location()
    extra = _extra(record, where)
    has = set(extra.get("has", []))
    row: dict[str, Any] = {"id": record["id"]}
    if "locale" in has:
        row["locale"] = record["locale"]
    for key in ("domain", "split"):
        if record.get(key) is not None:
            row[key] = record[key]
    background = {"background": record["background"]} if "background" in has else {}
    row["scenario_context"] = {**background, **extra.get("scenario_context", {})}
    row["turns"] = [_turn_row(t, where.child(f"turns[{k}]")) for k, t in enumerate(record["turns"])]
    row.update(extra.get("row", {}))
    return row


@dataclass(frozen=True)
class ColumnMapping:
    """Which source column holds each schema field, read from ``hf:DIR?field=column&…``.

    >>> parse_source("hf:data/qa?input=question&output=answer")
    ('data/qa', ColumnMapping(columns={'input': 'question', 'output': 'answer'}))
    """

    columns: dict[str, str]
    """Schema field (one of :data:`MAPPABLE`) → source column name."""

    def column(self, field: str, default: str) -> str:
        """The source column of ``field`` (``default`` unless the mapping names one)."""
        return self.columns.get(field, default)

    @property
    def spec(self) -> str:
        """The mapping as written back (sorted), for the cache key."""
        return "&".join(f"{k}={v}" for k, v in sorted(self.columns.items()))


def parse_source(spec: str) -> tuple[str, ColumnMapping]:
    """``hf:DIR?field=column&…`` (or a bare folder) → (folder, mapping); an unknown field is an error."""
    body = spec.removeprefix("hf:")
    folder, _, query = body.partition("?")
    columns: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=False):
        if key not in MAPPABLE:
            raise InputError(
                Location(spec, field=key), f"unknown field in the column mapping; one of {', '.join(MAPPABLE)}"
            )
        if not value:
            raise InputError(Location(spec, field=key), "names no column")
        columns[key] = value
    if not folder:
        raise InputError(Location(spec), "names no folder; write hf:DIR or hf:DIR?input=COLUMN&…")
    return folder, ColumnMapping(columns)


def _steps_value(value: Any, where: Location) -> list[dict[str, Any]]:
    """A mapped ``steps`` cell: a list of step objects, their JSON text, or bare act names (equal weights)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InputError(where, f"a text cell must hold the steps as JSON ({exc.msg})") from None
    if isinstance(value, Mapping) and "steps" in value:
        value = value["steps"]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [{"act": act, "importance": 1.0 / len(value)} for act in value]
    if not isinstance(value, list):
        raise InputError(where, f"must be a list of steps, got {type(value).__name__}")
    return [
        {k: v for k, v in dict(step).items() if v is not None} if isinstance(step, Mapping) else step for step in value
    ]


def _cell(record: Mapping[str, Any], column: str, where: Location, *, required: bool) -> Any:
    if column not in record:
        if required:
            have = ", ".join(sorted(record))
            raise InputError(where.child(column), f"no such column (columns: {have}); map it, e.g. ?input=COLUMN")
        return None
    return record[column]


def mapped_gold_row(
    record: Mapping[str, Any], mapping: ColumnMapping, index: int, split: str | None, where: Location
) -> dict[str, Any]:
    """A single-turn row from a record of someone else's dataset, read through ``mapping``.

    The input and reply texts and the reply's dialogue acts are required (a dialogue-act benchmark cannot score
    without gold acts); the id defaults to ``SPLIT-00001`` (row order) when there is no id column; ``locale`` names
    a column, or else is the locale itself (``?locale=en-US``).
    """
    column = mapping.column
    sample_id = _cell(record, column("id", "id"), where, required="id" in mapping.columns)
    if sample_id is None:
        sample_id = f"{split or 'row'}-{index + 1:05d}"
    steps_column = column("steps", "steps")
    steps = _cell(record, steps_column, where, required=True)
    row: dict[str, Any] = {
        "id": sample_id,
        "scenario_context": {},
        "input": {"role": "USER", "text": _cell(record, column("input", "input_text"), where, required=True)},
        "output": {"role": "ASSISTANT", "text": _cell(record, column("output", "output_text"), where, required=True)},
        "output_dialogue_acts": {"steps": _steps_value(steps, where.child(steps_column))},
    }
    background = _cell(record, column("background", "background"), where, required="background" in mapping.columns)
    if background is not None:
        row["scenario_context"]["background"] = background
    locale = mapping.columns.get("locale", "locale")
    value = record.get(locale, locale if "locale" in mapping.columns else None)
    if value is not None:
        row["input"]["locale"] = value
    for key in ("domain", "split"):
        value = _cell(record, column(key, key), where, required=key in mapping.columns)
        if value is not None:
            row[key] = value
    if "split" not in row and split is not None:
        row["split"] = split
    return row
