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
    "openai-compat:MODEL@BASE_URL | realtime:openai:MODEL[@WS_URL] | live:gemini:MODEL[@WS_URL] | "
    "cascade[:asr=…,llm=…,tts=…|none] | python:MODULE:CALLABLE | "
    "style-plain / style-aware (offline style baselines); NAME=SPEC names it (two specs sharing a short name are "
    "named apart with a hash of the spec); "
    "provider options after '?', e.g. gemini:gemini-3.8-flash?concurrency=8&rps=2 (see docs/systems.md)"
)


def register(commands: Any) -> None:
    """Add ``run``."""
    p = commands.add_parser(
        "run",
        description=(
            "Run or resume a benchmark in RUN_DIR. Each stage appends results keyed by sample id to a JSONL log, "
            "so rerunning the same command does only the missing work; a run killed at any moment loses nothing "
            "that was written. Several --dataset and --system values form the experiment grid of Table 1."
        ),
    )
    p.add_argument(
        "--benchmark",
        default="da",
        help="benchmark to run: da (dialogue acts; default) | style | dialogues (multi-turn dialogue acts)",
    )
    p.add_argument(
        "--dataset",
        action="append",
        help="built-in name or JSONL file (repeatable; default ja-assistant for da, acoustic-ja for style); a da run "
        "holds one language (ja-assistant, en-assistant, zh-assistant), which picks its prompts and input voice; "
        "hf:DIR[?input=COLUMN&…] reads a Hugging Face dataset folder (da, dialogues), vstyle:DIR VStyle's own "
        "layout (style) (docs/interop.md)",
    )
    p.add_argument("--system", action="append", required=True, help=SYSTEM_HELP)
    p.add_argument(
        "--annotator",
        default="offline",
        help="da: offline[:VERSION] (the artefact of the data's language) | llm:MODEL_SPEC (prompt in the data's "
        "language) | gold[:DATASET]",
    )
    p.add_argument(
        "--no-reference-context",
        dest="reference_aware",
        action="store_false",
        help="da: annotate each reply without its sample's reference reply as context (default: with it, so an "
        "off-topic statement is not read as the Answer the user asked for; recorded in config.json)",
    )
    p.add_argument(
        "--history",
        action="append",
        choices=("gold", "own", "none"),
        help="dialogues (repeatable; default all three): gold = each turn after the reference dialogue so far, "
        "own = the system hears its own earlier replies (one session per dialogue), none = each turn alone; each "
        "condition is its own column of results (docs/dialogues.md)",
    )
    p.add_argument(
        "--judge",
        default="acoustic",
        help="style: acoustic[:model|gender] (offline; pitch reference) | lalm:MODEL_SPEC (audio LLM)",
    )
    p.add_argument("--abilities", help="style: only these abilities, comma-separated (e.g. pitch,speed,volume)")
    p.add_argument("--repeats", type=int, default=1, help="style: judgements per response (judge variance)")
    p.add_argument(
        "--tts",
        help="engine for inputs without audio (default for da: the datasets' language's input voice, pyopenjtalk for "
        "ja, piper for en, espeak-ng:cmn-latn-pinyin for zh; auto = one engine per language for style)",
    )
    p.add_argument(
        "--reply-text",
        choices=("speech", "model"),
        help="da: which reply channel is annotated: speech = voxeval's ASR transcript of the reply audio (default; "
        "a reply without audio is scored on its text), model = the model's own text (a reply that only speaks "
        "then scores as empty); recorded in config.json",
    )
    p.add_argument(
        "--reply-asr",
        metavar="ENGINE",
        help="da: ASR engine that transcribes reply audio (default whisper-base, offline; none = no reply ASR, "
        "only with --reply-text model); recorded in config.json",
    )
    p.add_argument("--split", help="only this split of each dataset (dev / test)")
    p.add_argument("--out", required=True, type=Path, help="run directory (created, or resumed)")
    p.add_argument("--limit", type=int, help="only the first N samples of each dataset")
    p.add_argument("--retry-failed", action="store_true", help="re-attempt samples recorded as failed")
    p.add_argument("--concurrency", type=int, help="requests in flight per system (default: the system's own)")
    p.add_argument(
        "--executor",
        choices=("async", "process", "ray"),
        default="async",
        help="where CPU-bound stages run (TTS, offline annotator, acoustic judge): async = in this process "
        "(default), process = a pool of worker processes, one per core, ray = Ray actors on a cluster (needs "
        "voxeval[distributed]; see docs/scale.md); network calls always run in-process",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="with --executor ray: the cluster to join, e.g. 10.0.0.1:6379 (default: $RAY_ADDRESS, else a private "
        "local Ray started with this machine's CPUs); a cluster with token authentication gets the token Ray reads "
        "($RAY_AUTH_TOKEN, $RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token); the run directory and datasets must be on "
        "storage shared by every node at the same path (docs/scale.md)",
    )
    p.add_argument("--no-cache", action="store_true", help="do not reuse identical provider calls from the cache")
    p.add_argument("--dry-run", action="store_true", help="print what would be called, and an estimate; call nothing")
    p.add_argument(
        "--system-prompt-file", type=Path, help="replace the Appendix B.1 system prompt (UTF-8, at most 1 MiB)"
    )
    p.add_argument("--user-prompt-file", type=Path, help="replace the Appendix B.2 user prompt (UTF-8, at most 1 MiB)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(handler=run)


MAX_PROMPT_BYTES = 1 << 20
"""Largest ``--system-prompt-file`` / ``--user-prompt-file`` read (1 MiB; the paper's prompts are ~2 KB)."""


def _prompt(path: Path | None, default: str | None) -> str | None:
    if path is None:
        return default
    from voxeval.errors import Location
    from voxeval.io import read_bounded

    data = read_bounded(path, Location(str(path)), MAX_PROMPT_BYTES, "prompt file")  # no FIFO, no /dev/zero
    try:
        return data.decode("utf-8").rstrip("\n")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"prompt file {path} is not valid UTF-8 (byte {exc.start})") from None


def request_from_args(args: argparse.Namespace) -> Any:
    """What the command line asks for; the benchmark fills in its defaults."""
    from voxeval.run import RunRequest

    if args.limit is not None and args.limit < 1:
        raise ConfigError("--limit must be at least 1")
    abilities = tuple(a.strip() for a in (args.abilities or "").split(",") if a.strip())
    return RunRequest(
        systems=tuple(args.system),
        datasets=tuple(args.dataset or ()),
        annotator=args.annotator,
        judge=args.judge,
        abilities=abilities,
        repeats=args.repeats,
        tts=args.tts,
        split=args.split,
        system_prompt=_prompt(args.system_prompt_file, None),
        user_prompt=_prompt(args.user_prompt_file, None),
        reply_text=args.reply_text,
        reply_asr=args.reply_asr,
        reference_aware=getattr(args, "reference_aware", True),
        history=tuple(dict.fromkeys(getattr(args, "history", None) or ())),
    )


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval run``."""
    from voxeval.benchmark import get_benchmark
    from voxeval.run import RunOptions, run_benchmark

    if args.ray_address and args.executor != "ray":
        raise ConfigError("--ray-address needs --executor ray")
    bench = get_benchmark(args.benchmark)
    settings = bench.settings(request_from_args(args))
    options = RunOptions(
        out=args.out,
        limit=args.limit,
        retry_failed=args.retry_failed,
        concurrency=args.concurrency,
        use_cache=not args.no_cache,
        progress=not args.quiet,
        executor=args.executor,
        ray_address=args.ray_address,
    )
    if args.dry_run:
        plan = bench.dry_run(settings, bench.plan(settings, options.limit), options.out)
        print(json.dumps(plan, ensure_ascii=False, indent=2))
        return 0
    summary = run_benchmark(bench, settings, options, argv=["voxeval", *getattr(args, "argv", sys.argv[1:])])
    print(bench.table(summary, args.out))
    paths = bench.report(args.out, None, None)
    print(f"\nreport: {paths['html']}")
    return 0
