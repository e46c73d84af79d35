"""Stage 2: ask each system under test for its reply to each input, concurrently and resumably."""

from __future__ import annotations

import asyncio
import hashlib
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.data import AppendLog, Dataset, atomic_write_bytes
from voxeval.run._inputs import input_audio, sample_key
from voxeval.run._progress import StageProgress
from voxeval.systems import SpokenDialogueSystem, Turn


def reply_key(dataset: str, system: str, sample_id: str) -> str:
    """Stable key of one system's reply to one sample."""
    return f"{dataset}/{system}/{sample_id}"


def describe_error(exc: BaseException) -> str:
    """One line naming the error; provider errors already carry kind and status."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"[:500] if text else type(exc).__name__


async def _one(
    system: SpokenDialogueSystem, turn: Turn, key: str, run_dir: Path, meta: dict[str, str]
) -> dict[str, Any]:
    started = time.perf_counter()
    row: dict[str, Any] = {"key": key, **meta}
    try:
        reply = await system.respond(turn)
    except Exception as exc:  # recorded as a failure, listed in the report, never scored
        row.update(status="failed", error=describe_error(exc), trace=traceback.format_exc(limit=3)[-2000:])
    else:
        text = reply.text.strip()
        # An empty reply is a real outcome (the model said nothing): scored as an empty prediction.
        row.update(status="ok" if text else "empty", text=text, meta=reply.meta)
        if reply.audio:
            path = run_dir / "audio" / "replies" / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.wav"
            atomic_write_bytes(path, reply.audio)
            row["audio"] = str(path.relative_to(run_dir))
    row["elapsed_s"] = round(time.perf_counter() - started, 3)
    return row


@dataclass(frozen=True)
class ReplyItem:
    """One input a system must answer."""

    dataset: str
    """Dataset name."""
    id: str
    """Sample id."""
    reference_text: str
    """The input's text (only oracle systems may use it)."""


def dataset_reply_items(datasets: list[Dataset]) -> list[ReplyItem]:
    """The reply items of dialogue-act datasets."""
    return [ReplyItem(d.name, s.id, s.input_text) for d in datasets for s in d.samples]


async def generate_replies(
    run_dir: Path,
    items: list[ReplyItem],
    systems: list[SpokenDialogueSystem],
    inputs: dict[str, dict[str, Any]],
    prompts: tuple[str, str],
    *,
    retry_failed: bool = False,
    concurrency: int | None = None,
    progress: bool = True,
) -> dict[str, dict[str, Any]]:
    """Collect every missing reply (and failed ones with ``retry_failed``); returns rows by key."""
    with AppendLog(run_dir / "replies.jsonl", key="key") as log:
        for system in systems:
            todo = []
            for item in items:
                key = reply_key(item.dataset, system.name, item.id)
                previous = log.rows.get(key)
                if previous is None or (retry_failed and previous.get("status") == "failed"):
                    todo.append((item, key))
            limit = asyncio.Semaphore(concurrency or system.concurrency)
            with StageProgress(f"replies {system.name}", len(todo), enabled=progress) as bar:

                async def run_one(item: ReplyItem, key: str, system: Any = system, limit: Any = limit) -> None:
                    async with limit:
                        audio = input_audio(run_dir, inputs[sample_key(item.dataset, item.id)])
                        turn = Turn(item.id, audio, prompts[0], prompts[1], reference_text=item.reference_text)
                        meta = {"dataset": item.dataset, "system": system.name, "id": item.id}
                        row = await _one(system, turn, key, run_dir, meta)
                    log.append(row)  # one whole line per result: a kill loses at most in-flight work
                    bar.advance(failed=row["status"] == "failed")

                await asyncio.gather(*(run_one(i, k) for i, k in todo))
        return dict(log.rows)
