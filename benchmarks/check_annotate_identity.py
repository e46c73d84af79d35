"""Do two source trees annotate alike? ``voxeval annotate --annotator offline`` on the benchmark's inputs (3,000
``repeated`` and 3,000 ``distinct`` replies, see ``bench_annotator.py``), once with this tree and once with
``--reference`` (another checkout's ``src``), each in a fresh process; the outputs are compared row by row by id
(the file order follows completion and may differ). Exit status 1 when any row differs.

A speed change to loading or batching must leave every row identical: acts, spans, importances and gate values.
Run: ``python benchmarks/check_annotate_identity.py --reference /path/to/other/checkout/src``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_annotator import _rows  # a sibling: the script's folder is on the module path

ROOT = Path(__file__).resolve().parent.parent


def annotate(src: Path, rows: list[dict[str, object]], tmp: Path, name: str) -> dict[str, dict[str, object]]:
    """The command's output rows by id, run with ``src`` first on the module path."""
    inp, out = tmp / f"{name}.in.jsonl", tmp / f"{name}.out.jsonl"
    inp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, "-m", "voxeval", "annotate", "--annotator", "offline", "--in", str(inp), "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=tmp)
    return {str(r["id"]): r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, required=True, help="the other tree's src folder")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="this tree's src folder")
    args = parser.parse_args()
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("repeated", "distinct"):
            rows = _rows(kind)
            mine = annotate(args.src.resolve(), rows, Path(tmp), f"{kind}-src")
            theirs = annotate(args.reference.resolve(), rows, Path(tmp), f"{kind}-reference")
            changed = sorted(k for k in theirs if mine.get(k) != theirs[k]) + sorted(set(mine) - set(theirs))
            differ += len(changed)
            shown = {"input": kind, "rows": len(theirs), "differing_rows": len(changed), "first": changed[:5]}
            print(json.dumps(shown))
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
