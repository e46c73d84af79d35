"""What a dialogue-act report is built from (read from a run directory by the benchmark, :mod:`voxeval.benchmark`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RunData:
    """What a report is built from."""

    run_dir: Path
    """The run directory."""
    config: dict[str, Any]
    """``config.json``."""
    sets: list[Any]
    """One :class:`~voxeval.run.ScoredSet` per dataset × system."""
    replies: dict[str, dict[str, Any]]
    """``replies.jsonl`` rows by key."""
    languages: dict[str, str] = field(default_factory=dict)
    """Language code (``ja``, ``en``, ``zh``) of each dataset by name, from its rows' ``input.locale``."""
    human: dict[tuple[str, str, str], Any] = field(default_factory=dict)
    """(dataset, system, labeller) → the labeller's dialogue-act labels scored as the annotator's are (a
    :class:`~voxeval.run.ScoredSet`), for the prediction-powered scores; empty without labels."""
