"""Stage 3: annotate every reply with dialogue acts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from voxeval.acts import acts_to_json
from voxeval.annotate import AnnotationFailed, AnnotationInput, Annotator
from voxeval.data import AppendLog, Dataset
from voxeval.run._progress import StageProgress
from voxeval.run._replies import describe_error, reply_key


async def _annotate(annotator: Annotator, item: AnnotationInput, row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"key": row["key"], "dataset": row["dataset"], "system": row["system"], "id": row["id"]}
    if row["status"] == "empty":
        # Nothing was said, so there is nothing to label: an empty act sequence, without calling the annotator.
        return {**out, "status": "ok", "steps": [], "note": "empty reply"}
    try:
        annotation = await annotator.annotate(item)
    except AnnotationFailed as exc:
        return {**out, "status": "failed", "error": str(exc), "raw": exc.raw, "attempts": exc.attempts}
    except Exception as exc:  # recorded and listed, never scored
        return {**out, "status": "failed", "error": describe_error(exc)}
    return {**out, "status": "ok", "steps": acts_to_json(annotation.acts), "raw": annotation.raw, **annotation.meta}


async def annotate_replies(
    run_dir: Path,
    datasets: list[Dataset],
    system_names: list[str],
    replies: dict[str, dict[str, Any]],
    annotator: Annotator,
    *,
    retry_failed: bool = False,
    concurrency: int = 8,
    progress: bool = True,
) -> dict[str, dict[str, Any]]:
    """Annotate replies that have none yet (replies that failed are skipped: they have nothing to label)."""
    with AppendLog(run_dir / "annotations.jsonl", key="key") as log:
        todo = []
        for dataset in datasets:
            for system in system_names:
                for sample in dataset.samples:
                    key = reply_key(dataset.name, system, sample.id)
                    reply = replies.get(key)
                    previous = log.rows.get(key)
                    if reply is None or reply["status"] == "failed":
                        continue
                    if previous is None or (retry_failed and previous.get("status") == "failed"):
                        item = AnnotationInput(reply.get("text", ""), sample.input_text, sample.background)
                        todo.append((item, reply))
        limit = asyncio.Semaphore(concurrency)
        with StageProgress(f"annotations {annotator.name}", len(todo), enabled=progress) as bar:

            async def run_one(item: AnnotationInput, reply: dict[str, Any]) -> None:
                async with limit:
                    row = await _annotate(annotator, item, reply)
                log.append(row)
                bar.advance(failed=row["status"] == "failed")

            await asyncio.gather(*(run_one(i, r) for i, r in todo))
        return dict(log.rows)
