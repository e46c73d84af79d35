"""``voxeval run``: the resumable evaluation pipeline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError

SYSTEM_HELP = (
    "system under test (repeatable): replay:PATH.jsonl | openai:MODEL | gemini:MODEL | "
    "openai-compat:MODEL@BASE_URL | cascade[:asr=…,llm=…,tts=…|none] | python:MODULE:CALLABLE | "
    "style-plain / style-aware (offline style baselines); "
    "provider options after '?', e.g. gemini:gemini-3.8-flash?concurrency=8&rps=2 (see docs/systems.md)"
)


def register(commands: Any) -> None:
    """Add ``run``."""
    p = commands.add_parser(
        "run",
        help="run a benchmark end to end (resumable): inputs → replies → annotations → scores → report",
        description=(
            "Run or resume a benchmark in RUN_DIR. Each stage appends results keyed by sample id to a JSONL log, "
            "so rerunning the same command does only the missing work; a run killed at any moment loses nothing "
            "that was written. Several --dataset and --system values form the experiment grid of Table 1."
        ),
    )
    p.add_argument("--benchmark", choices=("da", "style"), default="da", help="benchmark to run (default: da)")
    p.add_argument(
        "--dataset",
        action="append",
        help="built-in name or JSONL file (repeatable; default ja-assistant for da, acoustic-ja for style)",
    )
    p.add_argument("--system", action="append", required=True, help=SYSTEM_HELP)
    p.add_argument("--annotator", default="offline", help="da: offline | llm:MODEL_SPEC | gold[:DATASET]")
    p.add_argument(
        "--judge",
        default="acoustic",
        help="style: acoustic[:model|gender] (offline; pitch reference) | lalm:MODEL_SPEC (audio LLM)",
    )
    p.add_argument("--abilities", help="style: only these abilities, comma-separated (e.g. pitch,speed,volume)")
    p.add_argument("--repeats", type=int, default=1, help="style: judgements per response (judge variance)")
    p.add_argument(
        "--tts",
        help="engine for inputs without audio (default: pyopenjtalk for da; auto = one engine per language for style)",
    )
    p.add_argument("--split", help="only this split of each dataset (dev / test)")
    p.add_argument("--out", required=True, type=Path, help="run directory (created, or resumed)")
    p.add_argument("--limit", type=int, help="only the first N samples of each dataset")
    p.add_argument("--retry-failed", action="store_true", help="re-attempt samples recorded as failed")
    p.add_argument("--concurrency", type=int, help="requests in flight per system (default: the system's own)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse identical provider calls from the cache")
    p.add_argument("--dry-run", action="store_true", help="print what would be called, and an estimate; call nothing")
    p.add_argument("--system-prompt-file", type=Path, help="replace the Appendix B.1 system prompt")
    p.add_argument("--user-prompt-file", type=Path, help="replace the Appendix B.2 user prompt")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(handler=run)


def _prompt(path: Path | None, default: str) -> str:
    if path is None:
        return default
    try:
        return path.read_text(encoding="utf-8").rstrip("\n")
    except OSError as exc:
        raise ConfigError(f"cannot read prompt file {path}: {exc}") from None


def settings_from_args(args: argparse.Namespace) -> Any:
    """The run's result-determining settings from the command line."""
    from voxeval.run import RunSettings
    from voxeval.systems import default_prompts

    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")
    if args.benchmark == "style":
        from voxeval.prompts import load_prompt

        system_prompt = load_prompt("style/response_system.v1").text
        user_prompt = load_prompt("style/response_user.v1").text
        extra: dict[str, Any] = {}
        if args.abilities:
            extra["abilities"] = sorted(a.strip() for a in args.abilities.split(",") if a.strip())
        if args.repeats != 1:
            extra["judge_options"] = {"repeats": args.repeats}
        return RunSettings(
            benchmark="style",
            datasets=tuple(args.dataset or ["acoustic-ja"]),
            systems=tuple(args.system),
            annotator=args.judge,
            tts=args.tts or "auto",
            system_prompt=_prompt(args.system_prompt_file, system_prompt),
            user_prompt=_prompt(args.user_prompt_file, user_prompt),
            extra=extra,
        )
    system_prompt, user_prompt = default_prompts()
    return RunSettings(
        benchmark=args.benchmark,
        datasets=tuple(args.dataset or ["ja-assistant"]),
        systems=tuple(args.system),
        annotator=args.annotator,
        tts=args.tts or "pyopenjtalk",
        split=args.split,
        system_prompt=_prompt(args.system_prompt_file, system_prompt),
        user_prompt=_prompt(args.user_prompt_file, user_prompt),
    )


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval run``."""
    from voxeval.report import table1_markdown
    from voxeval.run import RunOptions, run_da
    from voxeval.run._dryrun import dry_run
    from voxeval.run._scoring import table_row

    settings = settings_from_args(args)
    options = RunOptions(
        out=args.out,
        limit=args.limit,
        retry_failed=args.retry_failed,
        concurrency=args.concurrency,
        use_cache=not args.no_cache,
        progress=not args.quiet,
    )
    if args.benchmark == "style":
        return _run_style(settings, options, args)
    if args.dry_run:
        print(json.dumps(dry_run(settings, options), ensure_ascii=False, indent=2))
        return 0
    sets = run_da(settings, options, argv=["voxeval", *sys.argv[1:]])
    print(table1_markdown([table_row(s) for s in sets]))
    failed = sum(len(s.summary.excluded) for s in sets)
    if failed:
        print(f"\n{failed} sample(s) failed or are unfinished and were excluded; see {args.out / 'report.md'}")
    from voxeval.report._build import build_reports

    paths = build_reports(args.out)
    print(f"\nreport: {paths['html']}")
    return 0


def _run_style(settings: Any, options: Any, args: argparse.Namespace) -> int:
    from voxeval.report._build import build_reports
    from voxeval.run._style import load_items, run_style

    if args.dry_run:
        items = load_items(settings, options.limit)
        plan = {
            "items": len(items),
            "systems": list(settings.systems),
            "judge": settings.annotator,
            "calls": len(items) * len(settings.systems),
            "note": "nothing was called",
        }
        print(json.dumps(plan, ensure_ascii=False, indent=2))
        return 0
    summary = run_style(settings, options, argv=["voxeval", *sys.argv[1:]])
    print("| system | overall (VStyle-weighted) | judged ok | failed | not measured |\n|---|---:|---:|---:|---:|")
    for name, block in summary["systems"].items():
        overall = "—" if block["overall"] is None else f"{block['overall']:.3f}"
        print(f"| {name} | {overall} | {block['ok']} | {block['failed']} | {block['not_measured']} |")
    paths = build_reports(args.out)
    print(f"\nreport: {paths['html']}")
    return 0
