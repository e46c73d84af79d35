"""Writing a voxeval dataset as a Hugging Face dataset folder: records, input audio and the dataset card."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voxeval import __version__
from voxeval.data import Dataset, builtin_names, builtin_path, load_dialogues, resolve_dataset, resolve_inside
from voxeval.errors import ConfigError, Location
from voxeval.interop._columns import DIALOGUE_COLUMNS, GOLD_COLUMNS
from voxeval.interop._datasets import dialogue_records, gold_records
from voxeval.interop._hf import split_files, write_hf_folder
from voxeval.paths import sha256_file

COLUMN_DOCS = {
    "id": "stable sample id",
    "split": "dev / test (the split's parquet file too)",
    "domain": "topic domain (timer, weather, …)",
    "background": "scenario_context.background: the situation of the exchange",
    "input_text": "what the user says (input.text)",
    "locale": "input.locale, e.g. ja-JP",
    "output_text": "the optimal assistant reply (output.text)",
    "steps": "the reply's dialogue acts: list of {act, importance, rationale, span}",
    "turns": "list of {role, text, context, phenomena, steps, extra}: user and assistant turns in order",
    "extra": "JSON text of the row's other keys, so a read-back row is exactly the exported one",
    "audio": "Audio: the user's input speech (WAV bytes), when exported with --audio",
}
"""One line per column, for the card's schema table."""


@dataclass(frozen=True)
class Exported:
    """What ``export_hf`` wrote."""

    rows: int
    """Rows written."""
    files: tuple[Path, ...]
    """The parquet files."""
    audio: str
    """How the audio column was made (``none``, or the engine)."""


def _source(spec: str) -> tuple[Path, str]:
    path = Path(spec)
    if path.suffix == ".jsonl" or path.exists():
        return path, "other"
    if spec not in builtin_names():
        builtin_path(spec)  # raises the list of built-in names
    return builtin_path(spec), "apache-2.0"


def _audio_cells(dataset: Dataset) -> tuple[list[dict[str, Any]], str]:
    """The input audio of every sample: its own file, else synthesised with the language's input voice (the
    engine a run of this language uses), through ``voxeval synth``'s renderer."""
    from voxeval.languages import LANGUAGES
    from voxeval.speech._synthesize import synthesize_dataset

    missing = [s for s in dataset.samples if s.audio is None]
    if not missing:
        return _cells(dataset, {}), "the dataset's own files"
    voice = LANGUAGES[dataset.language].tts if dataset.language in LANGUAGES else None
    if not voice:
        raise ConfigError(f"no input voice for language {dataset.language!r}; synthesise with `voxeval synth` first")
    with tempfile.TemporaryDirectory(prefix="voxeval-export-") as tmp:
        subset = Dataset(dataset.name, dataset.path, tuple(missing))
        report = synthesize_dataset(subset, voice, tmp, workers=1 if len(missing) < 32 else None)
        rendered = {}
        for line in report.dataset_path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rendered[str(row["id"])] = Path(tmp) / row["input"]["audio"]
        return _cells(dataset, rendered), voice


def _cells(dataset: Dataset, rendered: dict[str, Path]) -> list[dict[str, Any]]:
    cells = []
    for s in dataset.samples:
        where = Location(str(dataset.path), s.line, "input.audio")
        path = rendered[s.id] if s.audio is None else resolve_inside(dataset.root, s.audio, where)
        cells.append({"bytes": path.read_bytes(), "path": f"{s.id}{path.suffix}"})
    return cells


def export_hf(spec: str, out: Path, *, split: str | None, limit: int | None, audio: bool) -> Exported:
    """Write dataset ``spec`` (built-in name or JSONL file, single-turn or dialogues) to the folder ``out``."""
    from voxeval.data._dialogue_check import is_dialogue_file

    path, licence = _source(spec)
    name = spec if licence != "other" else path.stem
    how = "none"
    if is_dialogue_file(path):
        if audio:
            raise ConfigError("--audio applies to single-turn datasets; a dialogue run synthesises each user turn")
        kind = "dialogue"
        dialogues = [d for d in load_dialogues(path) if split in (None, d.split)][:limit]
        if not dialogues:
            raise ConfigError(f"no dialogues in {path} for split {split!r}")
        records, languages = dialogue_records([d.raw for d in dialogues]), {d.language for d in dialogues}
    else:
        kind = "gold"
        dataset = resolve_dataset(spec).split(split)
        dataset = Dataset(dataset.name, dataset.path, dataset.samples[:limit])
        records, languages = gold_records([dict(s.raw) for s in dataset.samples]), {s.language for s in dataset.samples}
        if audio:
            cells, how = _audio_cells(dataset)
            records = [{**r, "audio": c} for r, c in zip(records, cells, strict=True)]
    card = dataset_card(name, path, records, kind, licence, sorted(languages), how)
    files = write_hf_folder(out, records, kind, card, audio)
    return Exported(len(records), tuple(files), how)


def _yaml_list(items: list[str], indent: str = "") -> str:
    return "".join(f"{indent}- {json.dumps(x, ensure_ascii=False)}\n" for x in items)


def dataset_card(
    name: str, path: Path, records: list[dict[str, Any]], kind: str, licence: str, languages: list[str], audio: str
) -> str:
    """The ``README.md`` of an exported folder: YAML header (licence, languages, splits) and the schema."""
    splits = split_files(records)
    configs = "".join(f"  - split: {json.dumps(s)}\n    path: {json.dumps(f'data/{s}-*')}\n" for s in splits)
    columns = [*(GOLD_COLUMNS if kind == "gold" else DIALOGUE_COLUMNS), *(["audio"] if audio != "none" else [])]
    table = "".join(f"| `{c}` | {COLUMN_DOCS[c]} |\n" for c in columns)
    counts = ", ".join(f"{s}: {len(r)}" for s, r in splits.items())
    what = "single-turn samples" if kind == "gold" else "multi-turn dialogues"
    return (
        f"---\nlicense: {licence}\nlanguage:\n{_yaml_list(languages)}pretty_name: {json.dumps(f'voxeval {name}')}\n"
        f"tags:\n{_yaml_list(['voxeval', 'spoken-dialogue', 'dialogue-acts'])}"
        f"configs:\n- config_name: default\n  data_files:\n{configs}---\n\n"
        f"# {name}\n\n{len(records)} {what} ({counts}) with their reference replies' dialogue acts, for evaluating "
        "spoken dialogue models with voxeval.\n\n"
        "## Provenance\n\n"
        f"- exported by voxeval {__version__} from `{path.name}` (sha256 `{sha256_file(path)}`)\n"
        f"- input audio: {'none (a run synthesises it)' if audio == 'none' else f'synthesised with {audio}'}\n"
        f"- licence: {licence}"
        + (
            " (voxeval's licence; the built-in sets were written for voxeval)"
            if licence == "apache-2.0"
            else " (the licence of the source file; set it before sharing)"
        )
        + "\n\n## Schema\n\n| column | meaning |\n|---|---|\n"
        + table
        + "\n## Reading it\n\n"
        "`voxeval run --dataset hf:DIR …` runs it; `datasets.load_dataset(DIR)` loads it. A row as voxeval reads it "
        "is rebuilt exactly from these columns (docs/interop.md).\n"
    )
