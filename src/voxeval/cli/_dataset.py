"""``voxeval dataset validate | stats | export``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from voxeval.data import atomic_write_jsonl, builtin_names, resolve_dataset
from voxeval.data._validate import dataset_stats, validate_file


def register(commands: Any) -> None:
    """Add the ``dataset`` command group."""
    p = commands.add_parser("dataset")
    sub = p.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)
    v = sub.add_parser(
        "validate",
        help="check a dataset file: schema, labels, weights summing to 1, spans, unique ids",
        description="Validate a JSONL dataset (or a built-in name). Lists every problem as FILE:LINE, field: message "
        "and exits 1 when there is any.",
    )
    v.add_argument("file", help="JSONL file or built-in dataset name")
    v.add_argument("--require-spans", action="store_true", help="every step must carry its span")
    v.set_defaults(handler=_validate)
    s = sub.add_parser("stats", help="domains, label counts and sequence lengths of a dataset")
    s.add_argument("dataset", nargs="?", default="ja-assistant", help="built-in name or JSONL file")
    s.add_argument("--split", help="only this split")
    s.set_defaults(handler=_stats)
    e = sub.add_parser("export", help="write a built-in dataset as plain JSONL in the paper's schema")
    e.add_argument("name", help="built-in dataset: " + ", ".join(builtin_names()))
    e.add_argument("--out", required=True, type=Path, help="output JSONL file")
    e.add_argument("--split", help="only this split")
    e.set_defaults(handler=_export)


def _validate(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.exists() and args.file in builtin_names():
        path = resolve_dataset(args.file).path
    report = validate_file(path, require_spans=args.require_spans)
    for problem in report.errors:
        print(problem)
    if report.ok:
        print(f"OK: {path}: {len(report.samples)} samples valid")
        return 0
    print(f"{len(report.errors)} problem(s) in {path}")
    return 1


def _stats(args: argparse.Namespace) -> int:
    dataset = resolve_dataset(args.dataset).split(args.split)
    print(json.dumps({"dataset": dataset.name, **dataset_stats(list(dataset.samples))}, ensure_ascii=False, indent=2))
    return 0


def _export(args: argparse.Namespace) -> int:
    dataset = resolve_dataset(args.name).split(args.split)
    atomic_write_jsonl(args.out, [s.raw for s in dataset.samples])
    print(f"wrote {len(dataset.samples)} rows to {args.out}")
    return 0
