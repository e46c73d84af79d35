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
    """Read ``config.json`` and the stage logs of a dialogue-act run and score them."""
    from voxeval.data import AppendLog
    from voxeval.run._config import RunSettings
    from voxeval.run._pipeline import load_datasets, predictions_for
    from voxeval.run._scoring import score_predictions

    path = run_dir / "config.json"
    if not path.is_file():
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    config = json.loads(path.read_text(encoding="utf-8"))
    raw = dict(config["settings"])
    for key in ("datasets", "systems"):
        raw[key] = tuple(raw[key])
    settings = RunSettings(**raw)
    datasets = load_datasets(settings, config.get("limit"))
    replies = AppendLog(run_dir / "replies.jsonl", key="key")
    annotations = AppendLog(run_dir / "annotations.jsonl", key="key")
    replies.close()
    annotations.close()
    names = list(config.get("components", {}).get("systems", {})) or list(settings.systems)
    sets = [
        score_predictions(
            list(d.samples),
            predictions_for(d, s, replies.rows, annotations.rows),
            dataset=d.name,
            system=s,
            ignore_extra=True,
        )
        for d in datasets
        for s in names
    ]
    return RunData(run_dir, config, sets, replies.rows)
