"""Ray executor: the TTS input stage (pyopenjtalk) local vs Ray with 1 and 2 workers, and the driver's peak memory.

Stage time: ja-assistant's inputs synthesised into a fresh run directory by the stage runner, with the in-process
executor (one at a time, as ``--executor async`` runs it), a process pool of 1 and 2, and Ray actors 1 and 2 (on
a local two-CPU Ray started once; actor start and engine load are inside the timing, as in a run). Medians of
``--repeats``; the load average is printed because the 2 cores are shared. Driver memory: ``run_stage`` on Ray
with a trivially cheap worker for 10k/30k/100k items, each in a fresh process: peak RSS (``ru_maxrss``, which
includes starting Ray) and the RSS just before and after the stage (the growth the items cause).
Run: ``python benchmarks/bench_ray.py [--items 336] [--repeats 3] [--memory 10000,30000,100000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from voxeval.data import dumps, resolve_dataset
from voxeval.run._executor import AsyncExecutor, Executor, ProcessExecutor, Task
from voxeval.run._inputs import InputWorker, dataset_input_items, sample_key
from voxeval.run._ray import RayExecutor
from voxeval.run._stage import Stage, StageRun, run_stage


def synthesis_seconds(executor: Executor, items: list[Any], limit: int) -> float:
    """Wall time of the inputs stage over ``items`` in a fresh run directory."""
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp)
        worker = InputWorker(run_dir, "pyopenjtalk")
        tasks = [Task((sample_key(i.dataset, i.id),), i) for i in items]
        stage = Stage("inputs", run_dir / "inputs.jsonl", record_failures=False)
        started = time.perf_counter()
        how = StageRun(progress=False, cpu_executor=executor)
        rows = asyncio.run(run_stage(stage, tasks, worker, limit=limit, how=how))
        took = time.perf_counter() - started
    assert len(rows) == len(items)
    return took


def stage_rows(items: list[Any], repeats: int) -> list[dict[str, Any]]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    setups: dict[str, tuple[Executor, int]] = {
        "local (async, 1 at a time)": (AsyncExecutor(), 1),
        "process pool, 1 worker": (ProcessExecutor(1), 1),
        "process pool, 2 workers": (ProcessExecutor(2), 2),
        "ray, 1 worker": (RayExecutor(workers=1), 2),
        "ray, 2 workers": (RayExecutor(workers=2), 4),
    }
    times: dict[str, list[float]] = {name: [] for name in setups}
    try:
        for _ in range(repeats):  # interleaved, so load from other users hits every setup alike
            for name, (executor, limit) in setups.items():
                times[name].append(synthesis_seconds(executor, items, limit))
    finally:
        ray.shutdown()
    median = {name: statistics.median(t) for name, t in times.items()}
    rows = [
        {"benchmark": "ray", "stage": "inputs (pyopenjtalk)", "setup": name, "items": len(items),
         "median_s": round(m, 2), "runs_s": " ".join(f"{t:.2f}" for t in times[name])}
        for name, m in median.items()
    ]  # fmt: skip
    local, ray1, ray2 = median["local (async, 1 at a time)"], median["ray, 1 worker"], median["ray, 2 workers"]
    proc1, proc2 = median["process pool, 1 worker"], median["process pool, 2 workers"]
    rows.append(
        {"benchmark": "ray", "stage": "ratios", "setup": "ray 2 vs 1 worker (speed-up, target ≥ 1.8)",
         "median_s": round(ray1 / ray2, 3)}
    )  # fmt: skip
    rows.append(
        {"benchmark": "ray", "stage": "ratios", "setup": "ray 1 worker vs local (time ratio, target ≤ 1.10)",
         "median_s": round(ray1 / local, 3)}
    )  # fmt: skip
    rows.append(
        {"benchmark": "ray", "stage": "ratios", "setup": "process 2 vs 1 worker (speed-up, same machine)",
         "median_s": round(proc1 / proc2, 3)}
    )  # fmt: skip
    return rows


class CheapWorker:
    """A worker that costs nothing: isolates what the driver spends per item (pickled by value from ``__main__``)."""

    cpu_bound = True

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        return [{"key": payload, "status": "ok", "text": "はい、承知しました。"}]


def rss_mb() -> float:
    """Resident memory of this process now (Linux ``/proc``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def driver_memory(n: int) -> dict[str, Any]:
    """In this (fresh) process: ``n`` items through ``run_stage`` on Ray; peak RSS of this driver process."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tasks = [Task((f"d/s/{i:06d}",), f"d/s/{i:06d}") for i in range(n)]
            how = StageRun(progress=False, cpu_executor=RayExecutor(workers=2))
            before = rss_mb()
            started = time.perf_counter()
            stage = Stage("cheap", Path(tmp) / "log.jsonl")
            rows = asyncio.run(run_stage(stage, tasks, CheapWorker(), limit=64, how=how))
            took = time.perf_counter() - started
            assert len(rows) == n
            after = rss_mb()
    finally:
        ray.shutdown()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"benchmark": "ray", "stage": "driver memory (cheap worker, 2 actors, 64 in flight)", "setup": f"{n} items",
            "items": n, "median_s": round(took, 1), "items_per_s": round(n / took), "driver_peak_mb": round(peak),
            "driver_rss_before_mb": round(before), "driver_rss_after_mb": round(after)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=336, help="inputs to synthesise (default: all of ja-assistant)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory", default="10000,30000,100000", help="item counts for the driver-memory runs")
    parser.add_argument("--memory-run", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--memory-only", action="store_true", help="skip the stage timings")
    args = parser.parse_args()
    if args.memory_run:
        print(dumps(driver_memory(args.memory_run)))
        return
    if not args.memory_only:
        items = dataset_input_items([resolve_dataset("ja-assistant")])[: args.items]
        print(dumps({"benchmark": "ray", "stage": "machine", "setup": f"load average before: {os.getloadavg()}"}))
        for row in stage_rows(items, args.repeats):
            print(dumps(row), flush=True)
        print(dumps({"benchmark": "ray", "stage": "machine", "setup": f"load average after: {os.getloadavg()}"}))
    for n in [int(x) for x in args.memory.split(",") if x]:
        done = subprocess.run([sys.executable, __file__, "--memory-run", str(n)], capture_output=True, text=True)
        lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
        print(lines[-1] if lines else dumps({"benchmark": "ray", "stage": "driver memory", "setup": f"{n} items",
                                              "error": done.stderr.strip().splitlines()[-1:]}), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
