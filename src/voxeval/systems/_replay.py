"""``replay:PATH``: replies read from a JSONL file, so results produced anywhere can be scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.data import parse_id, read_jsonl, resolve_inside
from voxeval.errors import ConfigError, InputError, Location
from voxeval.systems._protocol import Reply, SystemFailure, Turn, systems


class ReplaySystem:
    """Replies from ``{"id", "text", "audio"?}`` rows; ``audio`` is a WAV path relative to the file."""

    concurrency = 64

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = f"replay:{path.stem}"
        self._rows: dict[str, tuple[str, Path | None]] = {}
        for line, row in read_jsonl(path):
            where = Location(str(path), line)
            sample_id = parse_id(row, where)
            text = row.get("text")
            if not isinstance(text, str):
                raise InputError(where.child("text"), f"must be a string, got {text!r}")
            audio = row.get("audio")
            audio_path = resolve_inside(path.parent, audio, where.child("audio")) if audio is not None else None
            if sample_id in self._rows:
                raise InputError(where.child("id"), f"duplicate id {sample_id!r}")
            self._rows[sample_id] = (text, audio_path)

    async def respond(self, turn: Turn) -> Reply:
        """The recorded reply for ``turn.id``."""
        if turn.id not in self._rows:
            raise SystemFailure(f"{self.path} has no reply for id {turn.id!r}")
        text, audio = self._rows[turn.id]
        return Reply(text, audio.read_bytes() if audio else None, {"source": str(self.path)})

    def describe(self) -> dict[str, Any]:
        """The replay file."""
        return {"system": "replay", "path": str(self.path), "replies": len(self._rows)}


@systems.register("replay")
def make_replay(rest: str) -> ReplaySystem:
    """``replay:PATH``."""
    if not rest:
        raise ConfigError("replay needs a file: replay:PATH.jsonl")
    return ReplaySystem(Path(rest))
