"""``voxeval generate``: build a dataset with an LLM and the paper's Appendix A prompt."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from voxeval.errors import ConfigError


def register(commands: Any) -> None:
    """Add ``generate``."""
    from voxeval.data._generate import DEFAULT_DOMAINS

    p = commands.add_parser(
        "generate",
        description="Each reply must be JSON in the paper's schema; an invalid one is retried with the validation "
        "error fed back, then recorded in OUT.failures.jsonl with its raw text. Near-duplicate inputs are dropped "
        "and recorded there too. Keys come from the environment only. Rerunning resumes.",
    )
    p.add_argument(
        "--llm",
        required=True,
        help="model spec: openai:MODEL | gemini:MODEL | openai-compat:MODEL@URL | llamacpp:qwen2.5-1.5b",
    )
    p.add_argument("--n", type=int, required=True, help="number of samples to generate")
    p.add_argument(
        "--language",
        choices=("ja", "en", "zh"),
        default="ja",
        help="language of the samples: the Appendix A prompt in it (ja: the paper's own; en, zh: translations) and "
        "the input.locale required (ja-JP, en-US, zh-CN)",
    )
    p.add_argument("--domains", default=",".join(DEFAULT_DOMAINS), help="comma-separated domains (round-robin)")
    p.add_argument("--out", required=True, type=Path, help="output JSONL")
    p.add_argument("--attempts", type=int, default=3, help="attempts per sample before recording a failure")
    p.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval generate``."""
    from voxeval.data._generate import generate
    from voxeval.llm import chat_model_from_spec

    domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    if not domains or args.n < 1:
        raise ConfigError("need --n ≥ 1 and at least one domain")
    model = chat_model_from_spec(args.llm)
    report = asyncio.run(
        generate(
            model,
            args.llm,
            args.n,
            domains,
            args.out,
            attempts=args.attempts,
            concurrency=args.concurrency,
            language=args.language,
        )
    )
    print(
        f"kept {report.kept}, failed {report.failed}, near-duplicates dropped {report.duplicates}; "
        f"output {args.out}, failures {args.out.with_name(args.out.stem + '.failures.jsonl')}"
    )
    return 0
