"""``voxeval export-results`` and ``voxeval leaderboard``: a run's results in shared formats, and runs side by side."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError


def register(commands: Any) -> None:
    """Add ``export-results`` and ``leaderboard``."""
    e = commands.add_parser(
        "export-results",
        description="Write a run's scores for others to read (docs/interop.md): eval-results = the Hugging Face "
        "Hub's OUT/SYSTEM/.eval_results/TASK.yaml, one per dataset and metric (copy a system's .eval_results folder "
        "into its model repository); eee = an Every Eval Ever record (schema 0.2.0) per system, OUT/SYSTEM/UUID.json; "
        "json = OUT/results.json, every score with its interval, latency, tokens, annotator and fingerprint.",
    )
    e.add_argument(
        "run", type=Path, metavar="RUN", help="run directory (voxeval run --benchmark da, style, dialogues or duplex)"
    )
    e.add_argument("--format", required=True, choices=("eval-results", "eee", "json"), help="what to write")
    e.add_argument("--out", required=True, type=Path, help="output folder (created)")
    e.add_argument(
        "--dataset-id",
        action="append",
        default=[],
        metavar="NAME=HUB_ID",
        help="eval-results: the Hub dataset of a voxeval dataset (repeatable; default voxeval/NAME)",
    )
    e.add_argument("--model-id", action="append", default=[], metavar="SYSTEM=ID", help="eee: the model id of a system")
    e.add_argument("--source-url", help="eval-results: where the run's files are published (default: file:// URL)")
    e.add_argument("--organisation", default="unspecified", help="eee: source_organization_name")
    e.set_defaults(handler=export_results)
    lb = commands.add_parser(
        "leaderboard",
        description="Rank the systems of several runs of the same benchmark (da, style or dialogues: each system "
        "under each history condition) on the same dataset files, split and limit, with the same prompts, annotator "
        "or judge and history conditions (else refused, saying what differs, unless --allow-mixed). Writes "
        "OUT/index.html and OUT/leaderboard.json: scores with 95% intervals, latency, tokens and cost, the annotator "
        "or judge and its measured validity, the config fingerprint and the command that reproduces each run.",
    )
    lb.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run directories")
    lb.add_argument("--out", required=True, type=Path, help="output folder (created)")
    lb.add_argument("--allow-mixed", action="store_true", help="rank runs that differ; the page lists the differences")
    lb.add_argument("--prices", type=Path, help="JSON prices per system, as for voxeval report, for the cost column")
    lb.add_argument("--title", default="voxeval leaderboard", help="page title")
    lb.set_defaults(handler=leaderboard)


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, sep, target = value.partition("=")
        if not sep or not key or not target:
            raise ConfigError(f"{option} takes NAME=VALUE, got {value!r}")
        out[key] = target
    return out


def export_results(args: argparse.Namespace) -> int:
    """Handle ``voxeval export-results``."""
    from voxeval.interop._formats import eee_file, eee_record, eval_results_files
    from voxeval.interop._results import run_results
    from voxeval.io import atomic_write_text

    results = run_results(args.run)
    files: dict[str, str] = {}
    if args.format == "eval-results":
        url = args.source_url or args.run.resolve().as_uri()
        files = eval_results_files(results, _pairs(args.dataset_id, "--dataset-id"), url)
    elif args.format == "eee":
        ids, now = _pairs(args.model_id, "--model-id"), int(time.time())
        for system in dict.fromkeys(s.system for s in results.scores):
            record = eee_record(results, system, ids, args.organisation, now)
            files[eee_file(results, system)] = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
    else:
        files["results.json"] = json.dumps(results.to_json(), ensure_ascii=False, indent=2) + "\n"
    if not files:
        raise ConfigError(f"{args.run} has no scored results yet; finish the run first")
    for name, text in files.items():
        atomic_write_text(args.out / name, text)
    unscored = sum(1 for s in results.scores if s.value is None)
    note = f" ({unscored} score(s) with nothing scored left out)" if unscored and args.format != "json" else ""
    print(f"wrote {len(files)} file(s) to {args.out}{note}")
    return 0


def leaderboard(args: argparse.Namespace) -> int:
    """Handle ``voxeval leaderboard``."""
    from voxeval.interop._leaderboard import rank
    from voxeval.interop._page import leaderboard_html
    from voxeval.interop._results import run_results
    from voxeval.io import atomic_write_text
    from voxeval.report._usage import read_prices

    runs = [run_results(r) for r in args.runs]
    board = rank(runs, allow_mixed=args.allow_mixed, prices=read_prices(args.prices))
    atomic_write_text(args.out / "leaderboard.json", json.dumps(board, ensure_ascii=False, indent=2) + "\n")
    atomic_write_text(args.out / "index.html", leaderboard_html(board, args.title))
    print(f"ranked {len(board['rows'])} row(s) of {len(runs)} run(s): {args.out / 'index.html'}")
    return 0
