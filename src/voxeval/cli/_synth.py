"""``voxeval synth``: render a dataset's input texts to the benchmark's input audio format."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from voxeval.data import resolve_dataset
from voxeval.speech._synthesize import synthesize_dataset
from voxeval.speech.tts import DEFAULT_ENGINES, VoiceStyle, default_engine_spec, tts_engines


def register(commands: Any) -> None:
    """Add ``synth`` to the command parser."""
    defaults = ", ".join(f"{lang}: {spec}" for lang, spec in DEFAULT_ENGINES.items())
    p = commands.add_parser(
        "synth",
        description=(
            "Synthesise the user turns of DATASET (a built-in name or a JSONL file) into OUT/audio/<hash>.wav and "
            "write OUT/dataset.jsonl: the rows as read, with input.audio (relative to OUT) and input.synthesis "
            "(engine, voice, settings, sha256, duration_s). The engine's own leading and trailing silence is "
            "trimmed, then exactly 120 ms of digital silence is added at both ends. Files are named by a hash of "
            "text, engine, style and format, so a rerun renders only what is new."
        ),
    )
    p.add_argument("dataset", metavar="DATASET", help="built-in dataset name or JSONL file in the paper's schema")
    p.add_argument(
        "--engine",
        metavar="SPEC",
        help=f"NAME[:VOICE], NAME one of {', '.join(tts_engines.names())} (default by the rows' locale: {defaults})",
    )
    p.add_argument("--out", required=True, type=Path, help="output folder (audio/ and dataset.jsonl)")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N rows")
    p.add_argument("--workers", type=int, metavar="N", help=f"worker processes (default: {os.cpu_count()})")
    p.add_argument("--voice", help="voice name (overrides the engine's default)")
    p.add_argument("--rate", type=float, default=1.0, help="speaking-rate multiplier (default 1.0)")
    p.add_argument("--pitch", type=float, default=0.0, metavar="SEMITONES", help="pitch shift (default 0)")
    p.add_argument("--gain", type=float, default=0.0, metavar="DB", help="level change in dB (default 0)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``voxeval synth``."""
    style = VoiceStyle(voice=args.voice, rate=args.rate, pitch_semitones=args.pitch, gain_db=args.gain)
    dataset = resolve_dataset(args.dataset)
    engine = args.engine or default_engine_spec(s.locale for s in dataset.samples)
    report = synthesize_dataset(
        dataset, engine, args.out, style=style, limit=args.limit, workers=args.workers, progress=True
    )
    summary = f"rendered {report.rendered}, cached {report.cached}"
    if report.real_time_factor is not None:
        summary += (
            f" ({report.rendered_audio_s:.1f} s of audio in {report.wall_s:.1f} s, RTF {report.real_time_factor:.3f})"
        )
    print(summary)
    print(f"wrote {report.dataset_path} ({report.rows} rows, engine {engine})")
    return 0
