"""The judge stage, shared by ``voxeval run --benchmark style`` and ``voxeval judge``: one answer per judge.

A judge with ``judge_batch`` (the acoustic judge) gets all of a system's spoken replies in one task, so relative
measures (volume against the system's other replies, the model-relative pitch reference) use the whole set;
only the judgements not yet recorded are appended. Other judges get one task per reply.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxeval.errors import Location
from voxeval.judge import StyleJudge
from voxeval.run._executor import Row, Task
from voxeval.run._keys import check_run_row
from voxeval.run._stage import Stage, StageRun, describe_error, run_stage
from voxeval.style import Judgement, StyleItem


@dataclass(frozen=True)
class JudgeEntry:
    """One reply to judge."""

    key: str
    """Key of its row in ``judgements.jsonl``."""
    item: StyleItem
    """The style item, with ``model_name`` set to the system that replied."""
    audio: Path | None
    """The reply audio; ``None`` when there is none (the judgement is recorded as failed)."""
    fields: dict[str, Any] = field(default_factory=dict)
    """Fields that lead the row (``key``, ``dataset``, ``system`` in a run)."""
    missing: str = "no reply audio"
    """Why there is no audio (the failed judgement's reason)."""


def _failed(judge: str, entry: JudgeEntry, reason: str) -> Judgement:
    item = entry.item
    return Judgement(item.id, item.ability, None, "failed", judge, item.model_name, reason=reason)


@dataclass
class JudgeWorker:
    """Judges one reply, or one system's whole batch. Picklable: the judge is rebuilt from its spec."""

    spec: str
    """Judge spec (``acoustic[:…]``, ``lalm:…``)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Judge options (e.g. ``repeats``)."""
    judge: StyleJudge | None = None
    """The judge built by the driver (not pickled)."""
    vstyle_rows: bool = False
    """Rows in VStyle's format (``voxeval judge``): ``model_name`` filled in, ``meta`` always present."""
    cpu_bound: bool = field(init=False)

    def __post_init__(self) -> None:
        self.cpu_bound = self.spec.split(":")[0] == "acoustic"  # signal processing and a local ASR model

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "judge": None}

    def setup(self) -> None:
        """Build the judge (load its models) unless the driver handed it over."""
        if self.judge is None:
            from voxeval.judge import judge_from_spec

            self.judge = judge_from_spec(self.spec, **self.options)

    async def __call__(self, entries: Sequence[JudgeEntry]) -> list[Row]:
        """The judgement rows of ``entries`` (several only for a batch judge)."""
        from voxeval.speech.audio import read_audio_file

        judge = self.judge
        assert judge is not None, "setup() was not called"
        verdicts = {e.key: _failed(judge.name, e, e.missing) for e in entries if e.audio is None}
        spoken = [e for e in entries if e.audio is not None]
        try:
            replies = [(e.item, read_audio_file(e.audio, Location(str(e.audio)))) for e in spoken if e.audio]
            if judge.relative:
                got = await judge.judge_batch(replies)
            else:
                got = [await judge.judge(i, a) for i, a in replies]
        except Exception as exc:  # recorded as failed judgements, listed in the report, never scored
            got = [_failed(judge.name, e, f"judge error: {describe_error(exc)}") for e in spoken]
        verdicts.update(zip([e.key for e in spoken], got, strict=True))
        return [self._row(e, verdicts[e.key]) for e in entries]

    def _row(self, entry: JudgeEntry, judgement: Judgement) -> Row:
        if judgement.id != entry.item.id:
            raise RuntimeError(f"judge {judgement.judge!r} answered item {entry.item.id!r} with id {judgement.id!r}")
        if self.vstyle_rows and judgement.model_name is None:
            judgement = dataclasses.replace(judgement, model_name=entry.item.model_name)
        row: Row = {**entry.fields, **judgement.to_json()}
        if self.vstyle_rows:
            row.setdefault("meta", {})  # always present, so every row has the same keys
        return row


def judge_tasks(entries: Sequence[JudgeEntry], batch: bool) -> list[Task[Sequence[JudgeEntry]]]:
    """One task per reply, or (batch judges) one per system for its spoken replies."""
    if not batch:
        return [Task[Sequence[JudgeEntry]]((e.key,), (e,)) for e in entries]
    groups: dict[str | None, list[JudgeEntry]] = defaultdict(list)
    for e in entries:
        if e.audio is not None:
            groups[e.item.model_name].append(e)
    singles = [Task[Sequence[JudgeEntry]]((e.key,), (e,)) for e in entries if e.audio is None]
    return singles + [Task[Sequence[JudgeEntry]](tuple(e.key for e in g), tuple(g)) for g in groups.values()]


async def judge_entries(
    log: Path, entries: Sequence[JudgeEntry], worker: JudgeWorker, *, key: str = "key", how: StageRun | None = None
) -> dict[str, Row]:
    """Judge every entry not yet judged (failed ones too with ``retry_failed``); returns the log's rows by key."""
    worker.setup()
    judge = worker.judge
    assert judge is not None
    tasks = judge_tasks(entries, judge.relative)
    check = check_run_row if key == "key" else None  # a run's log; ``voxeval judge`` keys VStyle rows by ``id``
    stage = Stage(f"judgements {judge.name}", log, key=key, record_failures=False, check=check)
    limit = max(1, judge.concurrency)
    if worker.cpu_bound:  # the acoustic judge: one task (a system's replies) per worker process or Ray actor
        limit = max(limit, getattr((how or StageRun()).cpu_executor, "processes", 1))
    return await run_stage(stage, tasks, worker, limit=limit, how=how)
