"""``voxeval annotate`` and ``voxeval annotator-check``."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from voxeval.acts import acts_to_json
from voxeval.data import AppendLog, atomic_write_json, parse_id, read_jsonl, resolve_dataset
from voxeval.errors import InputError, Location

ANNOTATOR_HELP = "offline | llm:MODEL_SPEC (e.g. llm:openai:gpt-5-nano, llm:gemini:gemini-2.5-flash) | gold[:DATASET]"


def register(commands: Any) -> None:
    """Add ``annotate`` and ``annotator-check``."""
    a = commands.add_parser(
        "annotate",
        help="label replies in a JSONL file with dialogue acts (writes the PRED format of `voxeval score`)",
        description="Annotate the text in --text-field of each row. Output rows are {id, steps}; a reply that cannot "
        "be annotated is written as {id, status: failed, error, raw}. "
        "Rerunning resumes: ids already in --out are kept.",
    )
    a.add_argument("--annotator", default="offline", help=ANNOTATOR_HELP)
    a.add_argument("--in", dest="inp", required=True, type=Path, help="input JSONL with an id and the reply text")
    a.add_argument("--text-field", default="text", help="dotted path of the reply text, e.g. text or output.text")
    a.add_argument("--out", required=True, type=Path, help="output JSONL ({id, steps})")
    a.set_defaults(handler=_annotate)
    c = commands.add_parser(
        "annotator-check",
        help="measure an annotator against gold dialogue acts (WED, WLCS, label accuracy, macro-F1, confusion; "
        "by style / flaw type when the data has them; garbage replies)",
    )
    c.add_argument("--annotator", default="offline", help=ANNOTATOR_HELP)
    c.add_argument("--dataset", default="ja-assistant", help="built-in name or JSONL file with gold acts")
    c.add_argument("--split", default=None, help="only this split (e.g. test)")
    c.add_argument("--repeats", type=int, default=1, help="annotate k times and report self-consistency")
    c.add_argument(
        "--garbage",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also replay garbage replies (constant, random, shuffled, mojibake, another sample's) on the same "
        "samples; they must score mean WLCS <= 0.05 (default on; --no-garbage skips it, e.g. for paid LLMs)",
    )
    c.add_argument("--out", type=Path, help="also write the report and per-sample rows as JSON here")
    c.set_defaults(handler=_check)


def field_text(row: dict[str, Any], dotted: str, where: Location) -> str:
    """The string at a dotted path of a row."""
    value: Any = row
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise InputError(where.child(dotted), "missing")
        value = value[part]
    if not isinstance(value, str):
        raise InputError(where.child(dotted), f"must be a string, got {type(value).__name__}")
    return value


def _annotate(args: argparse.Namespace) -> int:
    from voxeval.annotate import AnnotationFailed, AnnotationInput, annotator_from_spec

    items = []
    for line, row in read_jsonl(args.inp):
        where = Location(str(args.inp), line)
        user = row.get("input", {}).get("text", "") if isinstance(row.get("input"), dict) else ""
        items.append((parse_id(row, where), AnnotationInput(field_text(row, args.text_field, where), user)))
    annotator = annotator_from_spec(args.annotator)
    with AppendLog(args.out) as log:
        todo = [(i, item) for i, item in items if i not in log.done]

        async def run_all() -> None:
            for sample_id, item in todo:
                if not item.reply.strip():
                    log.append({"id": sample_id, "steps": []})
                    continue
                try:
                    result = await annotator.annotate(item)
                except AnnotationFailed as exc:
                    log.append({"id": sample_id, "status": "failed", "error": str(exc), "raw": exc.raw})
                else:
                    log.append({"id": sample_id, "steps": acts_to_json(result.acts)})

        asyncio.run(run_all())
    print(f"annotated {len(todo)} new row(s) ({len(items) - len(todo)} already in {args.out})")
    return 0


def _check(args: argparse.Namespace) -> int:
    from voxeval.annotate import annotator_from_spec
    from voxeval.annotate._check import check_annotator, garbage_check

    dataset = resolve_dataset(args.dataset).split(args.split)
    annotator = annotator_from_spec(args.annotator)
    result = check_annotator(annotator, dataset.samples, repeats=args.repeats)
    report = {"dataset": dataset.name, **result.report}
    if args.garbage:
        report["garbage"] = garbage_check(annotator, dataset.samples)
    if args.out:
        atomic_write_json(args.out, {**report, "rows": result.rows})
    shown = {k: v for k, v in report.items() if k not in ("failures",)}
    print(json.dumps(shown, ensure_ascii=False, indent=2))
    return 0
