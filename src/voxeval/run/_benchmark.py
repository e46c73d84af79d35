"""The benchmark extension point: what the runner needs from a benchmark (its items, scoring stage, summary, report).

A run is always the same spine (:func:`voxeval.run.run_benchmark`): input audio → replies → the benchmark's
scoring stage (annotate or judge) → its summary → its report. A benchmark supplies only what differs. Built-in
benchmarks (``da``, ``style``) live in :mod:`voxeval.benchmark` and register there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from voxeval.run._config import RunSettings
from voxeval.run._executor import Row
from voxeval.run._inputs import InputItem
from voxeval.run._replies import ReplyItem
from voxeval.run._stage import StageRun
from voxeval.systems import SpokenDialogueSystem


@dataclass(frozen=True)
class RunRequest:
    """What the user asked for on the command line, before a benchmark turns it into :class:`RunSettings`."""

    systems: tuple[str, ...]
    """System specs."""
    datasets: tuple[str, ...] = ()
    """Dataset names or files (empty: the benchmark's default)."""
    annotator: str = "offline"
    """Annotator spec (benchmarks scored by annotation)."""
    judge: str = "acoustic"
    """Judge spec (benchmarks scored by a judge)."""
    abilities: tuple[str, ...] = ()
    """Only these abilities (style)."""
    repeats: int = 1
    """Judgements per response."""
    tts: str | None = None
    """TTS engine for inputs without audio (``None``: the benchmark's default)."""
    split: str | None = None
    """Only this split of each dataset."""
    system_prompt: str | None = None
    """Replacement system prompt (``None``: the benchmark's)."""
    user_prompt: str | None = None
    """Replacement user prompt (``None``: the benchmark's)."""
    reply_text: str | None = None
    """``speech`` or ``model``: which reply channel is annotated (``None``: the benchmark's default)."""
    reply_asr: str | None = None
    """ASR engine spec for reply audio, or ``none`` (``None``: the benchmark's default)."""
    reference_aware: bool = True
    """Give the annotator each sample's reference reply as context (benchmarks scored by annotation)."""
    history: tuple[str, ...] = ()
    """History conditions of a dialogue benchmark (``gold``, ``own``, ``none``; empty: the benchmark's default)."""
    scenarios: tuple[str, ...] = ()
    """Scenarios of a duplex run (``end_of_turn``, ``pause``, ``interruption``, ``backchannel``; empty: all)."""
    pace: str | None = None
    """How a duplex run streams user audio (``realtime``; ``None``: the benchmark's default)."""
    turn_detection: tuple[str, ...] = ()
    """``KEY=VALUE`` turn-detection options of a duplex run's sessions."""


@dataclass(frozen=True)
class Plan:
    """What one run evaluates."""

    inputs: list[InputItem]
    """Samples that need input audio."""
    replies: list[ReplyItem]
    """Inputs every system must answer."""
    dataset_files: dict[str, Path]
    """Dataset name → file (hashed into ``config.json``)."""
    items: Any = None
    """The benchmark's own items (datasets, style items), handed back to its scoring stage and summary."""
    auto_tts: Mapping[str, str] = field(default_factory=dict)
    """Engine per language when ``--tts auto`` (else the TTS package's default for the language)."""
    reply_stage: ReplyStage | None = None
    """The benchmark's own reply stage (a dialogue benchmark's sessions); ``None``: one reply per item."""


class ReplyStage(Protocol):
    """Collects every missing reply of a run (the default is :func:`voxeval.run._replies.generate_replies`)."""

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
        """Rows of ``replies.jsonl`` by key, every system's."""
        ...


class Scorer(Protocol):
    """A benchmark's scoring stage of a run: annotate the replies, or judge them."""

    role: str
    """Its name in ``config.json`` components (``annotator`` or ``judge``)."""

    def describe(self) -> dict[str, Any]:
        """Settings, models and versions for ``config.json``."""
        ...

    async def stage(
        self, run_dir: Path, plan: Plan, systems: list[str], replies: dict[str, Row], how: StageRun
    ) -> dict[str, Row]:
        """Score every reply not yet scored (through the stage runner); returns the stage log's rows."""
        ...


class Benchmark(Protocol):
    """One benchmark: its settings, items, scoring stage, summary and report."""

    name: str
    """``--benchmark`` value, recorded in ``config.json``."""

    def settings(self, request: RunRequest) -> RunSettings:
        """The run's result-determining settings (defaults filled in)."""
        ...

    def plan(self, settings: RunSettings, limit: int | None) -> Plan:
        """Load and check the items (before the run writes anything)."""
        ...

    def scorer(self, settings: RunSettings) -> Scorer:
        """Build the scoring stage (its models load here)."""
        ...

    def summarise(self, run_dir: Path, plan: Plan, systems: list[str]) -> Any:
        """Score what the run directory holds and write the per-sample scores and ``summary.json``."""
        ...

    def table(self, summary: Any, run_dir: Path) -> str:
        """The summary as a Markdown table for the terminal."""
        ...

    def dry_run(self, settings: RunSettings, plan: Plan, run_dir: Path) -> dict[str, Any]:
        """What a run would do, calling nothing."""
        ...

    def report(self, run_dir: Path, human: Path | None, prices: dict[str, Any] | None) -> dict[str, Path]:
        """Write the report files of a run directory, from its files only."""
        ...
