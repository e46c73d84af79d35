"""``replay:PATH``: replies read from a JSONL file, so results produced anywhere can be scored."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from voxeval.data import parse_id, read_jsonl, resolve_inside
from voxeval.errors import ConfigError, InputError, Location
from voxeval.io import check_size, read_bounded
from voxeval.systems._protocol import NoReply, Reply, ReplyTiming, SystemFailure, Turn, systems

NO_REPLY = ("refused", "truncated", "undecodable")
"""``outcome`` values of a replay row that replay as :class:`NoReply` (as an API system reports them)."""
FAILED = ("failed", "oversized")
"""``outcome`` values replayed as a failure (a ``replies.jsonl`` of another run replays as it was recorded)."""


def _replayed(row: dict[str, Any], where: Location) -> tuple[str | None, Exception | None]:
    """The text of a replay row, or the error it replays (a refusal, a failure)."""
    outcome = row.get("outcome")
    reason = str(row.get("error") or f"recorded as {outcome} in {where}")
    if outcome in NO_REPLY:
        return None, NoReply(outcome, reason)
    if outcome in FAILED or row.get("status") == "failed":
        return None, SystemFailure(reason)
    if outcome not in (None, "ok", "empty"):
        choices = ", ".join(("ok", "empty", *NO_REPLY, *FAILED))
        raise InputError(where.child("outcome"), f"unknown outcome {outcome!r}; one of {choices}")
    text = row.get("text")
    if text is not None and not isinstance(text, str):
        raise InputError(where.child("text"), f"must be a string or null, got {text!r}")
    return text, None


def _timing(latency: Any, where: Location) -> ReplyTiming:
    """A row's recorded ``latency`` (a ``replies.jsonl`` of another run) replayed as the reply's timing."""
    if not isinstance(latency, dict):
        raise InputError(where, f"must be an object of seconds, got {latency!r}")
    seconds: dict[str, float | None] = {}
    for name in ("first_audio_s", "first_text_s", "total_s"):
        value = latency.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf
        ):
            raise InputError(where.child(name), f"must be a number of seconds ≥ 0 or null, got {value!r}")
        seconds[name] = None if value is None else float(value)
    return ReplyTiming(**seconds)


def _dialogue_turn_id(row: dict[str, Any], where: Location) -> str:
    """The turn id ``DIALOGUE/K`` of a dialogue run's replay row ``{"dialogue", "turn", …}`` (K from 1)."""
    if "id" in row:
        raise InputError(where.child("id"), "a dialogue row is keyed by dialogue and turn; give no id")
    dialogue, turn = row.get("dialogue"), row.get("turn")
    if not isinstance(dialogue, str) or not dialogue or "\x00" in dialogue:
        raise InputError(where.child("dialogue"), f"must be a non-empty dialogue id, got {dialogue!r}")
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= 1000:
        raise InputError(where.child("turn"), f"must be the assistant turn's index from 1, got {turn!r}")
    return f"{dialogue}/{turn}"


def _audio_bytes() -> int:
    from voxeval.speech.audio import audio_limits

    return audio_limits().max_bytes


class ReplaySystem:
    """Replies from ``{"id", "text", "audio"?, "outcome"?, "latency"?}`` rows (a dialogue run's rows: ``{"dialogue",
    "turn", …}`` instead of ``id``, the same reply under every history condition); ``audio`` is a WAV path relative to
    the file; ``latency`` (as a run's ``replies.jsonl`` records it) is replayed as the reply's timing, so a replayed
    run keeps its measured latency instead of the replay's own near-zero time.

    ``"text": null`` is an empty reply (as an API's ``content: null``); ``"outcome": "refused"`` (or
    ``truncated``, ``undecodable``) replays that outcome, ``"failed"`` a failure, with the row's ``error``.
    """

    concurrency = 64

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = f"replay:{path.stem}"
        self._rows: dict[str, tuple[str | None, Path | None, Exception | None]] = {}
        self._timing: dict[str, ReplyTiming] = {}
        # A lone surrogate in `text` is replayed as the `undecodable` outcome (docs/reliability.md), not refused.
        for line, row in read_jsonl(path, keep_surrogates_in=frozenset({"text"})):
            where = Location(str(path), line)
            sample_id = _dialogue_turn_id(row, where) if "dialogue" in row else parse_id(row, where)
            text, failure = _replayed(row, where)
            audio = row.get("audio")
            audio_path = resolve_inside(path.parent, audio, where.child("audio")) if audio is not None else None
            if audio_path is not None:  # a FIFO, a device or a huge (maybe sparse) file: refused before the run
                check_size(audio_path, where.child("audio"), _audio_bytes(), "audio file")
            if sample_id in self._rows:
                raise InputError(where.child("id"), f"duplicate id {sample_id!r}")
            self._rows[sample_id] = (text, audio_path, failure)
            if row.get("latency") is not None:
                self._timing[sample_id] = _timing(row["latency"], where.child("latency"))

    async def respond(self, turn: Turn) -> Reply:
        """The recorded reply for ``turn.id``."""
        if turn.id not in self._rows:
            raise SystemFailure(f"{self.path} has no reply for id {turn.id!r}")
        text, audio, failure = self._rows[turn.id]
        if failure is not None:
            raise failure
        data = read_bounded(audio, Location(str(audio)), _audio_bytes(), "audio file") if audio else None
        return Reply(text or "", data, {"source": str(self.path)}, self._timing.get(turn.id))

    def describe(self) -> dict[str, Any]:
        """The replay file."""
        return {"system": "replay", "path": str(self.path), "replies": len(self._rows)}


@systems.register("replay")
def make_replay(rest: str) -> ReplaySystem:
    """``replay:PATH``."""
    if not rest:
        raise ConfigError("replay needs a file: replay:PATH.jsonl")
    return ReplaySystem(Path(rest))
