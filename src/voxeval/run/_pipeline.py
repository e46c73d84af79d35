"""The dialogue-act benchmark end to end: inputs → replies → annotations → scores → report."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from voxeval.acts import parse_acts
from voxeval.data import Dataset, Prediction, resolve_dataset
from voxeval.errors import Location
from voxeval.run._annotations import AnnotateWorker, annotate_replies
from voxeval.run._config import RunSettings, write_config
from voxeval.run._executor import executor_from_name
from voxeval.run._inputs import check_dataset_audio, dataset_input_items, prepare_inputs
from voxeval.run._replies import dataset_reply_items, generate_replies, reply_key
from voxeval.run._scoring import ScoredSet, score_predictions, write_score_outputs
from voxeval.run._stage import StageRun


@dataclass(frozen=True)
class RunOptions:
    """How to run (as opposed to :class:`RunSettings`, what to run): none of these change results."""

    out: Path
    """Run directory."""
    limit: int | None = None
    """Only the first N samples of each dataset (after ``split``)."""
    retry_failed: bool = False
    """Re-attempt samples recorded as failed."""
    concurrency: int | None = None
    """Override each system's own concurrency."""
    use_cache: bool = True
    """Reuse identical provider calls from the request cache."""
    progress: bool = True
    """Show progress bars on stderr."""
    executor: str = "async"
    """Where CPU-bound stages run: ``async`` (in-process) or ``process`` (a process pool)."""

    def stage_run(self) -> StageRun:
        """The stage runner's options."""
        return StageRun(self.retry_failed, self.progress, executor_from_name(self.executor))


def load_datasets(settings: RunSettings, limit: int | None) -> list[Dataset]:
    """The datasets of a run, split and limited."""
    loaded = []
    for spec in settings.datasets:
        dataset = resolve_dataset(spec).split(settings.split)
        if limit is not None:
            dataset = Dataset(dataset.name, dataset.path, dataset.samples[:limit])
        loaded.append(dataset)
    return loaded


def predictions_for(
    dataset: Dataset, system: str, replies: dict[str, dict[str, Any]], annotations: dict[str, dict[str, Any]]
) -> dict[str, Prediction]:
    """Turn stage rows into predictions; anything that did not produce acts becomes an excluded failure."""
    preds: dict[str, Prediction] = {}
    for sample in dataset.samples:
        key = reply_key(dataset.name, system, sample.id)
        reply, note = replies.get(key), annotations.get(key)
        text = reply.get("text") if reply else None
        if reply is None:
            preds[sample.id] = Prediction(sample.id, (), None, "not run yet (resume the run to finish it)")
        elif reply["status"] == "failed":
            preds[sample.id] = Prediction(sample.id, (), None, f"reply failed: {reply.get('error')}")
        elif note is None:
            preds[sample.id] = Prediction(sample.id, (), text, "not annotated yet (resume the run to finish it)")
        elif note["status"] != "ok":
            preds[sample.id] = Prediction(sample.id, (), text, f"annotation failed: {note.get('error')}")
        else:
            acts = parse_acts(note["steps"], Location("annotations.jsonl", field=f"{key}.steps"), allow_empty=True)
            preds[sample.id] = Prediction(sample.id, acts, text)
    return preds


def scored_sets(
    run_dir: Path, datasets: list[Dataset], system_names: list[str]
) -> tuple[list[ScoredSet], dict[str, dict[str, Any]]]:
    """Score whatever the run directory's logs hold (read-only); also returns the reply rows by key."""
    from voxeval.data import read_log

    replies = read_log(run_dir / "replies.jsonl", "key")
    annotations = read_log(run_dir / "annotations.jsonl", "key")
    sets = [
        score_predictions(
            list(d.samples), predictions_for(d, s, replies, annotations), dataset=d.name, system=s, ignore_extra=True
        )
        for d in datasets
        for s in system_names
    ]
    return sets, replies


def score_run(run_dir: Path, datasets: list[Dataset], system_names: list[str]) -> list[ScoredSet]:
    """Score whatever the run directory holds and (re)write scores, summary and report."""
    sets, _ = scored_sets(run_dir, datasets, system_names)
    write_score_outputs(run_dir, sets)
    return sets


T = TypeVar("T")


def build_components(use_cache: bool, build: Callable[[], T]) -> T:
    """Build systems and annotators/judges; with ``use_cache=False`` their models answer without the request cache.

    The process-wide cache setting is restored afterwards, so a library caller's next run is unaffected.
    """
    from voxeval.llm import request_cache, set_request_cache

    previous = request_cache()
    if not use_cache:
        set_request_cache(None)
    try:
        return build()
    finally:
        set_request_cache(previous)


def _run_da(settings: RunSettings, options: RunOptions, argv: list[str] | None = None) -> list[ScoredSet]:
    """Run (or resume) the dialogue-act benchmark in ``options.out``."""
    from voxeval.annotate import annotator_from_spec
    from voxeval.llm import request_cache, set_request_cache
    from voxeval.systems import system_from_spec

    datasets = load_datasets(settings, options.limit)
    check_dataset_audio(dataset_input_items(datasets))
    previous_cache = request_cache()
    if not options.use_cache:
        set_request_cache(None)  # models built below answer without the cache; restored when the run ends
    try:
        systems = [system_from_spec(spec) for spec in settings.systems]
        annotator = annotator_from_spec(settings.annotator)
    finally:
        set_request_cache(previous_cache)
    options.out.mkdir(parents=True, exist_ok=True)
    described = {"systems": {s.name: s.describe() for s in systems}, "annotator": annotator.describe()}
    write_config(
        options.out,
        settings,
        dataset_files={d.name: d.path for d in datasets},
        described=described,
        limit=options.limit,
        argv=argv if argv is not None else sys.argv,
    )
    how = options.stage_run()
    inputs = prepare_inputs(options.out, dataset_input_items(datasets), settings.tts, how=how)
    prompts = (settings.system_prompt, settings.user_prompt)

    async def stages() -> None:
        replies = await generate_replies(
            options.out,
            dataset_reply_items(datasets),
            systems,
            inputs,
            prompts,
            how=how,
            concurrency=options.concurrency,
        )
        worker = AnnotateWorker(settings.annotator, annotator)
        await annotate_replies(options.out, datasets, [s.name for s in systems], replies, worker, how=how)

    asyncio.run(stages())
    return score_run(options.out, datasets, [s.name for s in systems])


def run_da(settings: RunSettings, options: RunOptions, argv: list[str] | None = None) -> list[ScoredSet]:
    """Run (or resume) the dialogue-act benchmark in ``options.out``, holding the run directory's lock."""
    from voxeval.run._lock import RunLock

    with RunLock(options.out):
        return _run_da(settings, options, argv)
