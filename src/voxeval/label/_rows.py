"""The one schema of a row of ``human/<task>/<labeller>.jsonl``, checked wherever such a file is read.

``voxeval label`` (resuming), ``voxeval agreement`` and its export read these files through
:func:`human_row_check`, so a hand-edited or planted row (``retracts: [1]``, ``n: "1"``, ``steps: "Answer"``,
``end: 10**12``, ``score: "5"``, ``score: true``, an act ``"Bogus"``) is refused with its file, line and field,
instead of crashing the page, a figure, or silently scoring. The steps of a labelled row are checked with the very
rules a submission passes (:func:`~voxeval.label._submit.check_steps`), against the reply text the row records.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from voxeval.label._submit import MAX_NOTE, SubmissionError, check_steps

STATUSES = ("labelled", "skipped", "flagged", "undone")
"""Row statuses: one per page action (``undone`` retracts an earlier row)."""
MAX_SECONDS = 7 * 24 * 3600.0
"""Longest time on one item a row may record (a week): more is a broken or tampered row."""


@dataclass(frozen=True)
class Rule:
    """One field of a human row: when it must be present, and what it must hold."""

    name: str
    """Field name."""
    check: Callable[[Any], str | None]
    """What is wrong with a present value (``None``: fine)."""
    required: Callable[[dict[str, Any]], bool]
    """Whether the row must carry the field."""


def _int(low: int, high: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
        return None if ok else f"must be an integer in [{low}, {high}], got {value!r:.60}"

    return check


def _str(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {type(value).__name__}"


def _key(value: Any) -> str | None:
    return None if isinstance(value, str) and value else f"must be a non-empty string, got {value!r:.60}"


def _one_of(options: tuple[str, ...]) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        return None if value in options else f"must be one of {', '.join(options)}, got {value!r:.60}"

    return check


def _note(value: Any) -> str | None:
    return None if isinstance(value, str) and len(value) <= MAX_NOTE else f"must be a string of ≤ {MAX_NOTE} chars"


def _seconds(value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return None if ok and 0 <= value <= MAX_SECONDS else f"must be a number of seconds in [0, {MAX_SECONDS:g}]"


def _always(row: dict[str, Any]) -> bool:
    return True


def _judged(row: dict[str, Any]) -> bool:
    return row.get("status") != "undone"


def _labelled(row: dict[str, Any]) -> bool:
    return row.get("status") == "labelled"


def _never(row: dict[str, Any]) -> bool:
    return False


RULES = (
    Rule("n", _int(1, 2**53), _always),
    Rule("status", _one_of(STATUSES), _always),
    Rule("key", _key, _always),
    Rule("labeller", _key, _always),
    Rule("task", _one_of(("da", "style")), _always),
    Rule("seed", _int(0, 2**32 - 1), _always),
    Rule("at", _str, _never),
    Rule("retracts", _int(1, 2**53), lambda r: r.get("status") == "undone"),
    Rule("id", _str, _never),
    Rule("dataset", _str, _never),
    Rule("system", _str, _never),
    Rule("note", _note, _never),
    Rule("seconds", _seconds, _labelled),
    Rule("text", _str, lambda r: _labelled(r) and r.get("task") == "da"),
    Rule("input_text", _str, _never),
    Rule("background", _str, _never),
    Rule("locale", _str, _never),
    Rule("score", _int(1, 5), lambda r: _labelled(r) and r.get("task") == "style"),
    Rule("no_act", lambda v: None if v is True else f"must be true when present, got {v!r}", _never),
    Rule("text_source", _one_of(("speech", "model")), _never),
)
"""Every field a human row may carry; a field not listed is kept but never read."""


def _steps(row: dict[str, Any]) -> tuple[str, str] | None:
    raw = row.get("steps")
    if not isinstance(raw, list):
        return "steps", f"must be a list of steps, got {type(raw).__name__}"
    # Stored steps name their text ``span``; the submission rules call it ``text``.
    as_sent = [{**s, "text": s.get("span")} if isinstance(s, dict) else s for s in raw]
    try:
        check_steps(as_sent, row["text"], no_act=row.get("no_act") is True)
    except SubmissionError as exc:
        return exc.field.replace(".text", ".span"), exc.message
    return None


def check_human_row(row: dict[str, Any], task: str, labeller: str) -> tuple[str, str] | None:
    """``(field, problem)`` for a row that ``voxeval label`` never writes in ``human/<task>/<labeller>.jsonl``.

    >>> check_human_row({"n": 1, "status": "skipped", "key": "a", "labeller": "aiko", "task": "style",
    ...                  "seed": 7, "seconds": 2.5}, "style", "aiko") is None
    True
    >>> check_human_row({"n": "1"}, "style", "aiko")
    ('n', "must be an integer in [1, 9007199254740992], got '1'")
    """
    for rule in RULES:
        if rule.name in row:
            problem = rule.check(row[rule.name])
            if problem is not None:
                return rule.name, problem
        elif rule.required(row):
            return rule.name, "missing"
    if row["task"] != task or row["labeller"] != labeller:
        return ("task" if row["task"] != task else "labeller"), f"this file holds the {task} rows of {labeller}"
    if row["status"] == "undone" and row["retracts"] >= row["n"]:
        return "retracts", f"must name an earlier row (n < {row['n']}), got {row['retracts']}"
    if task == "da" and row["status"] == "labelled":
        return _steps(row)
    if "steps" in row:
        return "steps", f"only a labelled dialogue-act row carries steps (task {task}, status {row['status']})"
    if "no_act" in row:
        return "no_act", f"only a labelled dialogue-act row is labelled 'no act' (task {task}, status {row['status']})"
    return None


def human_row_check(task: str, labeller: str) -> Callable[[dict[str, Any]], tuple[str, str] | None]:
    """The row check of one labeller's file, for :func:`~voxeval.io.read_log` and :class:`~voxeval.io.AppendLog`."""
    return lambda row: check_human_row(row, task, labeller)
