"""Scoring throughput: ``voxeval score`` against its limit, a plain-Python script of the same metrics and rows.

Generates a random gold / prediction set (``benchmarks/score_data.py``), then times, each in its own process,
``voxeval score`` and ``benchmarks/score_reference.py`` (the ~40-line plain-Python WLCS + WED writing the same
``scores.jsonl`` rows), checks that the rows agree, and reports medians of wall time, CPU time and peak memory
(the largest process's peak RSS, and the sampled peak of RSS and PSS summed over voxeval's worker processes).
``--before SRC`` also times another source tree (e.g. the code before a change) on the same files.
Targets (issue 18): 1M pairs ≤ 15 s, ≤ 500 MB peak, ≥ 3.5× faster than the reference. Each voxeval row says
whether its compiled code (``voxeval._native``) was built and used (``compiled_code``).
Run: ``python benchmarks/bench_metrics.py [--pairs N] [--repeats R] [--before SRC]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(q for c in children for q in _tree(int(c)))]


def _tree_memory(pid: int) -> tuple[int, int]:
    """Summed RSS and PSS (kB) of a process and its descendants (worker processes included)."""
    rss = pss = 0
    for q in _tree(pid):
        try:
            for line in Path(f"/proc/{q}/smaps_rollup").read_text().splitlines():
                key, _, value = line.partition(":")
                if key in ("Rss", "Pss"):
                    amount = int(value.split()[0])
                    rss, pss = (rss + amount, pss) if key == "Rss" else (rss, pss + amount)
        except (OSError, ValueError):
            continue  # gone meanwhile
    return rss, pss


def timed(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Wall seconds, CPU seconds (user + sys, workers included) and peak memory (MB) of one child process.

    ``peak_mb`` is the kernel's peak RSS of the largest single process; ``tree_rss_mb`` / ``tree_pss_mb`` are
    the peaks of the summed RSS / PSS of the process and its worker processes, sampled every 0.1 s (PSS
    shares the pages the workers got from the fork, so it is the fairer sum).
    """
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tree_rss = tree_pss = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        rss, pss = _tree_memory(proc.pid)
        tree_rss, tree_pss = max(tree_rss, rss), max(tree_pss, pss)
        time.sleep(0.1)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv[:3]} failed: {err[-500:]}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "tree_rss_mb": tree_rss / 1024,
        "tree_pss_mb": tree_pss / 1024,
    }


def voxeval_cmd(src: Path, gold: Path, pred: Path, out: Path) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return [sys.executable, "-m", "voxeval", "score", "--gold", str(gold), "--pred", str(pred), "--out", str(out)], env


def compiled(src: Path) -> bool:
    """Whether ``voxeval score`` from ``src`` runs its compiled code (``voxeval._native``, see docs/performance.md)."""
    probe = "import voxeval.native as n, sys; sys.exit(0 if n.module() is not None else 1)"
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True).returncode == 0


def same_rows(scores: Path, reference: Path) -> bool:
    """voxeval's rows equal the reference's once voxeval's gold coverage (not in the reference) is removed."""
    with open(scores, encoding="utf-8") as a, open(reference, encoding="utf-8") as b:
        return all(re.sub(r',"gold_coverage":[^,]+', "", x) == y for x, y in zip(a, b, strict=True))


def median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each program; medians are reported")
    parser.add_argument("--before", type=Path, help="another voxeval source tree (its src/) to time as well")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # Generated in a child process: a forked child's peak RSS counts its parent's memory at the fork.
        data = Path(tmp) / "data"
        subprocess.run([sys.executable, str(HERE / "score_data.py"), str(args.pairs), str(data)], check=True)
        gold, pred = data / "gold.jsonl", data / "pred.jsonl"
        programs = {
            "reference": ([sys.executable, str(HERE / "score_reference.py"), str(gold), str(pred), f"{tmp}/ref.jsonl"],
                          dict(os.environ)),
            "voxeval": voxeval_cmd(ROOT / "src", gold, pred, Path(tmp) / "out"),
        }  # fmt: skip
        if args.before:
            programs["voxeval_before"] = voxeval_cmd(args.before, gold, pred, Path(tmp) / "before")
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in programs}
        for _ in range(args.repeats):  # interleaved, so that load on the machine hits every program alike
            for name, (argv, env) in programs.items():
                runs[name].append(timed(argv, env))
        identical = same_rows(Path(tmp) / "out" / "scores.jsonl", Path(tmp) / "ref.jsonl")
    result = {name: median(r) for name, r in runs.items()}
    ref, new = result["reference"], result["voxeval"]
    for name, figures in result.items():
        row = {"benchmark": "metrics", "program": name, "pairs": args.pairs, "repeats": args.repeats, **figures}
        row["us_per_pair"] = round(figures["wall_s"] / args.pairs * 1e6, 2)
        row["speedup_vs_reference_wall"] = round(ref["wall_s"] / figures["wall_s"], 2)
        row["speedup_vs_reference_cpu"] = round(ref["cpu_s"] / figures["cpu_s"], 2)
        if name.startswith("voxeval"):
            row["compiled_code"] = compiled(args.before if name == "voxeval_before" else ROOT / "src")
        if name == "voxeval":
            row["rows_identical_to_reference"] = identical
            row["target"] = "1M: ≤15 s, ≤500 MB (summed over worker processes), ≥3.5× reference"
        print(json.dumps(row, ensure_ascii=False))
    if "voxeval_before" in result:
        before = result["voxeval_before"]
        print(
            json.dumps(
                {
                    "benchmark": "metrics",
                    "program": "after ÷ before",
                    "pairs": args.pairs,
                    "speedup_wall": round(before["wall_s"] / new["wall_s"], 2),
                    "speedup_cpu": round(before["cpu_s"] / new["cpu_s"], 2),
                    "peak_ratio": round(new["peak_mb"] / before["peak_mb"], 2),
                    "tree_pss_ratio": round(new["tree_pss_mb"] / before["tree_pss_mb"], 2),
                }
            )
        )


if __name__ == "__main__":
    main()
