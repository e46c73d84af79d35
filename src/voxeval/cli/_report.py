"""``voxeval report`` and ``voxeval compare``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location


def register(commands: Any) -> None:
    """Add ``report`` and ``compare``."""
    r = commands.add_parser(
        "report",
        description="Built only from what RUN_DIR holds. report.html is one self-contained file (figures embedded).",
    )
    r.add_argument("run_dir", type=Path)
    r.add_argument("--human", type=Path, help="style runs: human ratings JSONL (id or instruct_id, rater, mos)")
    r.add_argument(
        "--prices", type=Path, help='JSON {"SYSTEM": {"input_per_million": USD, "output_per_million": USD}} for cost'
    )
    r.set_defaults(handler=_report)
    c = commands.add_parser("compare")
    c.add_argument("run_a", type=Path)
    c.add_argument("run_b", type=Path)
    c.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    c.add_argument(
        "--cross-language",
        action="store_true",
        help="compare runs whose datasets are in different languages (refused by default)",
    )
    c.set_defaults(handler=_compare)


def _report(args: argparse.Namespace) -> int:
    from voxeval.benchmark import build_reports

    for kind, path in build_reports(args.run_dir, args.human, args.prices).items():
        print(f"{kind}: {path}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from voxeval.benchmark._da import load_run
    from voxeval.report._compare import compare_markdown, compare_runs

    try:
        result = compare_runs(load_run(args.run_a), load_run(args.run_b), cross_language=args.cross_language)
    except ValueError as exc:
        raise InputError(Location(f"{args.run_a} / {args.run_b}"), str(exc)) from None
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else compare_markdown(result), end="")
    return 0
