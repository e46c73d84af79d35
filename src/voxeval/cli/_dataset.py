"""``voxeval dataset validate | stats | export``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from voxeval.data import atomic_write_jsonl, builtin_names, builtin_path, load_dialogues, resolve_dataset
from voxeval.data._dialogue_check import dialogue_stats, is_dialogue_file, validate_dialogue_file
from voxeval.data._validate import dataset_stats, validate_file
from voxeval.errors import InputError, Location


def register(commands: Any) -> None:
    """Add the ``dataset`` command group."""
    p = commands.add_parser("dataset")
    sub = p.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)
    v = sub.add_parser(
        "validate",
        help="check a dataset file: schema, labels, weights summing to 1, spans, unique ids",
        description="Validate a JSONL dataset (or a built-in name), single-turn or a dialogue set (rows with turns). "
        "Lists every problem as FILE:LINE, field: message and exits 1 when there is any.",
    )
    v.add_argument("file", help="JSONL file or built-in dataset name")
    v.add_argument("--require-spans", action="store_true", help="every step must carry its span")
    v.set_defaults(handler=_validate)
    s = sub.add_parser(
        "stats",
        help="domains, label counts and sequence lengths of a dataset; for a dialogue set also turns, the "
        "context-needed share and phenomena",
    )
    s.add_argument("dataset", nargs="?", default="ja-assistant", help="built-in name or JSONL file")
    s.add_argument("--split", help="only this split")
    s.set_defaults(handler=_stats)
    e = sub.add_parser(
        "export",
        help="write a dataset as plain JSONL in its schema, or as a Hugging Face dataset folder (single-turn rows or "
        "dialogues)",
        description="--format jsonl (default) writes the rows as they are; --format hf writes a Hugging Face dataset "
        "folder: data/SPLIT-00000-of-00001.parquet per split (the dialogue acts as a nested steps column, a "
        "dialogue's turns as a nested turns column) and a dataset card README.md (schema, licence, provenance); "
        "read it back with --dataset hf:DIR (docs/interop.md). Needs voxeval[hf].",
    )
    e.add_argument("name", help="built-in dataset or JSONL file: " + ", ".join(builtin_names()))
    e.add_argument("--out", required=True, type=Path, help="output JSONL file (jsonl) or new folder (hf)")
    e.add_argument("--format", choices=("jsonl", "hf"), default="jsonl", help="jsonl (default) or hf")
    e.add_argument(
        "--audio",
        action="store_true",
        help="hf, single-turn: add an Audio column with each row's input speech (its own file, else synthesised "
        "with the language's input voice, as a run would)",
    )
    e.add_argument("--limit", type=int, metavar="N", help="only the first N rows (after --split)")
    e.add_argument("--split", help="only this split")
    e.set_defaults(handler=_export)


def _path(spec: str) -> Path:
    """A DATASET argument's file: the file itself, else the built-in dataset of that name."""
    path = Path(spec)
    if path.suffix == ".jsonl" or path.exists():
        return path
    return builtin_path(spec)


def _validate(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.exists() and args.file in builtin_names():
        path = builtin_path(args.file)
    check = validate_dialogue_file if is_dialogue_file(path) else validate_file
    report = check(path, require_spans=args.require_spans)
    for problem in report.errors:
        print(problem)
    if report.ok:
        print(f"OK: {path}: {report.count} valid")
        return 0
    print(f"{len(report.errors)} problem(s) in {path}")
    return 1


def _stats(args: argparse.Namespace) -> int:
    path = _path(args.dataset)
    if is_dialogue_file(path):
        dialogues = [d for d in load_dialogues(path) if args.split in (None, d.split)]
        if not dialogues:
            raise InputError(Location(str(path), field="split"), f"no dialogues in split {args.split!r}")
        stats = dialogue_stats(dialogues)
        print(json.dumps({"dataset": args.dataset, **stats}, ensure_ascii=False, indent=2))
        return 0
    dataset = resolve_dataset(args.dataset).split(args.split)
    print(json.dumps({"dataset": dataset.name, **dataset_stats(list(dataset.samples))}, ensure_ascii=False, indent=2))
    return 0


def _export(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError(Location(field="--limit"), f"must be at least 1, got {args.limit}")
    if args.format == "hf":
        from voxeval.interop import export_hf

        done = export_hf(args.name, args.out, split=args.split, limit=args.limit, audio=args.audio)
        print(f"wrote {done.rows} rows to {args.out} ({len(done.files)} parquet file(s); audio: {done.audio})")
        return 0
    if args.audio:
        raise InputError(Location(field="--audio"), "applies to --format hf")
    path = _path(args.name)
    if is_dialogue_file(path):
        rows = [d.raw for d in load_dialogues(path) if args.split in (None, d.split)][: args.limit]
        atomic_write_jsonl(args.out, rows)
        print(f"wrote {len(rows)} dialogues to {args.out}")
        return 0
    dataset = resolve_dataset(args.name).split(args.split)
    atomic_write_jsonl(args.out, [s.raw for s in dataset.samples[: args.limit]])
    print(f"wrote {len(dataset.samples[: args.limit])} rows to {args.out}")
    return 0
