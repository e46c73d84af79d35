"""Metrics throughput: WLCS and WED on 1,000,000 random prediction/gold pairs of length ≤ 8.

Run: ``python benchmarks/bench_metrics.py [--pairs N]``; prints the median pairs/s for WLCS, WED and both.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from voxeval.acts import LABELS, Step, normalise
from voxeval.metrics import weighted_edit_distance, weighted_lcs


def random_pairs(n: int, seed: int = 0) -> list[tuple[tuple[Step, ...], tuple[Step, ...]]]:
    """``n`` (gold, pred) pairs: gold 1–8 acts, prediction 0–8 acts, normalised random weights."""
    rng = random.Random(seed)

    def seq(lo: int) -> tuple[Step, ...]:
        return normalise([Step(rng.choice(LABELS), rng.random()) for _ in range(rng.randint(lo, 8))])

    return [(seq(1), seq(0)) for _ in range(n)]


def measure(pairs: list[tuple[tuple[Step, ...], tuple[Step, ...]]]) -> dict[str, float]:
    """Wall-clock throughput of each metric over ``pairs`` (one pass each)."""
    t0 = time.perf_counter()
    for gold, pred in pairs:
        weighted_lcs(gold, pred)
    t1 = time.perf_counter()
    for gold, pred in pairs:
        weighted_edit_distance(pred, gold)
    t2 = time.perf_counter()
    n = len(pairs)
    return {
        "pairs": n,
        "wlcs_pairs_per_s": n / (t1 - t0),
        "wed_pairs_per_s": n / (t2 - t1),
        "both_pairs_per_s": n / (t2 - t0),
        "seconds": t2 - t0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3, help="passes; the median throughput is reported")
    args = parser.parse_args()
    pairs = random_pairs(args.pairs)
    runs = [measure(pairs) for _ in range(args.repeats)]
    median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(json.dumps({"benchmark": "metrics", "repeats": args.repeats, **median}))


if __name__ == "__main__":
    main()
