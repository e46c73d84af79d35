"""The spine of every run: lock → config → inputs → replies → the benchmark's scoring stage → summary."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from voxeval.run._benchmark import Benchmark, Plan, Scorer
from voxeval.run._config import RunSettings, write_config
from voxeval.run._executor import executor_from_name
from voxeval.run._inputs import make_inputs
from voxeval.run._lock import RunLock
from voxeval.run._names import build_systems
from voxeval.run._outcomes import max_reply_bytes
from voxeval.run._replies import generate_replies
from voxeval.run._reply_asr import ReplyASRWorker, ReplyText, scored_replies, transcribe_replies
from voxeval.run._stage import StageRun
from voxeval.systems import SpokenDialogueSystem


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
    """Where CPU-bound stages run: ``async`` (in-process), ``process`` (a process pool) or ``ray`` (Ray actors)."""
    ray_address: str | None = None
    """With ``executor="ray"``: the cluster to join (``None``: ``$RAY_ADDRESS``, else a local Ray)."""

    def stage_run(self) -> StageRun:
        """The stage runner's options."""
        executor = executor_from_name(self.executor, ray_address=self.ray_address)
        return StageRun(self.retry_failed, self.progress, executor)


T = TypeVar("T")


def build_components(use_cache: bool, build: Callable[[], T]) -> T:
    """Build systems and annotators/judges; with ``use_cache=False`` their models answer without the request cache.

    The process-wide cache setting is restored afterwards, so a library caller's next run is unaffected.
    """
    from voxeval.llm import request_cache_off

    with request_cache_off(not use_cache):
        return build()


def _components(bench: Benchmark, settings: RunSettings, use_cache: bool) -> tuple[list[SpokenDialogueSystem], Scorer]:
    return build_components(use_cache, lambda: (build_systems(settings.systems), bench.scorer(settings)))


def reply_asr_worker(settings: RunSettings) -> ReplyASRWorker | None:
    """The reply ASR stage's worker (its engine built, so a bad ``--reply-asr`` stops the run before it writes);
    ``None`` when the run does not transcribe reply audio."""
    if not settings.reply_asr:
        return None
    from voxeval.speech.asr import asr_from_spec

    return ReplyASRWorker(settings.reply_asr, asr_from_spec(settings.reply_asr))


def run_benchmark(bench: Benchmark, settings: RunSettings, options: RunOptions, argv: list[str] | None = None) -> Any:
    """Run (or resume) ``bench`` in ``options.out``; returns the benchmark's summary."""
    max_reply_bytes()  # a bad $VOXEVAL_MAX_REPLY_BYTES stops the run before it writes anything
    plan = bench.plan(settings, options.limit)
    systems, scorer = _components(bench, settings, options.use_cache)
    asr = reply_asr_worker(settings)
    with RunLock(options.out):
        described = {"systems": {s.name: s.describe() for s in systems}, scorer.role: scorer.describe()}
        if asr is not None:
            described["reply_asr"] = asr.engine.describe()
        write_config(
            options.out,
            settings,
            dataset_files=plan.dataset_files,
            described=described,
            limit=options.limit,
            argv=argv if argv is not None else sys.argv,
        )
        asyncio.run(_stages(plan, settings, options, systems, scorer, asr))
        return bench.summarise(options.out, plan, [s.name for s in systems])


async def _stages(
    plan: Plan,
    settings: RunSettings,
    options: RunOptions,
    systems: list[SpokenDialogueSystem],
    scorer: Scorer,
    asr: ReplyASRWorker | None = None,
) -> None:
    how = options.stage_run()
    out = options.out
    inputs = await make_inputs(out, plan.inputs, settings.tts, auto_engines=dict(plan.auto_tts), how=how)
    prompts = (settings.system_prompt, settings.user_prompt)
    if plan.reply_stage is not None:
        replies = await plan.reply_stage(out, systems, inputs, prompts, how=how, concurrency=options.concurrency)
    else:
        replies = await generate_replies(
            out, plan.replies, systems, inputs, prompts, how=how, concurrency=options.concurrency
        )
    heard: dict[str, Any] = {}
    if asr is not None:
        languages = {(i.dataset, i.id): i.language for i in plan.inputs}
        heard = await transcribe_replies(out, replies, languages, asr, how=how)
    mode: ReplyText = "speech" if settings.reply_text == "speech" else "model"
    await scorer.stage(out, plan, [s.name for s in systems], scored_replies(replies, heard, mode), how)
