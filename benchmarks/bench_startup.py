"""Start-up: ``voxeval --help`` against a bare interpreter start (target ≤ 0.2 s, issue 18).

Each command runs ``--runs`` times in a fresh process, interleaved so that load on the machine hits them alike;
medians of wall time and of CPU time (user + sys, less sensitive to a loaded machine) are reported. The limit is
``python -c pass`` with the same interpreter and site-packages: what any Python command pays before its first import.
``import voxeval.cli`` alone is listed too (the import work ``--help`` adds over the interpreter).
Run: ``python benchmarks/bench_startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.2
"""``voxeval --help`` wall time target (issue 18)."""

COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "import voxeval.cli": ["-c", "import voxeval.cli"],
    "voxeval --help": ["-m", "voxeval", "--help"],
    "voxeval score --help": ["-m", "voxeval", "score", "--help"],
}
"""What is timed: interpreter arguments after ``python``."""


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"python {' '.join(args)} failed: {err[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21, help="fresh processes per command; medians are reported")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("PYTHONSTARTUP", None)
    for cmd in COMMANDS.values():  # warm the OS file cache and the .pyc files
        timed(cmd, env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, cmd in COMMANDS.items():
            runs[name].append(timed(cmd, env))
    bare = statistics.median(w for w, _ in runs["python -c pass"])
    for name, figures in runs.items():
        wall = statistics.median(w for w, _ in figures)
        row = {
            "benchmark": "startup",
            "command": name,
            "runs": args.runs,
            "median_wall_s": round(wall, 3),
            "median_cpu_s": round(statistics.median(c for _, c in figures), 3),
            "over_bare_python_s": round(wall - bare, 3),
        }
        if name == "voxeval --help":
            row["target"] = f"≤ {TARGET_S} s"
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
