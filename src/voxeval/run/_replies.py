"""Stage 2: ask each system under test for its reply to each input, concurrently and resumably."""

from __future__ import annotations

import hashlib
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.data import Dataset
from voxeval.errors import VoxevalError
from voxeval.io import atomic_write_bytes
from voxeval.run._executor import Row, Task
from voxeval.run._inputs import input_audio
from voxeval.run._keys import check_run_row, reply_key, sample_key
from voxeval.run._latency import audio_seconds, measure_latency
from voxeval.run._outcomes import MAX_REPLY_BYTES, classify_error, classify_text, max_reply_bytes, recordable_meta
from voxeval.run._stage import Stage, StageRun, describe_error, run_stage
from voxeval.systems import Reply, ReplyTiming, Said, SpokenDialogueSystem, Turn


@dataclass(frozen=True)
class ReplyItem:
    """One input a system must answer."""

    dataset: str
    """Dataset name."""
    id: str
    """Sample id."""
    reference_text: str
    """The input's text (only oracle systems may use it)."""
    language: str = "ja"
    """ISO 639-1 code of the input's language."""
    history: tuple[HistoryRef, ...] = ()
    """A dialogue turn's reference dialogue so far, oldest first (empty for a single-turn item)."""


@dataclass(frozen=True)
class HistoryRef:
    """One earlier exchange of a dialogue, by reference: the user turn's input (its audio is read from the run's
    inputs) and the assistant's reply text."""

    user_id: str
    """Sample id of the earlier user turn (in the same dataset)."""
    user_text: str
    """Its reference text (only oracle systems may use it)."""
    assistant_text: str
    """The assistant's reply to it (the reference reply under ``--history gold``)."""


def dataset_reply_items(datasets: list[Dataset]) -> list[ReplyItem]:
    """The reply items of dialogue-act datasets."""
    return [ReplyItem(d.name, s.id, s.input_text, s.language) for d in datasets for s in d.samples]


@dataclass
class ReplyWorker:
    """Asks one system for its reply to one input: a network call runs on the event loop; a local system that
    declares ``cpu_bound`` (the offline cascade) runs on the CPU executor, one copy of the system per worker."""

    system: SpokenDialogueSystem
    """The system under test."""
    run_dir: Path
    """Run directory (input audio is read from it, reply audio written to it)."""
    inputs: dict[str, dict[str, Any]]
    """``inputs.jsonl`` rows by sample key."""
    prompts: tuple[str, str]
    """System and user prompt."""
    cpu_bound: bool = False
    """The system computes locally (``system.cpu_bound``): run on the CPU executor; the worker must pickle."""
    max_reply_bytes: int = MAX_REPLY_BYTES
    """Longest reply text kept (:func:`voxeval.run._outcomes.max_reply_bytes`)."""

    def setup(self) -> None:
        """Nothing to load: the system was built by the driver."""

    async def __call__(self, item: ReplyItem) -> list[Row]:
        """The reply row: every answer is classified by :mod:`voxeval.run._outcomes`, whatever the system kind."""
        return [await self.reply_row(item, self.turn(item), self.system.respond)]

    def turn(self, item: ReplyItem, history: tuple[Said, ...] | None = None) -> Turn:
        """The system's input for ``item``: its audio, the prompts and the dialogue so far (``item.history``, each
        earlier user turn's audio read from the run's inputs, unless ``history`` is given)."""
        audio = input_audio(self.run_dir, self.inputs[sample_key(item.dataset, item.id)])
        if history is None:
            history = tuple(
                said
                for ref in item.history
                for said in (
                    Said(
                        "user",
                        ref.user_text,
                        input_audio(self.run_dir, self.inputs[sample_key(item.dataset, ref.user_id)]),
                    ),
                    Said("assistant", ref.assistant_text),
                )
            )
        return Turn(
            item.id,
            audio,
            self.prompts[0],
            self.prompts[1],
            reference_text=item.reference_text,
            language=item.language,
            history=history,
        )

    async def reply_row(self, item: ReplyItem, turn: Turn, respond: Callable[[Turn], Awaitable[Reply]]) -> Row:
        """Ask ``respond`` (the system, or a conversation with it) for ``turn`` and classify the answer."""
        key = reply_key(item.dataset, self.system.name, item.id)
        started = time.perf_counter()
        row: Row = {"key": key, "dataset": item.dataset, "system": self.system.name, "id": item.id}
        try:
            reply = await respond(turn)
            call_s = time.perf_counter() - started
            row.update(self._reply_fields(key, reply, call_s))
        except Exception as exc:  # an outcome (refused, …) or a failure: recorded, never scored as text
            found = classify_error(exc)
            row.update(status=found.status, outcome=found.outcome, text="", error=describe_error(exc))
            if found.outcome == "failed" and not isinstance(exc, VoxevalError):  # a classified error says it all
                row["trace"] = traceback.format_exc(limit=3)[-2000:]
        row["elapsed_s"] = round(time.perf_counter() - started, 3)
        return row

    def _reply_fields(self, key: str, reply: Any, call_s: float) -> Row:
        if not isinstance(reply, Reply):
            return {
                "status": "failed",
                "outcome": "failed",
                "text": "",
                "error": f"{type(reply).__name__}: not a Reply",
            }
        found = classify_text(reply.text, self.max_reply_bytes)
        fields: Row = {"status": found.status, "outcome": found.outcome, "text": found.text}
        if found.reason:
            fields["error"] = found.reason
        fields["meta"] = recordable_meta(reply.meta)
        keep_audio = bool(reply.audio) and found.status != "failed"
        timing = reply.timing if isinstance(reply.timing, ReplyTiming) else None
        audio_s = audio_seconds(reply.audio) if keep_audio and isinstance(reply.audio, bytes) else None
        # Measured (and a system's own times checked) before any file is written: a bad timing fails the reply.
        latency = measure_latency(timing, call_s, has_text=bool(found.text), has_audio=keep_audio, audio_s=audio_s)
        if keep_audio and reply.audio:
            path = self.run_dir / "audio" / "replies" / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.wav"
            atomic_write_bytes(path, reply.audio, root=self.run_dir)  # no planted link followed
            fields["audio"] = str(path.relative_to(self.run_dir))
        fields["latency"] = latency.to_json()
        return fields


async def generate_replies(
    run_dir: Path,
    items: list[ReplyItem],
    systems: list[SpokenDialogueSystem],
    inputs: dict[str, dict[str, Any]],
    prompts: tuple[str, str],
    *,
    how: StageRun | None = None,
    concurrency: int | None = None,
) -> dict[str, Row]:
    """Collect every missing reply (and failed ones with ``retry_failed``); returns rows by key."""
    rows: dict[str, Row] = {}
    for system in systems:
        stage = Stage(f"replies {system.name}", run_dir / "replies.jsonl", trace=True, check=check_run_row)
        fields = [{"dataset": i.dataset, "system": system.name, "id": i.id} for i in items]
        tasks = [Task((reply_key(i.dataset, system.name, i.id),), i, f) for i, f in zip(items, fields, strict=True)]
        cpu_bound = bool(getattr(system, "cpu_bound", False))
        worker = ReplyWorker(system, run_dir, inputs, prompts, cpu_bound, max_reply_bytes=max_reply_bytes())
        rows = await run_stage(stage, tasks, worker, limit=in_flight(system, concurrency, how), how=how)
    return rows


def in_flight(system: SpokenDialogueSystem, concurrency: int | None, how: StageRun | None) -> int:
    """Replies (or dialogues) a system's reply stage keeps in flight: ``--concurrency`` or the system's own; a local
    system (the offline cascade) at least one per worker process or Ray actor."""
    limit = concurrency or system.concurrency
    if getattr(system, "cpu_bound", False):
        limit = max(limit, getattr((how or StageRun()).cpu_executor, "processes", 1))
    return int(limit)
