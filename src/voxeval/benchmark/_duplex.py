"""The duplex benchmark (issue 42): scenarios streamed at real-time pace into ``realtime:`` / ``live:`` sessions
with their own turn detection on; one session record per (system, scenario) in ``sessions.jsonl``; the four
turn-taking figures with bootstrap intervals; the reply to each interruption annotated with dialogue acts and scored
by WLCS / WED against the interrupting sample's reference. docs/duplex.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.annotate import AnnotationInput, Reference
from voxeval.data import Dataset
from voxeval.duplex import KINDS, Scenario, generate, scenario_sources, session_key
from voxeval.errors import ConfigError
from voxeval.languages import LANGUAGES
from voxeval.run import Plan, RunRequest, RunSettings, StageRun
from voxeval.run._annotations import AnnotateWorker
from voxeval.run._executor import Task
from voxeval.run._keys import check_run_row
from voxeval.run._stage import Stage, run_stage

PACES = ("realtime",)
"""How user audio can be streamed."""
SEED = 0
"""The scenarios' seed (pause lengths, offsets into the reply, interrupting samples, backchannel clips)."""


def duplex_options(request: RunRequest) -> dict[str, Any]:
    """The duplex part of a run's settings, checked: scenarios, pace, seed and turn-detection options; every system
    must stream (``realtime:openai:`` / ``live:gemini:``), refused before the run writes anything."""
    from voxeval.llm.stream import turn_detection
    from voxeval.run._names import split_named

    for given in request.systems:
        if not split_named(given)[1].startswith(("realtime:", "live:")):
            raise ConfigError(
                f"--system {given!r}: a duplex run streams into realtime:openai: or live:gemini: sessions only"
            )

    scenarios = request.scenarios or KINDS
    unknown = [k for k in scenarios if k not in KINDS]
    if unknown:
        raise ConfigError(f"--scenarios: unknown {', '.join(unknown)}; known: {', '.join(KINDS)}")
    pace = request.pace or "realtime"
    if pace not in PACES:
        raise ConfigError(f"--pace {pace!r}: only {', '.join(PACES)} is built")
    turn_detection(request.turn_detection)  # a bad option stops the run before it writes
    return {
        "scenarios": [k for k in KINDS if k in scenarios],
        "pace": pace,
        "seed": SEED,
        "turn_detection": sorted(request.turn_detection),
    }


@dataclass(frozen=True)
class DuplexItems:
    """What a duplex run evaluates."""

    datasets: tuple[Dataset, ...]
    """The datasets (split and limited)."""
    scenarios: tuple[Scenario, ...]
    """Every scenario built from them."""
    skipped: tuple[Any, ...]
    """Samples a scenario could not be built from, with why."""

    def sample(self, dataset: str, sample_id: str) -> Any:
        """A gold sample by dataset and id."""
        found = next(d for d in self.datasets if d.name == dataset)
        return next(s for s in found.samples if s.id == sample_id)


@dataclass
class FinalReplyAnnotateStage:
    """Annotates each interruption's final reply against the interrupting sample's request and reference."""

    worker: AnnotateWorker
    """The annotation worker."""
    reference_aware: bool = True
    """Each reply goes with its reference reply and gold acts as context."""
    role: str = "annotator"

    def describe(self) -> dict[str, Any]:
        """The annotator's settings."""
        assert self.worker.annotator is not None
        return {**self.worker.annotator.describe(), "replies": "the reply after each interruption"}

    async def stage(
        self, run_dir: Path, plan: Plan, systems: list[str], replies: dict[str, Any], how: StageRun
    ) -> dict[str, Any]:
        """Annotate final replies not annotated yet (failed ones have nothing to label)."""
        from voxeval.benchmark._duplex_sessions import FINAL_REPLY

        items: DuplexItems = plan.items
        tasks = []
        for key, row in replies.items():
            if row.get("status") != "ok":
                continue
            scenario = next(
                s
                for s in items.scenarios
                if s.kind == "interruption" and FINAL_REPLY + s.sample_id == row["id"] and s.dataset == row["dataset"]
            )
            gold = items.sample(scenario.dataset, scenario.reference_id)
            fields = {"key": key, "dataset": row["dataset"], "system": row["system"], "id": row["id"]}
            reference = Reference(gold.output_text, gold.acts) if self.reference_aware else None
            item = AnnotationInput(row["text"], gold.input_text, gold.background, reference, scenario.language)
            tasks.append(Task((key,), (fields, item), fields))
        name = self.worker.annotator.name if self.worker.annotator else self.worker.spec
        return await run_stage(
            Stage(f"annotations {name}", run_dir / "annotations.jsonl", check=check_run_row),
            tasks,
            self.worker,
            limit=self.worker.in_flight(8),
            how=how,
        )


def final_reply_sets(run_dir: Path, items: DuplexItems, systems: list[str]) -> dict[str, Any]:
    """WLCS / WED of the interruption replies per system, scored against the interrupting samples' gold acts."""
    from voxeval.benchmark._da import predictions_for
    from voxeval.benchmark._duplex_sessions import FINAL_REPLY, SESSIONS_LOG, reply_rows
    from voxeval.benchmark._duplex_summary import scored_reply_summary
    from voxeval.duplex import read_records
    from voxeval.run._keys import read_run_log
    from voxeval.run._scoring import score_predictions

    interruptions = [s for s in items.scenarios if s.kind == "interruption"]
    if not interruptions:
        return {}
    path = run_dir / SESSIONS_LOG
    replies = reply_rows([r for _, r in read_records(path)]) if path.exists() else {}
    annotations = read_run_log(run_dir / "annotations.jsonl")
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        for dataset in items.datasets:
            mine = [s for s in interruptions if s.dataset == dataset.name]
            gold = [
                dataclasses.replace(items.sample(s.dataset, s.reference_id), id=FINAL_REPLY + s.sample_id) for s in mine
            ]
            preds = predictions_for(Dataset(dataset.name, dataset.path, tuple(gold)), system, replies, annotations)
            scored = score_predictions(gold, preds, dataset=dataset.name, system=system, ignore_extra=True)
            out.setdefault(system, {})[dataset.name] = scored_reply_summary(scored)
    return out


class DuplexBenchmark:
    """How a live model takes turns: onset latency, takeover in pauses, stopping when interrupted, talking on
    through backchannels; and what it says after an interruption."""

    name = "duplex"

    def settings(self, request: RunRequest) -> RunSettings:
        """Settings with the Appendix B system prompt of the datasets' language (sent as the session's
        instructions) and its input voice for synthesised segments."""
        from voxeval.benchmark._da import run_language
        from voxeval.systems import default_prompts

        datasets = request.datasets or ("ja-assistant",)
        language = run_language(datasets)
        system_prompt, _ = default_prompts(language)
        return RunSettings(
            benchmark=self.name,
            datasets=datasets,
            systems=request.systems,
            annotator=request.annotator,
            tts=request.tts or LANGUAGES[language].tts or "auto",
            split=request.split,
            system_prompt=request.system_prompt if request.system_prompt is not None else system_prompt,
            user_prompt="",
            reply_text="model",
            reply_asr="",
            reference_aware=request.reference_aware,
            duplex=duplex_options(request),
        )

    def plan(self, settings: RunSettings, limit: int | None) -> Plan:
        """The datasets and every scenario built from them (the seed fixes every draw)."""
        from voxeval.benchmark._da import load_datasets
        from voxeval.benchmark._duplex_sessions import DuplexSessionStage
        from voxeval.llm.stream import StreamSettings, turn_detection
        from voxeval.run._inputs import check_dataset_audio, dataset_input_items

        datasets = load_datasets(settings, limit)
        check_dataset_audio(dataset_input_items(datasets))
        options = settings.duplex
        scenarios, skipped = generate(scenario_sources(datasets), tuple(options["scenarios"]), options["seed"])
        stage = DuplexSessionStage(scenarios, turn_detection(options["turn_detection"]), StreamSettings(), settings.tts)
        return Plan(
            inputs=dataset_input_items(datasets),
            replies=[],
            dataset_files={d.name: d.path for d in datasets},
            items=DuplexItems(tuple(datasets), tuple(scenarios), tuple(skipped)),
            reply_stage=stage,
        )

    def scorer(self, settings: RunSettings) -> FinalReplyAnnotateStage:
        """The annotation stage of the interruption replies."""
        from voxeval.annotate import annotator_from_spec
        from voxeval.benchmark._da import run_language

        kind = settings.annotator.split(":")[0]
        options = {"language": run_language(settings.datasets)} if kind in ("llm", "offline") else {}
        annotator = annotator_from_spec(settings.annotator, **options)
        return FinalReplyAnnotateStage(AnnotateWorker(settings.annotator, annotator, options), settings.reference_aware)

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> dict[str, Any]:
        """The figures and the final replies' scores; writes ``summary.json``."""
        from voxeval.benchmark._duplex_summary import summarise_duplex

        return summarise_duplex(run_dir, systems, final_reply_sets(run_dir, plan.items, systems))

    def table(self, summary: dict[str, Any], run_dir: Path) -> str:
        """The figures per system."""
        from voxeval.report._duplex import duplex_markdown

        return duplex_markdown(summary)

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        """Sessions pending per system, calling nothing."""
        from voxeval.benchmark._duplex_sessions import SESSIONS_LOG
        from voxeval.io import read_log

        path = run_dir / SESSIONS_LOG
        done = set(read_log(path, "id")) if path.exists() else set()
        items: DuplexItems = plan.items
        from voxeval.run._names import split_named

        names = [split_named(g)[0] or split_named(g)[1] for g in settings.systems]  # as systems name themselves
        pending = {s: sum(session_key(s, c) not in done for c in items.scenarios) for s in names}
        return {
            "benchmark": self.name,
            "scenarios": len(items.scenarios),
            "skipped": len(items.skipped),
            "sessions_pending": pending,
            "pace": settings.duplex["pace"],
        }

    def report(self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None) -> dict[str, Path]:
        """report.md and report.html with the figures and a timeline per session, from the run's files."""
        from voxeval.benchmark._duplex_sessions import SESSIONS_LOG
        from voxeval.report._duplex import write_duplex_reports

        return write_duplex_reports(run_dir, run_dir / SESSIONS_LOG)
