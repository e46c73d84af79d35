"""Stage 3: annotate replies with dialogue acts (for ``voxeval run`` and ``voxeval annotate``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxeval.acts import acts_to_json
from voxeval.annotate import AnnotationFailed, AnnotationInput, Annotator, Reference, annotate_guarded
from voxeval.data import Dataset
from voxeval.run._executor import Row, Task
from voxeval.run._keys import check_run_row, reply_key
from voxeval.run._stage import Stage, StageRun, run_stage

OFFLINE_BATCH = 4096
"""Replies in flight for the offline annotator: concurrent calls on one event loop become one batch (one
sentence-encoder call), so the stage keeps this many in flight instead of a network-style handful."""


async def annotate_one(annotator: Annotator, item: AnnotationInput) -> Row:
    """The annotation of one reply: ``ok`` with its steps, or ``failed`` with the raw output.

    An echo of the user's input gets no acts without calling the annotator (``echo: true`` in the row, see
    :mod:`voxeval.annotate._echo`). An annotator error other than :class:`AnnotationFailed` propagates: the stage
    runner records it.
    """
    if not item.reply.strip():
        # Nothing was said, so there is nothing to label: an empty act sequence, without calling the annotator.
        return {"status": "ok", "steps": [], "note": "empty reply"}
    try:
        annotation = await annotate_guarded(annotator, item)
    except AnnotationFailed as exc:
        return {"status": "failed", "error": str(exc), "raw": exc.raw, "attempts": exc.attempts}
    return {"status": "ok", "steps": acts_to_json(annotation.acts), "raw": annotation.raw, **annotation.meta}


@dataclass
class AnnotateWorker:
    """Annotates one reply; payload ``(fields, item)``: the row's identifying fields and the annotator's input.

    Picklable for a process pool: the annotator is rebuilt from ``spec`` once per worker process.
    """

    spec: str
    """Annotator spec (``offline``, ``llm:…``, ``gold``)."""
    annotator: Annotator | None = None
    """The annotator already built by the driver (not pickled)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Keyword options the annotator is built with in a worker process (``language`` for ``offline`` / ``llm``)."""
    cpu_bound: bool = field(init=False)

    def __post_init__(self) -> None:
        self.cpu_bound = self.spec.split(":")[0] == "offline"  # a local model; others are network calls

    def in_flight(self, network: int) -> int:
        """How many replies the stage should keep in flight: :data:`OFFLINE_BATCH` for the batching offline
        annotator, else ``network`` (the run's concurrency for network annotators)."""
        return OFFLINE_BATCH if self.cpu_bound else network

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "annotator": None, "options": self.options, "cpu_bound": self.cpu_bound}

    def setup(self) -> None:
        """Build the annotator (load its model) unless the driver handed it over."""
        if self.annotator is None:
            from voxeval.annotate import annotator_from_spec

            self.annotator = annotator_from_spec(self.spec, **self.options)

    async def __call__(self, payload: tuple[dict[str, Any], AnnotationInput]) -> list[Row]:
        """One annotation row."""
        fields, item = payload
        assert self.annotator is not None, "setup() was not called"
        return [{**fields, **await annotate_one(self.annotator, item)}]


async def annotate_replies(
    run_dir: Path,
    datasets: list[Dataset],
    system_names: list[str],
    replies: dict[str, dict[str, Any]],
    worker: AnnotateWorker,
    *,
    how: StageRun | None = None,
    concurrency: int = 8,
    reference_aware: bool = False,
) -> dict[str, Row]:
    """Annotate replies that have none yet (replies that failed are skipped: they have nothing to label); with
    ``reference_aware`` each reply goes with its sample's reference reply and gold acts."""
    tasks = []
    for dataset in datasets:
        for system in system_names:
            for sample in dataset.samples:
                key = reply_key(dataset.name, system, sample.id)
                reply = replies.get(key)
                if reply is None or reply["status"] == "failed":
                    continue
                fields = {"key": key, "dataset": dataset.name, "system": system, "id": sample.id}
                reference = Reference(sample.output_text, sample.acts) if reference_aware else None
                item = AnnotationInput(
                    reply.get("text", ""), sample.input_text, sample.background, reference, sample.language
                )
                tasks.append(Task((key,), (fields, item), fields))
    name = worker.annotator.name if worker.annotator else worker.spec
    return await run_stage(
        Stage(f"annotations {name}", run_dir / "annotations.jsonl", check=check_run_row),
        tasks,
        worker,
        limit=worker.in_flight(concurrency),
        how=how,
    )
