"""The dialogue benchmark: multi-turn dialogues scored act by act, turn by turn, under three kinds of history.

Every assistant turn of a dialogue set (``ja-dialogues``, ``en-dialogues``, ``zh-dialogues``) is a row keyed by
(dataset, system under a history condition, ``DIALOGUE/K``) in the same stage runner as the single-turn benchmark:
input audio per user turn → replies (:mod:`voxeval.run._dialogue_replies`: ``gold`` / ``none`` per turn, ``own``
one session per dialogue) → reply ASR → annotation (the annotator sees the dialogue so far) → WLCS / WED per turn
→ turn and dialogue means, context gain and drift (:mod:`voxeval.metrics._dialogues`). docs/dialogues.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voxeval.annotate import AnnotationInput, Reference
from voxeval.data import Dataset, Dialogue, builtin_path, load_dialogues, turn_samples
from voxeval.errors import ConfigError, InputError, Location
from voxeval.run import Plan, RunRequest, RunSettings, StageRun
from voxeval.run._annotations import AnnotateWorker
from voxeval.run._dialogue_replies import HISTORIES, HistoryCondition, conditioned_name, dialogue_replies
from voxeval.run._executor import Row, Task
from voxeval.run._inputs import check_dataset_audio, dataset_input_items
from voxeval.run._keys import check_run_row, read_run_log, reply_key
from voxeval.run._replies import HistoryRef, ReplyItem
from voxeval.run._stage import Stage, run_stage
from voxeval.systems import SpokenDialogueSystem

DEFAULT_DATASET = "ja-dialogues"
"""The dialogue set a run uses when none is given."""


@dataclass(frozen=True)
class DialogueSet:
    """One dialogue set of a run: its dialogues and their assistant turns as single-turn samples."""

    name: str
    """Dataset name in results (``ja-dialogues``, ``ja-dialogues:test`` after a split)."""
    path: Path
    """The JSONL file."""
    dialogues: tuple[Dialogue, ...]
    """Dialogues in file order (split and limited)."""

    @property
    def turns(self) -> Dataset:
        """Every assistant turn as a single-turn sample ``DIALOGUE/K`` (input: the user turn before it)."""
        return Dataset(self.name, self.path, tuple(s for d in self.dialogues for s in turn_samples(d)))

    @property
    def language(self) -> str:
        """The language the set's dialogues share."""
        found = {d.language for d in self.dialogues}
        if len(found) != 1:
            raise InputError(Location(str(self.path), field="locale"), f"dialogues in several languages: {found}")
        return found.pop()


def dialogue_file(spec: str) -> tuple[str, Path]:
    """``(name, file)`` of a ``--dataset`` value: a built-in dialogue set, a JSONL file of dialogues, or a Hugging
    Face dataset folder (``hf:DIR``; materialised as a JSONL file, :mod:`voxeval.interop`)."""
    if spec.startswith("hf:") or Path(spec).is_dir():
        from voxeval.interop._datasets import hf_dialogue_file

        path = hf_dialogue_file(spec)
        return path.stem, path
    path = Path(spec)
    if path.suffix == ".jsonl" or path.exists():
        return path.stem, path
    return spec, builtin_path(spec)


def load_sets(settings: RunSettings, limit: int | None, files: dict[str, Path] | None = None) -> list[DialogueSet]:
    """The run's dialogue sets, split and limited to the first ``limit`` dialogues each; ``files`` overrides where
    a set is read from (a report reads the files its run recorded)."""
    sets = []
    for spec in settings.datasets:
        name, path = dialogue_file(spec)
        dialogues = load_dialogues((files or {}).get(name, path))
        if settings.split is not None:
            dialogues = [d for d in dialogues if d.split == settings.split]
            if not dialogues:
                raise InputError(Location(str(path), field="split"), f"no dialogues in split {settings.split!r}")
            name = f"{name}:{settings.split}"
        sets.append(DialogueSet(name, path, tuple(dialogues[:limit] if limit else dialogues)))
    if len({s.name for s in sets}) < len(sets):
        raise ConfigError("a dialogue set is given twice in --dataset")
    return sets


def reply_items(sets: list[DialogueSet]) -> list[ReplyItem]:
    """One item per assistant turn, carrying the reference dialogue before it (used by ``--history gold``)."""
    items = []
    for dialogue_set in sets:
        for dialogue in dialogue_set.dialogues:
            refs: list[HistoryRef] = []
            for k, (user, reply) in enumerate(dialogue.exchanges, start=1):
                turn_id = f"{dialogue.id}/{k}"
                items.append(ReplyItem(dialogue_set.name, turn_id, user.text, dialogue.language, tuple(refs)))
                refs.append(HistoryRef(turn_id, user.text, reply.text))
    return items


@dataclass
class DialogueReplyStage:
    """The run's reply stage: every system under every history condition of the run."""

    items: list[ReplyItem]
    """Every assistant turn of the run."""
    histories: tuple[str, ...]
    """The run's history conditions."""

    async def __call__(
        self,
        run_dir: Path,
        systems: list[SpokenDialogueSystem],
        inputs: dict[str, dict[str, Any]],
        prompts: tuple[str, str],
        *,
        how: StageRun,
        concurrency: int | None,
    ) -> dict[str, Row]:
        """Replies of every (system, condition)."""
        conditioned: list[SpokenDialogueSystem] = [HistoryCondition(s, h) for s in systems for h in self.histories]
        return await dialogue_replies(
            run_dir, self.items, conditioned, inputs, prompts, how=how, concurrency=concurrency
        )


def said_before(dialogue: Dialogue, k: int, own: dict[int, str] | None) -> str:
    """The dialogue before assistant turn ``k`` as the annotator reads it: user turns and the assistant's replies
    (its own under ``--history own``, else the references)."""
    lines = []
    for j, (user, reply) in enumerate(dialogue.exchanges[: k - 1], start=1):
        lines += [f"USER: {user.text}", f"ASSISTANT: {own.get(j, '') if own is not None else reply.text}"]
    return "\n".join(lines)


def annotation_background(dialogue: Dialogue, k: int, own: dict[int, str] | None) -> str:
    """The scenario, then the dialogue so far: an annotator reads a bare 「はい」 after a Check-Question as its
    answer. Annotators take it through the background they already read, so no prompt changes."""
    before = said_before(dialogue, k, own)
    return dialogue.background + (f"\n\n{before}" if before else "")


@dataclass
class DialogueAnnotateStage:
    """Annotate every reply of every (system, condition), with the dialogue so far as context."""

    worker: AnnotateWorker
    """The annotation worker (the annotator built by the driver)."""
    histories: tuple[str, ...]
    """The run's history conditions."""
    reference_aware: bool = False
    """Each reply goes with its turn's reference reply and gold acts."""
    role: str = "annotator"

    def describe(self) -> dict[str, Any]:
        """The annotator's settings and how it is given the dialogue."""
        assert self.worker.annotator is not None
        return {**self.worker.annotator.describe(), "dialogue_context": "background"}

    async def stage(
        self, run_dir: Path, plan: Plan, systems: list[str], replies: dict[str, Any], how: StageRun
    ) -> dict[str, Any]:
        """Annotate replies that have none yet (failed replies have nothing to label)."""
        tasks = []
        for dialogue_set in plan.items:
            for system in systems:
                for history in self.histories:
                    tasks += self._tasks(dialogue_set, conditioned_name(system, history), history, replies)
        name = self.worker.annotator.name if self.worker.annotator else self.worker.spec
        return await run_stage(
            Stage(f"annotations {name}", run_dir / "annotations.jsonl", check=check_run_row),
            tasks,
            self.worker,
            limit=self.worker.in_flight(8),
            how=how,
        )

    def _tasks(self, dialogue_set: DialogueSet, system: str, history: str, replies: dict[str, Any]) -> list[Task]:
        tasks = []
        for dialogue in dialogue_set.dialogues:
            own: dict[int, str] = {}
            for k, ((user, reference), sample) in enumerate(
                zip(dialogue.exchanges, turn_samples(dialogue), strict=True), start=1
            ):
                key = reply_key(dialogue_set.name, system, sample.id)
                reply = replies.get(key)
                own[k] = reply.get("text", "") if reply else ""
                if reply is None or reply["status"] == "failed":
                    continue
                fields = {"key": key, "dataset": dialogue_set.name, "system": system, "id": sample.id}
                background = annotation_background(dialogue, k, own if history == "own" else None)
                item = AnnotationInput(
                    reply.get("text", ""),
                    user.text,
                    background,
                    Reference(reference.text, reference.acts) if self.reference_aware else None,
                    dialogue.language,
                )
                tasks.append(Task((key,), (fields, item), fields))
        return tasks


class DialoguesBenchmark:
    """What a system says turn after turn in a dialogue, under gold, own and no history."""

    name = "dialogues"

    def settings(self, request: RunRequest) -> RunSettings:
        """Settings with the Appendix B prompts and input voice of the sets' language; all three conditions by
        default."""
        from voxeval.benchmark._da import annotated_settings

        datasets = request.datasets or (DEFAULT_DATASET,)
        languages = {_language_of(spec) for spec in datasets}
        if len(languages) != 1:
            raise ConfigError(f"dialogue sets in several languages ({', '.join(sorted(languages))}): run each alone")
        history = tuple(h for h in HISTORIES if h in (request.history or HISTORIES))
        return annotated_settings(self.name, request, datasets, languages.pop(), history=history)

    def plan(self, settings: RunSettings, limit: int | None) -> Plan:
        """The dialogue sets (split, first ``limit`` dialogues each); audio files checked before anything runs."""
        sets = load_sets(settings, limit)
        turns = [s.turns for s in sets]
        check_dataset_audio(dataset_input_items(turns))
        items = reply_items(sets)
        return Plan(
            inputs=dataset_input_items(turns),
            replies=items,
            dataset_files={s.name.split(":")[0]: s.path for s in sets},
            items=sets,
            reply_stage=DialogueReplyStage(items, settings.history),
        )

    def scorer(self, settings: RunSettings) -> DialogueAnnotateStage:
        """The annotation stage (the annotator of the sets' language)."""
        from voxeval.annotate import annotator_from_spec

        language = _language_of(settings.datasets[0])
        kind = settings.annotator.split(":")[0]
        options = {"language": language} if kind in ("llm", "offline") else {}
        annotator = annotator_from_spec(settings.annotator, **options)
        worker = AnnotateWorker(settings.annotator, annotator, options)
        return DialogueAnnotateStage(worker, settings.history, settings.reference_aware)

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> Any:
        """Score the logs; write ``scores.jsonl`` and ``summary.json``."""
        from voxeval.benchmark._dialogue_summary import summarise_run

        return summarise_run(run_dir, plan.items, systems, _histories(run_dir), write=True)

    def table(self, summary: Any, run_dir: Path) -> str:
        """The conditions side by side, context gain and drift."""
        from voxeval.report._dialogues import dialogues_text
        from voxeval.report._speech import LATENCY_TITLE, latency_text

        text = dialogues_text(summary.to_json())
        latency = latency_text(read_run_log(run_dir / "replies.jsonl"))
        return text + (f"\n\n{LATENCY_TITLE} (per turn)\n\n{latency}" if latency else "")

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        """What the run would ask for, calling nothing."""
        done = read_run_log(run_dir / "replies.jsonl")
        turns = plan.replies
        pending = {
            conditioned_name(system, history): sum(
                reply_key(i.dataset, conditioned_name(system, history), i.id) not in done for i in turns
            )
            for system in settings.systems
            for history in settings.history
        }
        return {
            "benchmark": self.name,
            "dialogues": sum(len(s.dialogues) for s in plan.items),
            "turns": len(turns),
            "history": list(settings.history),
            "replies_pending": pending,
            "sessions_per_own_dialogue": 1,
        }

    def report(
        self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None, content: str | None = None
    ) -> dict[str, Path]:
        """report.md and report.html of a dialogue run, from its files only (with each condition's WLCS-c / WED-c
        when ``content`` names a span similarity)."""
        from voxeval.benchmark._dialogue_summary import load_dialogue_run
        from voxeval.report._dialogues import write_dialogue_reports

        summary, chats = load_dialogue_run(run_dir, content)
        views = {
            view: {d: {h: [asdict(t) for t in turns] for h, turns in by.items()} for d, by in ds.items()}
            for view, ds in chats.items()
        }
        return write_dialogue_reports(run_dir, summary.to_json(), views, read_run_log(run_dir / "replies.jsonl"))


def _language_of(spec: str) -> str:
    _, path = dialogue_file(spec)
    dialogues = load_dialogues(path)
    if not dialogues:
        raise InputError(Location(str(path)), "no dialogues")
    return dialogues[0].language


def _histories(run_dir: Path) -> tuple[str, ...]:
    from voxeval.run._config import read_config, settings_of

    config = read_config(run_dir)
    if config is None:
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    return settings_of(config, run_dir).history
