"""``voxeval annotate`` and ``voxeval annotator-check``."""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voxeval.annotate import AnnotationInput
from voxeval.data import parse_id, resolve_dataset
from voxeval.errors import InputError, Location
from voxeval.io import atomic_write_json, read_jsonl, read_log
from voxeval.run._annotations import AnnotateWorker

ANNOTATOR_HELP = (
    "offline[:VERSION] (the artefact of the data's language: offline-v3 ja, offline-en-v1 en, offline-zh-v1 zh) | "
    "llm:MODEL_SPEC (e.g. llm:openai:gpt-5.4-mini, llm:gemini:gemini-3.8-flash) | gold[:DATASET]"
)


def register(commands: Any) -> None:
    """Add ``annotate`` and ``annotator-check``."""
    a = commands.add_parser(
        "annotate",
        description="Annotate the text in --text-field of each row. Output rows are {id, steps}; a reply that cannot "
        "be annotated is written as {id, status: failed, error, raw}. A reply that only repeats the row's input.text "
        "(an echo) gets no acts without calling the annotator. The llm annotator uses the prompt of each row's "
        "language (input.locale: ja, en or zh; ja when absent); the offline annotator uses the artefact of the rows' "
        "language, which they must share. Rerunning resumes: ids already in --out are kept.",
    )
    a.add_argument("--annotator", default="offline", help=ANNOTATOR_HELP)
    a.add_argument("--in", dest="inp", required=True, type=Path, help="input JSONL with an id and the reply text")
    a.add_argument("--text-field", default="text", help="dotted path of the reply text, e.g. text or output.text")
    a.add_argument("--out", required=True, type=Path, help="output JSONL ({id, steps})")
    a.set_defaults(handler=_annotate)
    c = commands.add_parser(
        "annotator-check",
        description="Annotate gold replies and compare with their gold acts: per reply (WED, WLCS, labels, by style "
        "and flaw) and at the system level (system_level: per style and flaw, the benchmark score against each "
        "reply's reference with the annotator minus with gold labels, with a bootstrap interval). Echoes of the input "
        "get no acts, as in every annotation. Prints tables and a trust verdict (yes / caution / no); --json prints "
        "the report as JSON.",
    )
    c.add_argument("--annotator", default="offline", help=ANNOTATOR_HELP)
    c.add_argument("--dataset", default="ja-assistant", help="built-in name or JSONL file with gold acts")
    c.add_argument("--split", default=None, help="only this split (e.g. test)")
    c.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="only N samples (after --split), drawn by --seed and kept in file order: a cheaper check of a slow or "
        "paid annotator",
    )
    c.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    c.add_argument("--repeats", type=int, default=1, help="annotate k times and report self-consistency")
    c.add_argument(
        "--garbage",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also replay garbage replies (constant, random, shuffled, mojibake, another sample's) on the same "
        "samples; they must score mean WLCS <= 0.05 (default on; --no-garbage skips it, e.g. for paid LLMs)",
    )
    c.add_argument("--out", type=Path, help="also write the report and per-sample rows as JSON here")
    c.add_argument(
        "--json",
        action="store_true",
        help="print the report as JSON (for scripts; without the failures, which --out keeps) instead of the tables "
        "and the trust verdict",
    )
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


def pred_row(row: dict[str, Any]) -> dict[str, Any]:
    """An annotation row in the PRED format of ``voxeval score``: ``{id, steps}``, or the failure with its raw output.

    >>> pred_row({"id": "s1", "status": "ok", "steps": [], "note": "empty reply"})
    {'id': 's1', 'steps': []}
    >>> pred_row({"id": "s2", "status": "ok", "steps": [], "echo": True, "echo_similarity": 1.0})
    {'id': 's2', 'steps': [], 'echo': True}
    """
    if row["status"] == "ok":
        # An echo of the input is marked, so a reader sees why the reply has no acts.
        return {"id": row["id"], "steps": row["steps"], **({"echo": True} if row.get("echo") else {})}
    return {"id": row["id"], "status": "failed", "error": row.get("error"), "raw": row.get("raw")}


@dataclass
class PredWorker:
    """Annotates one reply and writes it in the PRED format (the annotation stage of ``voxeval annotate``)."""

    inner: AnnotateWorker
    """The annotation stage's worker."""
    cpu_bound: bool = field(init=False)

    def __post_init__(self) -> None:
        self.cpu_bound = self.inner.cpu_bound

    def setup(self) -> None:
        """Set the annotator up."""
        self.inner.setup()

    async def __call__(self, payload: tuple[dict[str, Any], AnnotationInput]) -> list[dict[str, Any]]:
        """One PRED row."""
        return [pred_row(row) for row in await self.inner(payload)]


def row_language(user: dict[str, Any], where: Location, *, llm: bool) -> str:
    """The row's language from ``input.locale`` (``ja`` without one); for the llm annotator it must have a prompt."""
    from voxeval.annotate._llm import PROMPT_LANGUAGES
    from voxeval.languages import language_of

    locale = user.get("locale")
    if locale is None:
        return "ja"
    if not isinstance(locale, str) or not locale:
        raise InputError(where.child("input.locale"), f"must be a locale string such as en-US, got {locale!r}")
    language = language_of(locale)
    if llm and language not in PROMPT_LANGUAGES:
        raise InputError(
            where.child("input.locale"),
            f"{locale!r}: the llm annotator has annotation prompts in {', '.join(PROMPT_LANGUAGES)} only",
        )
    return language


def _offline_options(spec: str, first: dict[str, Location]) -> dict[str, Any]:
    """The offline annotator's options: the one language of the rows (its artefact is per language)."""
    if spec.split(":")[0] != "offline" or not first:
        return {}
    if len(first) > 1:
        second = sorted(first.values(), key=lambda w: w.line or 0)[1]
        raise InputError(
            second.child("input.locale"),
            f"the offline annotator labels one language per file, found {', '.join(sorted(first))}: split the file",
        )
    return {"language": next(iter(first))}


def _annotate(args: argparse.Namespace) -> int:
    from voxeval.annotate import annotator_from_spec
    from voxeval.run._executor import Task
    from voxeval.run._lock import RunLock
    from voxeval.run._stage import Stage, run_stage

    tasks = []
    first: dict[str, Location] = {}  # each language's first row
    for line, row in read_jsonl(args.inp):
        where = Location(str(args.inp), line)
        raw_input = row.get("input")
        user_obj: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
        user = user_obj.get("text", "")
        language = row_language(user_obj, where, llm=args.annotator.split(":")[0] == "llm")
        first.setdefault(language, where)
        sample_id = parse_id(row, where)
        fields = {"id": sample_id}
        item = AnnotationInput(field_text(row, args.text_field, where), user, language=language)
        tasks.append(Task((sample_id,), (fields, item), fields))
    options = _offline_options(args.annotator, first)
    worker = PredWorker(AnnotateWorker(args.annotator, annotator_from_spec(args.annotator, **options), options))
    stage = Stage(f"annotations {args.annotator}", args.out, key="id")
    with RunLock(args.out.parent, f".{args.out.name}.lock"):
        before = set(read_log(args.out)) if args.out.exists() else set()
        asyncio.run(run_stage(stage, tasks, worker, limit=worker.inner.in_flight(8)))
    todo = [t for t in tasks if t.keys[0] not in before]
    print(f"annotated {len(todo)} new row(s) ({len(tasks) - len(todo)} already in {args.out})")
    return 0


def _check(args: argparse.Namespace) -> int:
    from voxeval.annotate import annotator_from_spec
    from voxeval.annotate._check import check_annotator, garbage_check
    from voxeval.report._validity import system_level

    dataset = resolve_dataset(args.dataset).split(args.split)
    total = len(dataset.samples)
    if args.sample is not None:
        dataset = dataset.sampled(args.sample, args.seed)
    by_language = args.annotator.split(":")[0] in ("llm", "offline")
    annotator = annotator_from_spec(args.annotator, **({"language": dataset.language} if by_language else {}))
    result = check_annotator(annotator, dataset.samples, repeats=args.repeats)
    report: dict[str, Any] = {
        "dataset": dataset.name,
        **result.report,
        "system_level": system_level(dataset.samples, result.predicted),
    }
    if args.sample is not None:
        report["sample"] = {"n": args.sample, "of": total, "seed": args.seed}
    if args.garbage:
        report["garbage"] = garbage_check(annotator, dataset.samples)
    if args.out:
        atomic_write_json(args.out, {**report, "rows": result.rows})
    if args.json:
        shown = {k: v for k, v in report.items() if k not in ("failures",)}
        print(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        from voxeval.annotate._check_text import check_text

        print(check_text(report) + (f"\n\nreport and per-sample rows: {args.out}" if args.out else ""))
    return 0
