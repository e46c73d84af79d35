"""Reading a dialogue-act run back: the datasets its ``config.json`` recorded and its replies as scored.

Shared by the benchmark (scoring, the report) and the labelling room (``voxeval label``), so neither reads the
other's modules: ``label/`` depends on ``run/`` and ``io/`` only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from voxeval.data import Dataset
from voxeval.errors import InputError, Location
from voxeval.run._config import RunSettings
from voxeval.run._keys import read_run_log


def cut_dataset(whole: Dataset, settings: RunSettings, limit: int | None) -> Dataset:
    """The run's split of ``whole``, limited to its first ``limit`` samples."""
    dataset = whole.split(settings.split)
    return dataset if limit is None else Dataset(dataset.name, dataset.path, dataset.samples[:limit])


def recorded_datasets(run_dir: Path, config: dict[str, Any], settings: RunSettings) -> list[Dataset]:
    """The datasets a run used, found by the path and sha256 its ``config.json`` recorded (never the working
    directory's file of the same name): see :mod:`voxeval.run._recorded`."""
    from voxeval.data import builtin_path, load_gold
    from voxeval.run._names import split_named
    from voxeval.run._recorded import locate_recorded

    recorded = config.get("datasets")
    if not isinstance(recorded, dict) or len(recorded) != len(settings.datasets):
        where = Location(str(run_dir / "config.json"), field="datasets")
        raise InputError(where, "must record one {path, sha256} per dataset of the settings; not a voxeval config")
    loaded = []
    for spec, (name, entry) in zip(settings.datasets, recorded.items(), strict=True):
        given = split_named(spec)[1]
        builtin = None
        if Path(given).suffix != ".jsonl":
            try:
                builtin = str(builtin_path(given))
            except InputError:
                builtin = None
        path = locate_recorded(run_dir, entry, f"datasets.{name}", also=builtin)
        cut = cut_dataset(Dataset(name, path, tuple(load_gold(path))), settings, config.get("limit"))
        # The recorded name is the run's name after its split ("ja-assistant:test"): keep it, never split it again.
        loaded.append(Dataset(name, cut.path, cut.samples))
    return loaded


def read_replies(run_dir: Path) -> dict[str, dict[str, Any]]:
    """The reply rows of a run joined with their reply ASR, as the run's ``--reply-text`` scores them
    (:func:`voxeval.run._reply_asr.scored_reply`: ``text`` is the annotated channel, ``text_source`` names it)."""
    from voxeval.run._config import read_config, settings_of
    from voxeval.run._reply_asr import LOG, scored_replies

    config = read_config(run_dir)
    if config is None:
        raise InputError(Location(str(run_dir)), "not a run directory (no config.json)")
    mode = settings_of(config, run_dir).reply_text
    heard = read_run_log(run_dir / LOG)
    return scored_replies(read_run_log(run_dir / "replies.jsonl"), heard, "speech" if mode == "speech" else "model")
