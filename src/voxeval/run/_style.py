"""The style benchmark end to end: instruction audio → spoken replies → judgements → VStyle-weighted scores."""

from __future__ import annotations

import asyncio
import sys
from collections import defaultdict
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from voxeval.io import atomic_write_json
from voxeval.run._config import RunSettings, write_config
from voxeval.run._inputs import InputItem, input_audio, prepare_inputs
from voxeval.run._judgements import JudgeEntry, JudgeWorker, judge_entries
from voxeval.run._replies import ReplyItem, generate_replies, reply_key
from voxeval.run._stage import StageRun

INSTRUCTION_TTS = {"ja": "pyopenjtalk", "en": "espeak-ng:en-us", "zh": "espeak-ng:cmn-latn-pinyin"}
"""Engines that speak the instructions when ``--tts auto`` (the default for the style benchmark)."""


def load_items(settings: RunSettings, limit: int | None) -> list[tuple[str, Any, Path]]:
    """(set name, item, set file) of every style item; ``limit`` takes N per set, spread over abilities."""
    from voxeval.judge._sets import load_style_set

    abilities = settings.extra.get("abilities")
    picked = []
    for spec in settings.datasets:
        style_set = load_style_set(spec)
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


def judge_replies(
    run_dir: Path,
    items: list[tuple[str, Any, Path]],
    system_names: list[str],
    replies: dict[str, dict[str, Any]],
    worker: JudgeWorker,
    *,
    how: StageRun,
) -> Awaitable[dict[str, dict[str, Any]]]:
    """Judge every reply that has none yet; replies without audio are recorded as failed judgements."""
    from dataclasses import replace

    entries = []
    for set_name, item, _ in items:
        for system in system_names:
            key = reply_key(set_name, system, item.id)
            reply = replies.get(key)
            if reply is None:
                continue
            failed = reply.get("status") == "failed"
            audio = run_dir / reply["audio"] if not failed and reply.get("audio") else None
            why = f"reply failed: {reply.get('error')}" if failed else "no reply audio"
            fields = {"key": key, "dataset": set_name, "system": system}
            entries.append(JudgeEntry(key, replace(item, model_name=system), audio, fields, why))
    return judge_entries(run_dir / "judgements.jsonl", entries, worker, how=how)


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


def _run_style(settings: RunSettings, options: Any, argv: list[str] | None = None) -> dict[str, Any]:
    """Run (or resume) the style benchmark in ``options.out``."""
    from voxeval.judge import judge_from_spec
    from voxeval.run._pipeline import build_components
    from voxeval.systems import system_from_spec

    items = load_items(settings, options.limit)
    systems, judge = build_components(
        options.use_cache,
        lambda: (
            [system_from_spec(spec) for spec in settings.systems],
            judge_from_spec(settings.annotator, **settings.extra.get("judge_options", {})),
        ),
    )
    options.out.mkdir(parents=True, exist_ok=True)
    write_config(
        options.out,
        settings,
        dataset_files={name: path for name, _, path in items},
        described={"systems": {s.name: s.describe() for s in systems}, "judge": judge.describe()},
        limit=options.limit,
        argv=argv if argv is not None else sys.argv,
    )
    how = options.stage_run()
    inputs = prepare_inputs(
        options.out,
        [InputItem(name, i.id, i.instruction, i.language) for name, i, _ in items],
        settings.tts,
        auto_engines=INSTRUCTION_TTS,
        how=how,
    )

    async def stages() -> dict[str, dict[str, Any]]:
        replies = await generate_replies(
            options.out,
            [ReplyItem(name, i.id, i.instruction) for name, i, _ in items],
            systems,
            inputs,
            (settings.system_prompt, settings.user_prompt),
            how=how,
            concurrency=options.concurrency,
        )
        worker = JudgeWorker(settings.annotator, settings.extra.get("judge_options", {}), judge)
        return await judge_replies(options.out, items, [s.name for s in systems], replies, worker, how=how)

    return style_summary(options.out, asyncio.run(stages()))


def run_style(settings: RunSettings, options: Any, argv: list[str] | None = None) -> dict[str, Any]:
    """Run (or resume) the style benchmark in ``options.out``, holding the run directory's lock."""
    from voxeval.run._lock import RunLock

    with RunLock(options.out):
        return _run_style(settings, options, argv)


__all__ = ["INSTRUCTION_TTS", "input_audio", "judge_replies", "load_items", "run_style", "style_summary"]
