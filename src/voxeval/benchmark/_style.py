"""The style benchmark: instruction audio → spoken replies → judgements → VStyle-weighted scores."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from voxeval.io import atomic_write_json
from voxeval.languages import LANGUAGES
from voxeval.run import Plan, RunRequest, RunSettings, StageRun
from voxeval.run._inputs import InputItem
from voxeval.run._judgements import JudgeEntry, JudgeWorker, judge_entries
from voxeval.run._keys import read_run_log, reply_key
from voxeval.run._replies import ReplyItem

INSTRUCTION_TTS = {code: d.style_tts for code, d in LANGUAGES.items()}
"""Engines that speak the instructions when ``--tts auto`` (the default for the style benchmark)."""

StyleEntry = tuple[str, Any, Path]
"""(set name, style item, set file)."""


def load_items(settings: RunSettings, limit: int | None) -> list[StyleEntry]:
    """(set name, item, set file) of every style item; ``limit`` takes N per set, spread over abilities."""
    from voxeval.run._names import Entry, distinct_names, split_named
    from voxeval.style._sets import load_style_set

    abilities = settings.abilities
    picked = []
    sets = [load_style_set(split_named(spec)[1]) for spec in settings.datasets]
    names = distinct_names([Entry(spec, s.name) for spec, s in zip(settings.datasets, sets, strict=True)], "--dataset")
    for style_set, name in zip(sets, names, strict=True):
        style_set = replace(style_set, name=name)
        items = [i for i in style_set.items if not abilities or i.sub_ability in abilities]
        rank: dict[str, int] = defaultdict(int)
        order = []
        for item in items:
            order.append((rank[item.ability], item))
            rank[item.ability] += 1
        # Round-robin over abilities, so that --limit keeps every ability represented.
        spread = [item for _, item in sorted(order, key=lambda p: p[0])]
        picked += [(style_set.name, item, style_set.path) for item in spread[: limit or None]]
    return picked


def judge_entries_of(
    run_dir: Path, items: list[StyleEntry], systems: list[str], replies: dict[str, dict[str, Any]]
) -> list[JudgeEntry]:
    """One entry per reply; a reply without audio is judged ``failed`` with the reason."""
    entries = []
    for set_name, item, _ in items:
        for system in systems:
            key = reply_key(set_name, system, item.id)
            reply = replies.get(key)
            if reply is None:
                continue
            failed = reply.get("status") == "failed"
            audio = _reply_audio(run_dir, key, reply) if not failed and reply.get("audio") else None
            why = f"reply failed: {reply.get('error')}" if failed else "no reply audio"
            fields = {"key": key, "dataset": set_name, "system": system}
            entries.append(JudgeEntry(key, replace(item, model_name=system), audio, fields, why))
    return entries


def _reply_audio(run_dir: Path, key: str, reply: dict[str, Any]) -> Path:
    """A reply's audio file, which must lie inside the run folder (a path read back from ``replies.jsonl``)."""
    from voxeval.data import resolve_inside
    from voxeval.errors import Location

    where = Location(str(run_dir / "replies.jsonl"), field=f"{key}.audio")
    return resolve_inside(run_dir, reply["audio"], where, "run folder")


@dataclass
class JudgeStage:
    """The style benchmark's scoring stage: judge every spoken reply."""

    worker: JudgeWorker
    """The judge worker (with the judge built by the driver)."""
    role: str = "judge"

    def describe(self) -> dict[str, Any]:
        """The judge's settings."""
        assert self.worker.judge is not None
        return self.worker.judge.describe()

    async def stage(
        self, run_dir: Path, plan: Plan, systems: list[str], replies: dict[str, Any], how: StageRun
    ) -> dict[str, Any]:
        """Judge every reply that has none yet."""
        entries = judge_entries_of(run_dir, plan.items, systems, replies)
        return await judge_entries(run_dir / "judgements.jsonl", entries, self.worker, how=how)


def style_summary(run_dir: Path, judgements: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """VStyle-weighted scores per system (and per style set), written to ``summary.json``."""
    from voxeval.judge import Judgement, vstyle_scores

    by_system: dict[str, list[Judgement]] = defaultdict(list)
    for row in judgements.values():
        by_system[row["system"]].append(
            Judgement(
                row["id"],
                row["ability"],
                row["score"],
                row["status"],
                row["judge"],
                row["system"],
                row.get("attributes") or {},
                row.get("raw"),
                row.get("reason", ""),
            )
        )
    summary = {"benchmark": "style", "systems": {s: vstyle_scores(j).to_json() for s, j in sorted(by_system.items())}}
    atomic_write_json(run_dir / "summary.json", summary)
    return summary


class StyleBenchmark:
    """How a system follows speaking-style instructions (VStyle's rubric and weights, spec 002)."""

    name = "style"

    def settings(self, request: RunRequest) -> RunSettings:
        """Settings with the style prompts, ``acoustic-ja`` and one TTS engine per language by default."""
        from voxeval.errors import ConfigError
        from voxeval.prompts import load_prompt

        if request.reply_text is not None or request.reply_asr is not None:
            raise ConfigError("--reply-text and --reply-asr apply to --benchmark da; style judges the reply audio")
        return RunSettings(
            benchmark=self.name,
            datasets=request.datasets or ("acoustic-ja",),
            systems=request.systems,
            annotator=request.judge,
            tts=request.tts or "auto",
            system_prompt=request.system_prompt or load_prompt("style/response_system.v1").text,
            user_prompt=request.user_prompt or load_prompt("style/response_user.v1").text,
            abilities=tuple(sorted(request.abilities)),
            judge_repeats=request.repeats,
        )

    def plan(self, settings: RunSettings, limit: int | None) -> Plan:
        """The style items (``limit`` per set, spread over abilities)."""
        items = load_items(settings, limit)
        return Plan(
            inputs=[InputItem(name, i.id, i.instruction, i.language) for name, i, _ in items],
            replies=[ReplyItem(name, i.id, i.instruction) for name, i, _ in items],
            dataset_files={name: path for name, _, path in items},
            items=items,
            auto_tts=INSTRUCTION_TTS,
        )

    def scorer(self, settings: RunSettings) -> JudgeStage:
        """The judge stage."""
        from voxeval.judge import judge_from_spec

        options = {} if settings.judge_repeats == 1 else {"repeats": settings.judge_repeats}
        return JudgeStage(JudgeWorker(settings.annotator, options, judge_from_spec(settings.annotator, **options)))

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> dict[str, Any]:
        """VStyle-weighted scores per system from ``judgements.jsonl``."""
        return style_summary(run_dir, read_run_log(run_dir / "judgements.jsonl"))

    def table(self, summary: dict[str, Any], run_dir: Path) -> str:
        """Overall score and counts per system."""
        from voxeval.report._speech import LATENCY_TITLE, latency_text
        from voxeval.report._terminal import text_table

        head = ["system", "overall (VStyle-weighted)", "judged ok", "failed", "not measured"]
        rows: list[list[object]] = [
            [name, "—" if b["overall"] is None else f"{b['overall']:.3f}", b["ok"], b["failed"], b["not_measured"]]
            for name, b in summary["systems"].items()
        ]
        latency = latency_text(read_run_log(run_dir / "replies.jsonl"))
        return text_table(head, rows, numeric=(1, 2, 3, 4)) + (f"\n\n{LATENCY_TITLE}\n\n{latency}" if latency else "")

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        """Items, systems and calls."""
        return {
            "items": len(plan.items),
            "systems": list(settings.systems),
            "judge": settings.annotator,
            "calls": len(plan.items) * len(settings.systems),
            "note": "nothing was called",
        }

    def report(self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None) -> dict[str, Path]:
        """The style report (also of a ``voxeval judge`` folder)."""
        from voxeval.report._style_report import build_style_reports

        return build_style_reports(run_dir, human, prices)
