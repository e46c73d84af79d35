"""``voxeval judge``: judge existing spoken responses (VStyle's format) for style adherence, with VStyle's weights."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from voxeval.data import AppendLog, atomic_write_json
from voxeval.errors import ConfigError

JUDGE_HELP = (
    "acoustic (offline) | lalm:MODEL_SPEC, e.g. lalm:gemini:gemini-3.8-flash, "
    "lalm:openai-compat:Qwen/Qwen2.5-Omni-7B@http://host:8000/v1"
)


def register(commands: Any) -> None:
    """Add ``judge`` to the command parser."""
    p = commands.add_parser(
        "judge",
        help="score existing spoken responses for style adherence (VStyle format, 1-5 rubric, weighted summary)",
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


def build_judge(spec: str, repeats: int | None) -> Any:
    """The judge for ``spec``; ``--repeats`` is passed only when given, so every judge works without it."""
    from voxeval.judge import judge_from_spec

    options = {} if repeats is None else {"repeats": repeats}
    try:
        return judge_from_spec(spec, **options)
    except TypeError as exc:
        if options:
            raise ConfigError(f"judge {spec!r} does not take --repeats ({exc})") from None
        raise


def _check_config(out: Path, settings: dict[str, Any], judge: Any) -> None:
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


def _row(item: Any, judgement: Any) -> dict[str, Any]:
    if judgement.id != item.id:
        raise RuntimeError(f"judge {judgement.judge!r} answered item {item.id!r} with id {judgement.id!r}")
    if judgement.model_name is None:
        judgement = dataclasses.replace(judgement, model_name=item.model_name)
    row: dict[str, Any] = judgement.to_json()
    row.setdefault("meta", {})  # always present, so every row has the same keys
    return row


async def _judge_all(judge: Any, items: list[Any], root: Path, log: AppendLog, progress: Any) -> None:
    from voxeval.judge import read_response_audio

    limit = asyncio.Semaphore(max(1, int(getattr(judge, "concurrency", 1))))

    async def one(item: Any) -> None:
        async with limit:
            audio = await asyncio.to_thread(read_response_audio, item, root)
            judgement = await judge.judge(item, audio)
        row = _row(item, judgement)
        log.append(row)
        progress.advance(failed=row["status"] != "ok")

    await asyncio.gather(*(one(item) for item in items))


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
    categories = ("acoustic_attributes", "instruction", "role_play", "empathy")
    print("| model | overall | " + " | ".join(categories) + " | ok | failed | not measured |")
    print("|---" * (len(categories) + 5) + "|")
    for name, scores in summary["models"].items():
        cells = [_fmt(scores["categories"].get(c, {}).get("mean")) for c in categories]
        counts = f"{scores['ok']} | {scores['failed']} | {scores['not_measured']}"
        print(f"| {name} | {_fmt(scores['overall'])} | " + " | ".join(cells) + f" | {counts} |")


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval judge``."""
    from voxeval.judge import read_vstyle
    from voxeval.run._progress import StageProgress

    _positive("repeats", args.repeats)
    _positive("limit", args.limit)
    items = read_vstyle(args.inp, args.root)
    if args.limit is not None:
        items = items[: args.limit]
    judge = build_judge(args.judge, args.repeats)
    settings = {"judge": args.judge, "repeats": args.repeats}
    _check_config(args.out, settings, judge)
    with AppendLog(args.out / "judgements.jsonl") as log:
        todo = [i for i in items if log.rows.get(i.id, {}).get("status", "failed") == "failed"]
        with StageProgress("judge", len(todo)) as progress:
            asyncio.run(_judge_all(judge, todo, args.root, log, progress))
        rows = dict(log.rows)
    summary = summarise(items, rows, {**settings, "input": str(args.inp)})
    atomic_write_json(args.out / "summary.json", summary)
    _print_table(summary)
    print(f"\njudged {len(todo)} response(s) ({len(items) - len(todo)} already in {args.out / 'judgements.jsonl'})")
    print(f"wrote {args.out / 'judgements.jsonl'}, {args.out / 'summary.json'}")
    return 0
