"""``voxeval judge``: judge existing spoken responses (VStyle's format) for style adherence, with VStyle's weights."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voxeval.errors import ConfigError
from voxeval.io import atomic_write_json, read_log

if TYPE_CHECKING:
    from voxeval.judge import StyleJudge

JUDGE_HELP = (
    "acoustic (offline) | lalm:MODEL_SPEC, e.g. lalm:gemini:gemini-3.8-flash, "
    "lalm:openai-compat:Qwen/Qwen2.5-Omni-7B@http://host:8000/v1"
)


def register(commands: Any) -> None:
    """Add ``judge`` to the command parser."""
    p = commands.add_parser(
        "judge",
        description=(
            "Judge each response of a VStyle metadata file (rows: id, instruct_id, model_name, ability, "
            "instruct_text, response_audio_path, optional response_text) and write OUT/judgements.jsonl (one row "
            "per response: id, model_name, ability, score, status, attributes, raw, reason, judge, meta) and "
            "OUT/summary.json (VStyle's weighted score per model, means per ability and category, counts of ok / "
            "failed / not_measured, coverage). Failed judgements are excluded from means and listed. Rerunning "
            "with the same --out resumes: responses already judged are kept, failed ones are judged again."
        ),
    )
    p.add_argument("--judge", required=True, help=JUDGE_HELP)
    p.add_argument("--in", dest="inp", metavar="METADATA", required=True, type=Path, help="VStyle metadata JSONL")
    p.add_argument(
        "--root", metavar="DIR", required=True, type=Path, help="folder that response_audio_path values are relative to"
    )
    p.add_argument(
        "--out", metavar="OUT_DIR", required=True, type=Path, help="output folder (judgements.jsonl, summary.json)"
    )
    p.add_argument("--repeats", type=int, help="judge each response k times; score = first valid, spread in meta")
    p.add_argument("--limit", type=int, help="judge only the first N rows of --in")
    p.set_defaults(handler=run)


def _positive(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise ConfigError(f"--{name} must be at least 1, got {value}")


def build_judge(spec: str, repeats: int | None) -> StyleJudge:
    """The judge for ``spec``; ``--repeats`` is passed only when given, so every judge works without it."""
    from voxeval.judge import judge_from_spec

    options = {} if repeats is None else {"repeats": repeats}
    try:
        return judge_from_spec(spec, **options)
    except TypeError as exc:
        if options:
            raise ConfigError(f"judge {spec!r} does not take --repeats ({exc})") from None
        raise


def _check_config(out: Path, settings: dict[str, Any], judge: StyleJudge) -> None:
    """Refuse to resume an output folder written by another judge or repeat count; record the judge's settings."""
    import json

    path = out / "config.json"
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8")).get("settings")
        except (ValueError, AttributeError):
            raise ConfigError(f"{path} is not a voxeval judge config; use a new --out folder") from None
        if previous != settings:
            raise ConfigError(
                f"{out} holds judgements made with {previous}, not {settings}; use a new --out folder, "
                "or the same --judge and --repeats to resume"
            )
    atomic_write_json(path, {"settings": settings, "judge": judge.describe()})


def summarise(items: list[Any], rows: dict[str, dict[str, Any]], settings: dict[str, Any]) -> dict[str, Any]:
    """``summary.json``: weighted scores per model over the judgements of ``items`` (pure)."""
    from voxeval.judge import Judgement, scores_by_model, vstyle_scores

    judged = [rows[item.id] for item in items if item.id in rows]
    judgements = [
        Judgement(
            id=str(r["id"]),
            ability=r["ability"],
            score=r.get("score"),
            status=r["status"],
            judge=r.get("judge", ""),
            model_name=r.get("model_name"),
        )
        for r in judged
    ]
    return {
        **settings,
        "items": len(items),
        "judged": len(judged),
        "counts": vstyle_scores(judgements).counts.to_json(),
        "models": {name: scores.to_json() for name, scores in scores_by_model(judgements).items()},
        "failed": [
            {"id": r["id"], "model_name": r.get("model_name"), "ability": r["ability"], "reason": r.get("reason", "")}
            for r in judged
            if r["status"] == "failed"
        ],
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print_table(summary: dict[str, Any]) -> None:
    from voxeval.report._escape import md_cell

    categories = ("acoustic_attributes", "instruction", "role_play", "empathy")
    print("| model | overall | " + " | ".join(categories) + " | ok | failed | not measured |")
    print("|---" * (len(categories) + 5) + "|")
    for name, scores in summary["models"].items():
        cells = [_fmt(scores["categories"].get(c, {}).get("mean")) for c in categories]
        counts = f"{scores['ok']} | {scores['failed']} | {scores['not_measured']}"
        print(f"| {md_cell(name)} | {_fmt(scores['overall'])} | " + " | ".join(cells) + f" | {counts} |")


def _entries(items: list[Any], root: Path) -> list[Any]:
    from voxeval.data import resolve_inside
    from voxeval.errors import Location
    from voxeval.run._judgements import JudgeEntry

    return [
        JudgeEntry(
            i.id, i, resolve_inside(root, i.response_audio, Location(i.response_audio, field=f"response of {i.id}"))
        )
        for i in items
    ]


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval judge``."""
    from voxeval.run._judgements import JudgeWorker, judge_entries
    from voxeval.run._lock import RunLock
    from voxeval.run._stage import StageRun
    from voxeval.style import read_vstyle

    _positive("repeats", args.repeats)
    _positive("limit", args.limit)
    items = read_vstyle(args.inp, args.root)
    if args.limit is not None:
        items = items[: args.limit]
    judge = build_judge(args.judge, args.repeats)
    settings = {"judge": args.judge, "repeats": args.repeats}
    log = args.out / "judgements.jsonl"
    with RunLock(args.out):
        _check_config(args.out, settings, judge)
        before = read_log(log) if log.exists() else {}
        worker = JudgeWorker(args.judge, {} if args.repeats is None else {"repeats": args.repeats}, judge, True)
        # A failed judgement is judged again on every rerun (the judge may have been unreachable).
        rows = asyncio.run(judge_entries(log, _entries(items, args.root), worker, key="id", how=StageRun(True)))
    todo = [i for i in items if before.get(i.id, {}).get("status", "failed") == "failed"]
    summary = summarise(items, rows, {**settings, "input": str(args.inp)})
    atomic_write_json(args.out / "summary.json", summary)
    _print_table(summary)
    print(f"\njudged {len(todo)} response(s) ({len(items) - len(todo)} already in {log})")
    print(f"wrote {log}, {args.out / 'summary.json'}")
    return 0
