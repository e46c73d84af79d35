"""Result keys of a run's logs, and the check every row read back from them passes (pure).

A key joins a row's dataset, system and sample id with ``/``. Names may hold ``/`` themselves (a system
``openai-compat:m@http://h/v1``, a sample id ``v1/timer-001``), so each part is escaped first: ``%`` becomes
``%25`` and ``/`` becomes ``%2F``. Distinct parts then always give distinct keys. A name without either character
keys exactly as before escaping was introduced, so older run folders stay readable; a row whose key is not the key
of its own fields (an older folder whose names held ``/``, or an edited log) is refused with the fix.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from voxeval.io._jsonl import read_log


def key_part(name: str) -> str:
    """One part of a key, escaped so that it holds no ``/``.

    >>> key_part("openai-compat:m@http://h/v1"), key_part("100%/x")
    ('openai-compat:m@http:%2F%2Fh%2Fv1', '100%25%2Fx')
    """
    return name.replace("%", "%25").replace("/", "%2F")


def sample_key(dataset: str, sample_id: str) -> str:
    """Stable key of a sample within a run.

    >>> sample_key("ja-assistant", "v1/timer-001")
    'ja-assistant/v1%2Ftimer-001'
    """
    return f"{key_part(dataset)}/{key_part(sample_id)}"


def reply_key(dataset: str, system: str, sample_id: str) -> str:
    """Stable key of one system's reply to one sample (also of its annotation or judgement).

    >>> reply_key("ja-assistant", "openai:gpt-4o", "s1")
    'ja-assistant/openai:gpt-4o/s1'
    """
    return f"{key_part(dataset)}/{key_part(system)}/{key_part(sample_id)}"


MAX_SECONDS = 86_400.0
"""Largest latency or duration (seconds) a reply row may record: a day. More (or a negative one) is a tampered or
broken log, refused where the row is read so that no report computes with it or prints it."""
MAX_RTF = 1e6
"""Largest real-time factor a reply row may record."""
_LIMITS = {"first_audio_s": MAX_SECONDS, "first_text_s": MAX_SECONDS, "total_s": MAX_SECONDS}
_LIMITS |= {"audio_s": MAX_SECONDS, "rtf": MAX_RTF}


def check_latency(latency: object) -> tuple[str, str] | None:
    """``(field, problem)`` for a reply row's ``latency`` record holding a value voxeval never writes, else ``None``.

    >>> check_latency({"total_s": -1e308, "timed_by": "call"})
    ('latency.total_s', 'must be null or a number of seconds in [0, 86400], got -1e+308')
    """
    if not isinstance(latency, dict):
        return "latency", f"must be an object, got {type(latency).__name__}"
    for name, limit in _LIMITS.items():
        value = latency.get(name)
        if value is None:
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (number and math.isfinite(value) and 0 <= value <= limit):
            unit = "a number of seconds" if name != "rtf" else "a number"
            return f"latency.{name}", f"must be null or {unit} in [0, {limit:g}], got {value!r:.40}"
    return None


FIX = "use a new --out folder (it was written by a voxeval whose keys could collide, or edited by hand)"
"""What to do about a row whose key is not its fields' key."""


def check_run_row(row: dict[str, Any]) -> tuple[str, str] | None:
    """``(field, problem)`` for a row of a run's stage log that is not what voxeval writes, else ``None``.

    Rows of ``inputs.jsonl`` hold ``key``, ``dataset`` and ``id``; rows of ``replies.jsonl``, ``annotations.jsonl``
    and ``judgements.jsonl`` also ``system`` and ``status``. The key must be the key of those fields.

    >>> check_run_row({"key": "d/s/x", "dataset": "d", "system": "s", "id": "x", "status": "ok"}) is None
    True
    >>> check_run_row({"foo": 1})
    ('key', 'missing or not a string')
    """
    names = ("key", "dataset", "system", "id") if "system" in row else ("key", "dataset", "id")
    for name in names:
        if not isinstance(row.get(name), str):
            return name, "missing or not a string"
    if "system" in row:
        if not isinstance(row.get("status"), str):
            return "status", "missing or not a string"
        expected = reply_key(row["dataset"], row["system"], row["id"])
    else:
        expected = sample_key(row["dataset"], row["id"])
    if row["key"] != expected:
        return "key", f"{row['key']!r} is not the key of its dataset, system and id ({expected!r}); {FIX}"
    return check_latency(row["latency"]) if "latency" in row else None


def read_run_log(path: Path) -> dict[str, dict[str, Any]]:
    """The rows of a run's stage log by key, each checked by :func:`check_run_row` (a missing file is empty)."""
    return read_log(path, "key", check=check_run_row)
