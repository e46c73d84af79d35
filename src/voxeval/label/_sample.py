"""Which replies to label: a uniform random sample per dataset × system, recorded with its seed and population.

``voxeval label RUN --sample N`` draws it once into ``RUN/human/<task>/sample.json``; the prediction-powered scores
(:mod:`voxeval.report._ppi`) use only the drawn replies, so the human labels are a valid random sample. Two designs:

- shared (default): N sample ids per dataset, drawn among the ids any system replied to, labelled for every system,
  so systems' differences pair up; a system's sample is the drawn ids among its own replies.
- per system (``--per-system``): N replies drawn independently for each dataset × system.

Either way a system's sample is a simple random sample of its population (given its size): with the shared design,
a uniform draw of ids restricted to the ids one system replied to is uniform among them.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location
from voxeval.label._items import LabelItem, Task

SAMPLE_FILE = "sample.json"
"""The draw's file name in ``human/<task>/`` (beside the labellers' ``<name>.jsonl``)."""


@dataclass(frozen=True)
class Stratum:
    """One dataset × system: the replies the sample was drawn from and the drawn ones (sample ids)."""

    dataset: str
    """Dataset name."""
    system: str
    """System name."""
    population: tuple[str, ...]
    """Sample ids of the system's replies that could be labelled when the sample was drawn, sorted."""
    sample: tuple[str, ...]
    """The drawn ids (a subset of ``population``), sorted."""


@dataclass(frozen=True)
class Draw:
    """A recorded random sample of a run's replies."""

    task: Task
    """The labelling task (``da`` or ``style``)."""
    size: int
    """N asked for: ids per dataset (shared) or replies per dataset × system (per system)."""
    per_system: bool
    """Drawn independently per system (True) or shared ids per dataset (False)."""
    seed: int
    """Seed of the draw (``random.Random(seed)``)."""
    strata: tuple[Stratum, ...]
    """One per dataset × system with replies to label."""

    def stratum(self, dataset: str, system: str) -> Stratum | None:
        """The stratum of one dataset × system, if the draw has it."""
        return next((s for s in self.strata if s.dataset == dataset and s.system == system), None)

    def to_json(self) -> dict[str, Any]:
        """The record written to ``sample.json`` (with the time it was drawn added by the writer)."""
        strata = [
            {"dataset": s.dataset, "system": s.system, "population": list(s.population), "sample": list(s.sample)}
            for s in self.strata
        ]
        return {
            "task": self.task,
            "size": self.size,
            "per_system": self.per_system,
            "seed": self.seed,
            "strata": strata,
        }


def draw_sample(items: Sequence[LabelItem], task: Task, size: int, *, per_system: bool, seed: int) -> Draw:
    """Draw the sample from a run's label items (pure: the same items and seed give the same draw).

    Within each dataset (shared) or dataset × system (per system), the sorted ids are sampled with
    ``random.Random(f"{seed}:{dataset}[:{system}]").sample``; N larger than the population takes it all.
    """
    if isinstance(size, bool) or size < 1:
        raise InputError(Location("--sample"), f"must be a positive number of replies, got {size!r}")
    population: dict[tuple[str, str], set[str]] = defaultdict(set)
    for item in items:
        population[(item.dataset, item.system)].add(item.id)
    shared: dict[str, set[str]] = {}
    if not per_system:
        ids_of: dict[str, set[str]] = defaultdict(set)
        for (dataset, _), ids in population.items():
            ids_of[dataset] |= ids
        shared = {d: _pick(ids, size, f"{seed}:{d}") for d, ids in ids_of.items()}
    strata = []
    for (dataset, system), ids in sorted(population.items()):
        drawn = _pick(ids, size, f"{seed}:{dataset}:{system}") if per_system else shared[dataset] & ids
        strata.append(Stratum(dataset, system, tuple(sorted(ids)), tuple(sorted(drawn))))
    return Draw(task, size, per_system, seed, tuple(strata))


def _pick(ids: set[str], size: int, seed: str) -> set[str]:
    ordered = sorted(ids)
    return set(random.Random(seed).sample(ordered, min(size, len(ordered))))


def sample_path(root: Path, task: Task) -> Path:
    """Where a run's draw for ``task`` is recorded."""
    return root / "human" / task / SAMPLE_FILE


def _ids(raw: Any, where: Location) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw) or len(set(raw)) != len(raw):
        raise InputError(where, "must be a list of distinct sample ids (strings)")
    return tuple(raw)


def _stratum(raw: Any, where: Location) -> Stratum:
    if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) for k in ("dataset", "system")):
        raise InputError(where, "must be an object with dataset and system names")
    population = _ids(raw.get("population"), where.child("population"))
    sample = _ids(raw.get("sample"), where.child("sample"))
    outside = sorted(set(sample) - set(population))
    if outside:
        raise InputError(where.child("sample"), f"{outside[0]!r} is not in the population it was drawn from")
    return Stratum(raw["dataset"], raw["system"], population, sample)


def read_draw(root: Path, task: Task) -> Draw | None:
    """The run's recorded draw for ``task``, checked; ``None`` when none was drawn."""
    import json

    path = sample_path(root, task)
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(Location(str(path)), f"cannot read the recorded sample: {exc}") from None
    where = Location(str(path))
    if not isinstance(raw, dict) or raw.get("task") != task:
        raise InputError(where.child("task"), f"must be {task!r}: not this task's sample")
    for key in ("size", "seed"):
        if isinstance(raw.get(key), bool) or not isinstance(raw.get(key), int) or raw[key] < 0:
            raise InputError(where.child(key), f"must be a non-negative integer, got {raw.get(key)!r}")
    if not isinstance(raw.get("per_system"), bool) or not isinstance(raw.get("strata"), list):
        raise InputError(where.child("strata"), "must record per_system (true/false) and a list of strata")
    strata = tuple(_stratum(s, where.child(f"strata[{i}]")) for i, s in enumerate(raw["strata"]))
    return Draw(task, raw["size"], raw["per_system"], raw["seed"], strata)


def record_draw(root: Path, draw: Draw) -> tuple[Draw, bool]:
    """Write ``draw`` unless the run already records one: then the recorded draw is returned if it is the same,
    and a different one is refused (labels may refer to it). Returns the draw in force and whether it is new."""
    from voxeval.data import atomic_write_json

    path = sample_path(root, draw.task)
    recorded = read_draw(root, draw.task)
    if recorded is not None:
        if recorded == draw:  # the time of drawing aside
            return recorded, False
        raise InputError(
            Location(str(path)),
            f"this run already records a different sample (N={recorded.size}, "
            f"{'per system' if recorded.per_system else 'shared ids'}, seed {recorded.seed}, "
            f"{sum(len(s.population) for s in recorded.strata)} replies): keep labelling it (leave out --sample), "
            "or move the file away to draw again (labels already made on it then no longer form the sample)",
        )
    at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    atomic_write_json(path, {**draw.to_json(), "drawn_at": at})
    return draw, True


def drawn_keys(draw: Draw | None, items: Sequence[LabelItem]) -> frozenset[str]:
    """The keys of the items a draw picked (served first by the label server)."""
    if draw is None:
        return frozenset()
    picked = {(s.dataset, s.system, i) for s in draw.strata for i in s.sample}
    return frozenset(i.key for i in items if (i.dataset, i.system, i.id) in picked)
