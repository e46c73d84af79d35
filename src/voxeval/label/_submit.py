"""Checking a labeller's submission (pure): a malformed one is refused with the field named, and nothing is saved.

Dialogue acts follow docs/da-labelling-guide conventions as the schema states them: one step per act, spans exact,
in order and non-overlapping, importances with two decimals summing to exactly 1, the central act the unique
maximum. Style ratings are VStyle's 1–5 rubric (seed 002).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from voxeval.acts import LABELS
from voxeval.label._items import LabelItem, Task

ACTIONS = ("label", "skip", "flag", "undo")
"""What a submission may do: judge the item, skip it, flag it as unjudgeable, or retract the last judgement."""
MAX_STEPS = 20
"""More steps than this in one reply is a broken submission, not a labelling."""
MAX_NOTE = 2000
"""Longest note kept (characters)."""


class SubmissionError(ValueError):
    """A malformed submission: which field, and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Submission:
    """A checked submission, ready to be appended."""

    action: str
    """One of :data:`ACTIONS`."""
    key: str
    """Item key ('' for ``undo``)."""
    body: dict[str, Any]
    """Task fields of the row: ``steps`` and ``no_act`` when true (da) or ``score`` (style), ``note``, ``seconds``."""


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SubmissionError(field, f"must be a finite number, got {value!r}")
    return float(value)


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SubmissionError(field, f"must be an integer, got {value!r}")
    return value


def check_importances(weights: list[float]) -> None:
    """Two decimals each, summing to exactly 1, one unique maximum (the reply's central act)."""
    for i, w in enumerate(weights):
        if w <= 0 or w > 1 or abs(w * 100 - round(w * 100)) > 1e-6:
            raise SubmissionError(f"steps[{i}].importance", f"must be in (0, 1] with at most two decimals, got {w}")
    total = round(sum(round(w * 100) for w in weights))
    if total != 100:
        raise SubmissionError("steps", f"importances must sum to exactly 1, they sum to {total / 100:.2f}")
    top = max(weights)
    if sum(1 for w in weights if abs(w - top) < 1e-9) > 1:
        raise SubmissionError("steps", f"the maximum importance {top} is shared; the central act must be unique")


def _step(raw: Any, i: int, text: str, after: int) -> dict[str, Any]:
    where = f"steps[{i}]"
    if not isinstance(raw, dict):
        raise SubmissionError(where, "must be an object")
    if raw.get("act") not in LABELS:
        raise SubmissionError(f"{where}.act", f"must be one of {', '.join(LABELS)}, got {raw.get('act')!r}")
    start, end = _int(raw.get("start"), f"{where}.start"), _int(raw.get("end"), f"{where}.end")
    if not after <= start < end <= len(text):
        raise SubmissionError(
            f"{where}.start", f"span [{start}, {end}) must lie in the reply, after the previous span (ends at {after})"
        )
    if raw.get("text") != text[start:end]:
        raise SubmissionError(f"{where}.text", f"must be the reply's exact text at [{start}, {end})")
    importance = _number(raw.get("importance"), f"{where}.importance")
    return {"act": raw["act"], "importance": importance, "span": text[start:end], "start": start, "end": end}


def check_steps(raw: Any, text: str, *, no_act: bool = False) -> list[dict[str, Any]]:
    """The steps of a dialogue-act labelling, checked against the reply ``text`` (offsets in code points).

    A reply that performs no act (pure chatter, garbled speech) is labelled on purpose with ``no_act`` and an
    empty list; an empty list without ``no_act`` is refused, so a page that lost its steps never saves "no act".
    """
    if no_act:
        if raw != []:
            raise SubmissionError("steps", "must be [] when no_act is true (a reply with no act has no steps)")
        return []
    if not isinstance(raw, list) or not raw:
        raise SubmissionError("steps", "must be a non-empty list (one step per act), or [] with no_act: true")
    if len(raw) > MAX_STEPS:
        raise SubmissionError("steps", f"at most {MAX_STEPS} steps")
    steps: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        steps.append(_step(item, i, text, steps[-1]["end"] if steps else 0))
    check_importances([s["importance"] for s in steps])
    return steps


def _common(raw: dict[str, Any]) -> dict[str, Any]:
    note = raw.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise SubmissionError("note", f"must be a string of at most {MAX_NOTE} characters")
    seconds = _number(raw.get("seconds", 0), "seconds")
    if seconds < 0:
        raise SubmissionError("seconds", "must not be negative")
    return {"note": note, "seconds": round(seconds, 3)}


def check_submission(raw: Any, task: Task, items: dict[str, LabelItem]) -> Submission:
    """Check one submission of the page against the task and the labeller's items."""
    if not isinstance(raw, dict):
        raise SubmissionError("body", "must be a JSON object")
    action = raw.get("action")
    if action not in ACTIONS:
        raise SubmissionError("action", f"must be one of {', '.join(ACTIONS)}, got {action!r}")
    if action == "undo":
        return Submission("undo", "", {})
    key = raw.get("key")
    if not isinstance(key, str) or key not in items:
        raise SubmissionError("key", f"not an item of this study: {key!r}")
    body = _common(raw)
    if action == "label" and task == "da":
        no_act = raw.get("no_act", False)
        if not isinstance(no_act, bool):
            raise SubmissionError("no_act", f"must be true or false, got {no_act!r}")
        body["steps"] = check_steps(raw.get("steps"), items[key].text, no_act=no_act)
        body.update({"no_act": True} if no_act else {})
    elif action == "label":
        score = raw.get("score")
        if isinstance(score, bool) or score not in (1, 2, 3, 4, 5):
            raise SubmissionError("score", f"must be an integer 1-5, got {score!r}")
        body["score"] = score
    return Submission(str(action), key, body)
