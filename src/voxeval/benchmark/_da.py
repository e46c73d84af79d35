"""The dialogue-act benchmark: inputs → replies → annotations → WLCS / WED scores → report (spec 003)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.acts import parse_acts
from voxeval.annotate import Annotator
from voxeval.data import Dataset, Prediction, resolve_dataset
from voxeval.errors import InputError, Location
from voxeval.io import read_log
from voxeval.languages import LANGUAGES
from voxeval.report import RunData
from voxeval.run import Plan, RunRequest, RunSettings, StageRun
from voxeval.run._annotations import AnnotateWorker, annotate_replies
from voxeval.run._inputs import check_dataset_audio, dataset_input_items
from voxeval.run._replies import dataset_reply_items, reply_key
from voxeval.run._scoring import ScoredSet, score_predictions, table_row, write_score_outputs


def load_datasets(settings: RunSettings, limit: int | None) -> list[Dataset]:
    """The datasets of a run, split and limited."""
    from voxeval.run._names import Entry, distinct_names, split_named

    resolved = [resolve_dataset(split_named(spec)[1]) for spec in settings.datasets]
    names = distinct_names(
        [Entry(spec, d.name) for spec, d in zip(settings.datasets, resolved, strict=True)], "--dataset"
    )
    loaded = []
    for whole, name in zip(resolved, names, strict=True):
        dataset = Dataset(name, whole.path, whole.samples).split(settings.split)
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
            preds[sample.id] = Prediction(
                sample.id, (), None, f"reply {reply.get('outcome', 'failed')}: {reply.get('error')}"
            )
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
    """Score whatever the run directory holds and (re)write scores and summary (the report comes after)."""
    sets, _ = scored_sets(run_dir, datasets, system_names)
    write_score_outputs(run_dir, sets, markdown=False)
    return sets


SCORE_SETTINGS = ("gold", "pred", "dataset", "system", "ignore_extra")
"""What ``voxeval score`` records in its folder's ``config.json``, so ``voxeval report`` can rebuild it."""


def score_config(settings: dict[str, Any], sha256: dict[str, str]) -> dict[str, Any]:
    """The ``config.json`` of a ``voxeval score`` folder: the gold and prediction files with ``sha256``, their
    hashes as they were scored (``"gold"``, ``"pred"``; :class:`~voxeval.run._score_stream.ScoredFiles`)."""
    from voxeval import __version__

    files = {name: {"path": settings[name], "sha256": sha256[name]} for name in ("gold", "pred")}
    return {"voxeval_version": __version__, "settings": {"benchmark": "da", **settings}, "files": files}


def _load_scored(run_dir: Path, config: dict[str, Any]) -> RunData:
    from voxeval.data import load_gold, load_predictions

    s = config["settings"]
    scored = score_predictions(
        load_gold(s["gold"]), load_predictions(s["pred"]), dataset=s["dataset"], system=s["system"],
        ignore_extra=s["ignore_extra"], pred_source=s["pred"],
    )  # fmt: skip
    return RunData(run_dir, config, [scored], {})


def load_run(run_dir: Path) -> RunData:
    """Read ``config.json`` and the logs of a dialogue-act run (or ``voxeval score`` folder) and score them.

    Nothing in the folder is modified.
    """
    path = run_dir / "config.json"
    if not path.is_file():
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    config = json.loads(path.read_text(encoding="utf-8"))
    if "gold" in config["settings"]:
        return _load_scored(run_dir, config)
    settings = RunSettings.from_json(config["settings"])
    datasets = load_datasets(settings, config.get("limit"))
    names = list(config.get("components", {}).get("systems", {})) or list(settings.systems)
    sets, replies = scored_sets(run_dir, datasets, names)
    return RunData(run_dir, config, sets, replies)


@dataclass
class AnnotateStage:
    """The dialogue-act benchmark's scoring stage: annotate every reply with dialogue acts."""

    worker: AnnotateWorker
    """The annotation worker (with the annotator built by the driver)."""
    reference_aware: bool = False
    """Whether each reply is annotated with its sample's reference reply as context."""
    role: str = "annotator"

    def describe(self) -> dict[str, Any]:
        """The annotator's settings."""
        assert self.worker.annotator is not None
        return self.worker.annotator.describe()

    async def stage(
        self, run_dir: Path, plan: Plan, systems: list[str], replies: dict[str, Any], how: StageRun
    ) -> dict[str, Any]:
        """Annotate replies that have none yet."""
        return await annotate_replies(
            run_dir, plan.items, systems, replies, self.worker, how=how, reference_aware=self.reference_aware
        )


class DialogueActsBenchmark:
    """What a system says: its reply's dialogue acts against the gold sequence (WLCS, WED)."""

    name = "da"

    def settings(self, request: RunRequest) -> RunSettings:
        """Settings with the Appendix B prompts, ``ja-assistant`` and pyopenjtalk by default."""
        from voxeval.systems import default_prompts

        system_prompt, user_prompt = default_prompts()
        return RunSettings(
            benchmark=self.name,
            datasets=request.datasets or ("ja-assistant",),
            systems=request.systems,
            annotator=request.annotator,
            tts=request.tts or LANGUAGES["ja"].tts or "auto",
            split=request.split,
            system_prompt=request.system_prompt if request.system_prompt is not None else system_prompt,
            user_prompt=request.user_prompt if request.user_prompt is not None else user_prompt,
            reference_aware=request.reference_aware,
        )

    def plan(self, settings: RunSettings, limit: int | None) -> Plan:
        """The datasets (split and limited); their audio files are checked before anything is written."""
        datasets = load_datasets(settings, limit)
        check_dataset_audio(dataset_input_items(datasets))
        return Plan(
            inputs=dataset_input_items(datasets),
            replies=dataset_reply_items(datasets),
            dataset_files={d.name: d.path for d in datasets},
            items=datasets,
        )

    def scorer(self, settings: RunSettings) -> AnnotateStage:
        """The annotation stage."""
        from voxeval.annotate import annotator_from_spec

        annotator: Annotator = annotator_from_spec(settings.annotator)
        return AnnotateStage(AnnotateWorker(settings.annotator, annotator), settings.reference_aware)

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> list[ScoredSet]:
        """Score the logs; write ``scores.jsonl`` and ``summary.json``."""
        return score_run(run_dir, plan.items, systems)

    def table(self, summary: list[ScoredSet], run_dir: Path) -> str:
        """Table 1, and how many samples were excluded."""
        from voxeval.report import table1_markdown

        text = table1_markdown([table_row(s) for s in summary])
        failed = sum(len(s.summary.excluded) for s in summary)
        if failed:
            text += f"\n\n{failed} sample(s) failed or are unfinished and were excluded; see {run_dir / 'report.md'}"
        return text

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        """Pending work per stage and system, with estimates."""
        from voxeval.benchmark._da_dryrun import dry_run

        return dry_run(settings, plan.items, run_dir)

    def report(self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None) -> dict[str, Path]:
        """The dialogue-act report, from the run directory's files."""
        from voxeval.report._build import build_da_reports

        return build_da_reports(load_run(run_dir), prices)
