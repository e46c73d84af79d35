"""Synthesis real-time factor: render ja-assistant's inputs with the default engine (pyopenjtalk), 2 workers.

Run: ``python benchmarks/bench_synthesis.py [--limit N]``. RTF = wall seconds / seconds of audio rendered.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from voxeval.data import dumps, resolve_dataset
from voxeval.speech._synthesize import synthesize_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--engine", default="pyopenjtalk")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = synthesize_dataset(
            resolve_dataset("ja-assistant"), args.engine, Path(tmp), limit=args.limit, workers=os.cpu_count()
        )
    print(
        dumps(
            {
                "benchmark": "synthesis",
                "engine": args.engine,
                "rows": report.rows,
                "rendered": report.rendered,
                "audio_s": round(report.rendered_audio_s, 1),
                "wall_s": round(report.wall_s, 2),
                "real_time_factor": round(report.real_time_factor, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
