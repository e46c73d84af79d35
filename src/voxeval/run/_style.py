"""The style benchmark end to end: instruction audio → spoken replies → judgements → VStyle-weighted scores."""

from __future__ import annotations

import asyncio
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from voxeval.data import AppendLog, atomic_write_json
from voxeval.run._config import RunSettings, write_config
from voxeval.run._inputs import InputItem, input_audio, prepare_inputs
from voxeval.run._progress import StageProgress
from voxeval.run._replies import ReplyItem, generate_replies, reply_key

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


def _no_audio(item: Any, system: str, reply: dict[str, Any], judge: Any) -> Any:
    from voxeval.judge import Judgement

    why = f"reply failed: {reply.get('error')}" if reply.get("status") == "failed" else "no reply audio"
    return Judgement(item.id, item.ability, None, "failed", judge.name, system, reason=why)


async def judge_replies(
    run_dir: Path,
    items: list[tuple[str, Any, Path]],
    system_names: list[str],
    replies: dict[str, dict[str, Any]],
    judge: Any,
    *,
    retry_failed: bool,
    progress: bool,
) -> dict[str, dict[str, Any]]:
    """Judge every reply that has none yet; replies without audio are recorded as failed judgements.

    A judge with ``judge_batch`` (the acoustic judge) gets all of a system's spoken replies at once, so that
    relative measures (volume against the system's other replies) use the whole set; only the judgements not
    yet recorded are appended.
    """
    from dataclasses import replace

    with AppendLog(run_dir / "judgements.jsonl", key="key") as log:
        pending: dict[str, list[tuple[str, str, Any, dict[str, Any]]]] = defaultdict(list)
        spoken: dict[str, list[tuple[str, Any, dict[str, Any]]]] = defaultdict(list)
        for set_name, item, _ in items:
            for system in system_names:
                key = reply_key(set_name, system, item.id)
                reply, previous = replies.get(key), log.rows.get(key)
                if reply is None:
                    continue
                styled = replace(item, model_name=system)
                if reply.get("status") != "failed" and reply.get("audio"):
                    spoken[system].append((key, styled, reply))
                if previous is None or (retry_failed and previous.get("status") == "failed"):
                    pending[system].append((key, set_name, styled, reply))
        total = sum(len(v) for v in pending.values())
        with StageProgress(f"judgements {judge.name}", total, enabled=progress) as bar:

            def record(key: str, set_name: str, system: str, verdict: Any) -> None:
                log.append({"key": key, "dataset": set_name, "system": system, **verdict.to_json()})
                bar.advance(failed=verdict.status == "failed")

            for system, todo in pending.items():
                spoken_keys = {key for key, _, _ in spoken[system]}
                for key, set_name, item, reply in todo:
                    if key not in spoken_keys:
                        record(key, set_name, system, _no_audio(item, system, reply, judge))
                todo_spoken = [t for t in todo if t[0] in spoken_keys]
                if not todo_spoken:
                    continue
                if hasattr(judge, "judge_batch"):
                    batch = [(item, (run_dir / reply["audio"]).read_bytes()) for _, item, reply in spoken[system]]
                    verdicts = dict(zip([k for k, _, _ in spoken[system]], await judge.judge_batch(batch), strict=True))
                    for key, set_name, _, _ in todo_spoken:
                        record(key, set_name, system, verdicts[key])
                    continue
                limit = asyncio.Semaphore(max(1, getattr(judge, "concurrency", 1)))

                async def one(
                    key: str, set_name: str, item: Any, reply: dict[str, Any], system: str = system, limit: Any = limit
                ) -> None:
                    async with limit:
                        verdict = await judge.judge(item, (run_dir / reply["audio"]).read_bytes())
                    record(key, set_name, system, verdict)

                await asyncio.gather(*(one(*t) for t in todo_spoken))
        return dict(log.rows)


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


def run_style(settings: RunSettings, options: Any, argv: list[str] | None = None) -> dict[str, Any]:
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
    inputs = prepare_inputs(
        options.out,
        [InputItem(name, i.id, i.instruction, i.language) for name, i, _ in items],
        settings.tts,
        auto_engines=INSTRUCTION_TTS,
        progress=options.progress,
    )

    async def stages() -> dict[str, dict[str, Any]]:
        replies = await generate_replies(
            options.out,
            [ReplyItem(name, i.id, i.instruction) for name, i, _ in items],
            systems,
            inputs,
            (settings.system_prompt, settings.user_prompt),
            retry_failed=options.retry_failed,
            concurrency=options.concurrency,
            progress=options.progress,
        )
        return await judge_replies(
            options.out,
            items,
            [s.name for s in systems],
            replies,
            judge,
            retry_failed=options.retry_failed,
            progress=options.progress,
        )

    return style_summary(options.out, asyncio.run(stages()))


__all__ = ["INSTRUCTION_TTS", "input_audio", "judge_replies", "load_items", "run_style", "style_summary"]
