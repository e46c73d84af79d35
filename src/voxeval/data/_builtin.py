"""Built-in datasets shipped with voxeval, and resolving a DATASET argument (name or file)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from voxeval.data._load import load_gold
from voxeval.data._schema import GoldSample
from voxeval.errors import InputError, Location

_PACKAGE = "voxeval.data.builtin"


def builtin_names() -> list[str]:
    """Names of the built-in datasets (file stems under ``voxeval/data/builtin``)."""
    root = resources.files(_PACKAGE)
    return sorted(p.name[: -len(".jsonl")] for p in root.iterdir() if p.name.endswith(".jsonl"))


def builtin_path(name: str) -> Path:
    """The JSONL file of a built-in dataset."""
    path = Path(str(resources.files(_PACKAGE).joinpath(f"{name}.jsonl")))
    if not path.is_file():
        raise InputError(
            Location(field="dataset"), f"no built-in dataset {name!r}; built-in: {', '.join(builtin_names())}"
        )
    return path


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: its name, the file it came from (audio paths are relative to its folder) and samples."""

    name: str
    """Built-in name or the file's stem."""
    path: Path
    """The JSONL file."""
    samples: tuple[GoldSample, ...]
    """Rows in file order."""

    @property
    def language(self) -> str:
        """The language of the dataset: the ISO 639-1 code its rows' ``input.locale`` share (``ja``, ``en``,
        ``zh``); a file mixing languages gives them joined by ``+`` (``dataset validate`` rejects such a file)."""
        return dataset_language(self.samples)

    @property
    def root(self) -> Path:
        """Folder that relative audio paths in the rows are resolved against."""
        return self.path.parent

    def split(self, name: str | None) -> Dataset:
        """Only the samples of one split (``dev`` / ``test``), or all when ``name`` is None."""
        if name is None:
            return self
        picked = tuple(s for s in self.samples if s.split == name)
        if not picked:
            raise InputError(Location(str(self.path), field="split"), f"no samples in split {name!r}")
        return Dataset(f"{self.name}:{name}", self.path, picked)

    def sampled(self, n: int, seed: int = 0) -> Dataset:
        """``n`` samples drawn without replacement by a seeded generator (the same ``n`` and ``seed`` give the same
        samples on any machine), kept in file order: a cheaper check of a slow or paid annotator."""
        if not 1 <= n <= len(self.samples):
            raise InputError(
                Location(str(self.path), field="sample"), f"must be between 1 and {len(self.samples)}, got {n}"
            )
        keep = set(random.Random(seed).sample(range(len(self.samples)), n))
        picked = tuple(s for k, s in enumerate(self.samples) if k in keep)
        return Dataset(f"{self.name}:sample-{n}-seed-{seed}", self.path, picked)


def dataset_language(samples: Iterable[GoldSample]) -> str:
    """The language code the samples share, or the codes joined by ``+`` when they mix (``-`` when empty)."""
    found = sorted({s.language for s in samples})
    return "+".join(found) if found else "-"


def resolve_dataset(spec: str | Path) -> Dataset:
    """Load ``spec``: a built-in dataset name (e.g. ``ja-assistant``), a JSONL file in the paper's schema, or a
    Hugging Face dataset folder (``hf:DIR[?input=COLUMN&…]`` or a folder; :mod:`voxeval.interop`)."""
    if str(spec).startswith("hf:") or Path(spec).is_dir():
        from voxeval.interop._datasets import hf_gold_file

        path = hf_gold_file(str(spec))
        return Dataset(path.stem, path, tuple(load_gold(path)))
    path = Path(spec)
    if path.suffix == ".jsonl" or path.exists():
        return Dataset(path.stem, path, tuple(load_gold(path)))
    return Dataset(str(spec), builtin_path(str(spec)), tuple(load_gold(builtin_path(str(spec)))))
