"""The one resumable stage runner: every stage (inputs, replies, annotations, judgements) runs through it.

A stage is a keyed append-only log, a list of tasks and a worker. The runner skips tasks whose rows are already
logged (and, with ``retry_failed``, re-runs failed ones), hands the rest to an executor with bounded concurrency,
and appends each result as it arrives, so a killed run loses at most its in-flight work. A worker that raises
becomes a failure row (listed in the report, never scored) unless the stage says errors must stop the run.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from voxeval.io import AppendLog, RowTooLong
from voxeval.io._jsonl import RowCheck
from voxeval.run._executor import AsyncExecutor, Executor, Row, Task, Worker
from voxeval.run._progress import StageProgress

P = TypeVar("P")


def describe_error(exc: BaseException) -> str:
    """One line naming the error; provider errors already carry kind and status.

    >>> describe_error(ValueError("bad value\\nmore"))
    'ValueError: bad value'
    """
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"[:500] if text else type(exc).__name__


@dataclass(frozen=True)
class Stage:
    """Where a stage logs and how it treats earlier results and errors."""

    name: str
    """Label of the progress bar."""
    log: Path
    """The stage's append-only JSONL log."""
    key: str = "key"
    """Field of a row that holds its key."""
    record_failures: bool = True
    """A worker error becomes a ``failed`` row; ``False``: it stops the run (inputs that cannot be made)."""
    trace: bool = False
    """Failure rows keep the last lines of the traceback."""
    check: RowCheck | None = None
    """Checks each row read back from the log (a run's logs: :func:`voxeval.run._keys.check_run_row`)."""


@dataclass(frozen=True)
class StageRun:
    """How to run a stage (none of it changes results)."""

    retry_failed: bool = False
    """Re-run tasks whose rows are recorded as failed."""
    progress: bool = True
    """Show a progress bar on stderr."""
    cpu_executor: Executor = field(default_factory=AsyncExecutor)
    """Executor of CPU-bound workers; other workers always run on the event loop."""


def pending(log: AppendLog, key: str, retry_failed: bool) -> bool:
    """A key still to do: never recorded, or recorded as failed and retried."""
    previous = log.rows.get(key)
    return previous is None or (retry_failed and previous.get("status") == "failed")


def failure_row(stage: Stage, task: Task[Any], key: str, exc: BaseException) -> Row:
    """The row recorded when a worker raised."""
    row: Row = {stage.key: key, **task.fields, **task.key_fields.get(key, {}), "status": "failed"}
    row["error"] = describe_error(exc)
    if stage.trace:
        row["trace"] = "".join(traceback.format_exception(exc, limit=3))[-2000:]
    return row


async def run_stage(
    stage: Stage, tasks: Sequence[Task[P]], worker: Worker[P], *, limit: int, how: StageRun | None = None
) -> dict[str, Row]:
    """Run the tasks not yet done and append their rows; returns every row of the log by key."""
    how = how or StageRun()
    executor: Executor = how.cpu_executor if worker.cpu_bound else AsyncExecutor()
    with AppendLog(stage.log, key=stage.key, check=stage.check) as log:
        todo = [t for t in tasks if any(pending(log, k, how.retry_failed) for k in t.keys)]
        total = sum(pending(log, k, how.retry_failed) for t in todo for k in t.keys)
        with StageProgress(stage.name, total, enabled=how.progress) as bar:
            async for task, outcome in executor.run(worker, todo, limit):
                if isinstance(outcome, Exception) and not stage.record_failures:
                    raise outcome
                _record(stage, log, task, outcome, how.retry_failed, bar)
                busy = getattr(executor, "busy", None)  # executors with a worker pool say how many are working
                if busy is not None:
                    bar.workers(*busy)
        return dict(log.rows)


def _record(stage: Stage, log: AppendLog, task: Task[Any], outcome: Any, retry: bool, bar: StageProgress) -> None:
    wanted = [k for k in task.keys if pending(log, k, retry)]
    if isinstance(outcome, Exception):
        rows = [failure_row(stage, task, k, outcome) for k in wanted]
    else:
        by_key = {str(r[stage.key]): r for r in outcome}
        missing = RuntimeError(f"{stage.name}: the worker returned no row for this key")
        rows = [by_key[k] if k in by_key else failure_row(stage, task, k, missing) for k in wanted]
    for row in rows:
        try:
            log.append(row)  # one whole line per result: a kill loses at most in-flight work
        except RowTooLong as exc:  # a line no reader would accept: the task is recorded as failed instead
            row = failure_row(stage, task, str(row[stage.key]), exc)
            log.append(row)
        bar.advance(failed=row.get("status") == "failed")
