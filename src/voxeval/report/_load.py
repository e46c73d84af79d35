"""Rebuilding a run's scored sets from its directory alone, so any finished or partial run can be reported."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location


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


def load_run(run_dir: Path) -> RunData:
    """Read ``config.json`` and the stage logs of a dialogue-act run and score them (the run is not modified)."""
    from voxeval.run._config import RunSettings
    from voxeval.run._pipeline import load_datasets, scored_sets

    path = run_dir / "config.json"
    if not path.is_file():
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    config = json.loads(path.read_text(encoding="utf-8"))
    raw = dict(config["settings"])
    for key in ("datasets", "systems"):
        raw[key] = tuple(raw[key])
    settings = RunSettings(**raw)
    datasets = load_datasets(settings, config.get("limit"))
    names = list(config.get("components", {}).get("systems", {})) or list(settings.systems)
    sets, replies = scored_sets(run_dir, datasets, names)
    return RunData(run_dir, config, sets, replies)
