"""Ray executor: the offline stages local vs Ray with 1 and 2 workers, Ray's CPU per item, the driver's peak memory.

Stages, each timed through its real stage function in a fresh run directory (worker start and model load inside the
timing, as in a run), with the in-process executor (``--executor async``), a process pool of 1 and 2 (the control:
the same stage with no Ray in between) and Ray actors 1 and 2 on a local two-CPU Ray started once; medians of
``--repeats`` interleaved repeats, ratios from the medians:

- ``synthesis``: ja-assistant's inputs synthesised with pyopenjtalk (``make_inputs``; ~0.16 s per input);
- ``judge``: the acoustic judge (Whisper base ASR + acoustic analysis) over synthesised replies of several systems
  (``judge_entries``; one task per system, so workers share the systems);
- ``cascade``: replies of the offline cascade (Whisper base → Qwen2.5-Coder-1.5B on llama.cpp → pyopenjtalk;
  ``generate_replies``) to a few inputs, with a private request cache emptied before each timing (nothing is
  answered from a cache). Skipped, saying why, when its models are not available offline.

``overhead``: CPU seconds per item that the driver, the raylet, the GCS and the actors spend on a no-op worker (from
``/proc`` and the actors' own clocks), which unlike wall-time ratios survives a busy machine. Driver memory: a no-op
worker through ``run_stage`` on Ray for 10k/30k/100k items, each in a fresh process: peak RSS (``VmHWM``,
which includes starting Ray) and the RSS just before and after the stage. The load average is printed because the
2 cores may be shared.
Run: ``python benchmarks/bench_ray.py [--stages synthesis,judge,cascade,overhead] [--items 336] [--repeats 3]
[--memory 10000,30000,100000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voxeval.data import dumps, resolve_dataset
from voxeval.errors import MissingDependencyError
from voxeval.run._executor import AsyncExecutor, Executor, ProcessExecutor, Task
from voxeval.run._inputs import dataset_input_items, make_inputs
from voxeval.run._ray import RayExecutor
from voxeval.run._stage import Stage, StageRun, run_stage

STAGES = ("synthesis", "judge", "cascade", "overhead")
TTS_INPUT_S = 0.16
"""Seconds pyopenjtalk takes per ja-assistant input on this machine (one core)."""
Timed = Callable[[Executor], float]
"""Runs a stage once on an executor in a fresh run directory; returns its wall time."""


def row(stage: str, setup: str, **fields: Any) -> dict[str, Any]:
    return {"benchmark": "ray", "stage": stage, "setup": setup, **fields}


class CpuWorker:
    """A worker that costs no CPU (it may sleep, as long as a TTS input takes); its rows carry its process and CPU
    clock (pickled by value from ``__main__``)."""

    cpu_bound = True

    def __init__(self, sleep: float = 0.0) -> None:
        self.sleep = sleep

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        time.sleep(self.sleep)
        return [{"key": payload, "status": "ok", "pid": os.getpid(), "cpu": time.process_time()}]


def ray_cpu() -> dict[str, float]:
    """CPU seconds so far of this driver and of its descendants (Ray's processes) by kind, from ``/proc``."""
    tick, parents, info = os.sysconf("SC_CLK_TCK"), {}, {}
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text() if entry.isdigit() else ""
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split() if stat else ["Z"]
        if fields[0] != "Z":  # a killed actor not yet reaped: counted by the actors' own clocks
            parents[int(entry)], info[int(entry)] = (
                int(fields[1]),
                (command, (int(fields[11]) + int(fields[12])) / tick),
            )
    kinds = {"driver": sum(resource.getrusage(resource.RUSAGE_SELF)[:2])}
    family, grew = {os.getpid()}, True
    while grew:
        more = {p for p, parent in parents.items() if parent in family} - family
        family, grew = family | more, bool(more)
    for pid in family - {os.getpid()}:
        command, cpu = info[pid]
        kind = next((k for k in ("raylet", "gcs_server") if k in command), None)
        kind = kind or ("ray workers" if command.startswith("ray::") else "other")  # started or ended: not per item
        kinds[kind] = kinds.get(kind, 0.0) + cpu
    return kinds


def overhead_row(n: int, workers: int, worker: CpuWorker) -> dict[str, Any]:
    """``n`` no-op items on ``workers`` actors: CPU milliseconds per item by process, and items per second."""
    with tempfile.TemporaryDirectory() as tmp:
        tasks = [Task((f"k{i:06d}",), f"k{i:06d}") for i in range(n)]
        executor = RayExecutor(workers=workers)
        how = StageRun(progress=False, cpu_executor=executor)
        before, started = ray_cpu(), time.perf_counter()
        rows = asyncio.run(run_stage(Stage("noop", Path(tmp) / "log.jsonl"), tasks, worker, limit=2 * workers, how=how))
        took, after = time.perf_counter() - started, ray_cpu()
    clocks: dict[int, list[float]] = {}
    for r in rows.values():
        clocks.setdefault(r["pid"], []).append(r["cpu"])
    ms = {k: round(1000 * (after.get(k, 0.0) - before.get(k, 0.0)) / n, 3) for k in ("driver", "raylet", "gcs_server")}
    actors = sum(max(c) - min(c) for c in clocks.values())  # an actor's CPU between its first and last item
    per_item = {f"{k}_cpu_ms_per_item": v for k, v in ms.items()}
    kind = f"sleeps {worker.sleep} s" if worker.sleep else "no-op"
    return row(f"overhead ({kind} worker)", f"ray, {workers} worker{'s' * (workers > 1)}", items=n,
               median_s=round(took, 2), items_per_s=round(n / took), **per_item,
               actors_cpu_ms_per_item=round(1000 * actors / n, 3), actor_calls=getattr(executor, "calls", None),
               driver_raylet_gcs_actors_cpu_ms_per_item=round(sum(ms.values()) + 1000 * actors / n, 3))  # fmt: skip


def rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process (Linux ``/proc``), in MB: now (``VmRSS``) or its peak (``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
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
            rows = asyncio.run(run_stage(stage, tasks, CpuWorker(), limit=2, how=how))
            took = time.perf_counter() - started
            assert len(rows) == n
            after = rss_mb()
    finally:
        ray.shutdown()
    # Not ``ru_maxrss``: Linux keeps it across ``exec``, so this process would report the size of the benchmark
    # process it was forked from (3.1 GB once the cascade stage has loaded its models there).
    peak = rss_mb("VmHWM")
    return row("driver memory (no-op worker, 2 actors)", f"{n} items", items=n, median_s=round(took, 1),
               items_per_s=round(n / took), driver_peak_mb=round(peak), driver_rss_before_mb=round(before),
               driver_rss_after_mb=round(after))  # fmt: skip


def setups() -> dict[str, Executor]:
    return {
        "local (async, 1 at a time)": AsyncExecutor(),
        "process pool, 1 worker": ProcessExecutor(1),
        "process pool, 2 workers": ProcessExecutor(2),
        "ray, 1 worker": RayExecutor(workers=1),
        "ray, 2 workers": RayExecutor(workers=2),
    }


def timed(stage: Callable[[StageRun], Any], executor: Executor) -> float:
    started = time.perf_counter()
    asyncio.run(stage(StageRun(progress=False, cpu_executor=executor)))
    return time.perf_counter() - started


def synthesis(items: int) -> tuple[str, int, Timed]:
    inputs = dataset_input_items([resolve_dataset("ja-assistant")])[:items]

    def once(executor: Executor) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            took = timed(lambda how: make_inputs(Path(tmp), inputs, "pyopenjtalk", how=how), executor)
            assert len((Path(tmp) / "inputs.jsonl").read_text("utf-8").splitlines()) == len(inputs)
        return took

    return "inputs (pyopenjtalk)", len(inputs), once


def judge(folder: Path, systems: int, replies: int) -> tuple[str, int, Timed]:
    """The acoustic judge over ``replies`` synthesised clips, answered by each of ``systems`` systems."""
    from voxeval.run._judgements import JudgeEntry, JudgeWorker, judge_entries
    from voxeval.speech.audio import to_input_format
    from voxeval.speech.tts import VoiceStyle, engine_from_spec
    from voxeval.style import StyleItem

    engine = engine_from_spec("pyopenjtalk")
    entries = []
    for i, sample in enumerate(resolve_dataset("ja-assistant").samples[:replies]):
        clip = folder / f"reply{i}.wav"
        clip.write_bytes(to_input_format(engine.synthesize(sample.output_text, VoiceStyle())))
        for s in range(systems):
            key = f"sys{s}/r{i}"
            item = StyleItem(
                f"r{i}", "acoustic_attributes/gender", "-", language="ja", content=sample.output_text,
                content_check="exact", requirements={"gender": "female"}, model_name=f"sys{s}",
            )  # fmt: skip
            entries.append(JudgeEntry(key, item, clip, {"key": key}))

    def once(executor: Executor) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "judgements.jsonl"
            took = timed(lambda how: judge_entries(log, entries, JudgeWorker("acoustic"), how=how), executor)
            rows = [x for x in log.read_text("utf-8").splitlines() if x]
            assert len(rows) == len(entries) and '"failed"' not in "".join(rows), rows[:2]
        return took

    return f"acoustic judge ({systems} systems × {replies} replies)", len(entries), once


def cascade_unavailable() -> str | None:
    """Why the offline cascade cannot run here (its models are not installed or cached), else None."""
    try:
        import llama_cpp  # noqa: F401

        from voxeval.llm.chat._llamacpp import LOCAL_MODELS, weights_path
        from voxeval.speech.asr._whisper import whisper_base_dir

        weights_path(LOCAL_MODELS["qwen2.5-1.5b"])
        whisper_base_dir()
    except (ImportError, MissingDependencyError) as exc:
        return f"the offline cascade's models are not available offline on this machine: {exc}"
    return None


def cascade(folder: Path, items: int) -> tuple[str, int, Timed]:
    """The offline cascade's reply stage over ``items`` inputs synthesised once into ``folder/base``."""
    from voxeval.run._replies import dataset_reply_items, generate_replies
    from voxeval.systems import default_prompts, system_from_spec

    dataset = resolve_dataset("ja-assistant")
    base = folder / "base"
    inputs = asyncio.run(make_inputs(base, dataset_input_items([dataset])[:items], "pyopenjtalk"))
    replies = dataset_reply_items([dataset])[:items]
    requests = Path(os.environ["VOXEVAL_CACHE"]) / "requests"

    def once(executor: Executor) -> float:
        run_dir = folder / "run"
        shutil.rmtree(run_dir, ignore_errors=True)
        shutil.copytree(base, run_dir)
        shutil.rmtree(requests, ignore_errors=True)  # every reply computed, none from the request cache
        system = system_from_spec("cascade")
        prompts = default_prompts()
        took = timed(lambda how: generate_replies(run_dir, replies, [system], inputs, prompts, how=how), executor)
        rows = (run_dir / "replies.jsonl").read_text("utf-8").splitlines()
        assert len(rows) == len(replies) and '"failed"' not in "".join(rows), rows[:2]
        return took

    return f"cascade replies ({items} inputs)", len(replies), once


def stage_rows(name: str, items: int, once: Timed, repeats: int) -> list[dict[str, Any]]:
    executors = setups()
    times: dict[str, list[float]] = {setup: [] for setup in executors}
    for _ in range(repeats):  # interleaved, so load from other users hits every setup alike
        for setup, executor in executors.items():
            times[setup].append(once(executor))
    median = {setup: statistics.median(t) for setup, t in times.items()}
    rows = [
        row(name, setup, items=items, median_s=round(m, 2), runs_s=" ".join(f"{t:.2f}" for t in times[setup]))
        for setup, m in median.items()
    ]
    local, ray1, ray2 = median["local (async, 1 at a time)"], median["ray, 1 worker"], median["ray, 2 workers"]
    proc1, proc2 = median["process pool, 1 worker"], median["process pool, 2 workers"]
    ratios = f"{name} ratios"
    rows.append(row(ratios, "ray 2 vs 1 worker (speed-up, target ≥ 1.8)", median_s=round(ray1 / ray2, 3)))
    rows.append(row(ratios, "ray 1 worker vs local (time ratio, target ≤ 1.10)", median_s=round(ray1 / local, 3)))
    rows.append(row(ratios, "process 2 vs 1 worker (speed-up, same machine)", median_s=round(proc1 / proc2, 3)))
    return rows


def run_stages(args: argparse.Namespace, stages: list[str]) -> None:
    import ray

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        private_cache(folder / "cache")  # before Ray starts: its workers inherit the environment
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
        try:
            plans: list[Callable[[], tuple[str, int, Timed]]] = []
            if "synthesis" in stages:
                plans.append(lambda: synthesis(args.items))
            if "judge" in stages:
                plans.append(lambda: judge(folder, args.judge_systems, args.judge_replies))
            if "cascade" in stages:
                why = cascade_unavailable()
                if why is None:
                    plans.append(lambda: cascade(folder, args.cascade_items))
                else:
                    print(dumps(row("cascade replies", "skipped", error=why)), flush=True)
            for plan in plans:
                for line in stage_rows(*plan(), args.repeats):
                    print(dumps(line), flush=True)
            if "overhead" in stages:
                for workers in (1, 2):
                    print(dumps(overhead_row(args.overhead, workers, CpuWorker())), flush=True)
                sleeping = CpuWorker(TTS_INPUT_S)  # as long as a TTS input: how much of the per-call cost batches save
                print(dumps(overhead_row(max(1, args.overhead // 10), 2, sleeping)), flush=True)
        finally:
            ray.shutdown()


def private_cache(root: Path) -> None:
    """``$VOXEVAL_CACHE`` in ``root``: the real cache's models (linked, not copied), an empty request cache."""
    from voxeval.paths import cache_dir

    models = cache_dir("models")
    root.mkdir(parents=True)
    (root / "models").symlink_to(models, target_is_directory=True)
    os.environ["VOXEVAL_CACHE"] = str(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stages", default=",".join(STAGES), help=f"comma-separated, of: {', '.join(STAGES)}")
    parser.add_argument("--items", type=int, default=336, help="inputs to synthesise (default: all of ja-assistant)")
    parser.add_argument("--judge-systems", type=int, default=4, help="systems whose replies the judge stage judges")
    parser.add_argument("--judge-replies", type=int, default=8, help="replies per system for the judge stage")
    parser.add_argument("--cascade-items", type=int, default=16, help="inputs the offline cascade answers")
    parser.add_argument("--overhead", type=int, default=3000, help="no-op items for the CPU-per-item figure")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory", default="10000,30000,100000", help="item counts for the driver-memory runs")
    parser.add_argument("--memory-run", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--memory-only", action="store_true", help="skip every stage; only the driver-memory runs")
    args = parser.parse_args()
    if args.memory_run:
        print(dumps(driver_memory(args.memory_run)))
        return
    stages = [] if args.memory_only else [s for s in args.stages.split(",") if s]
    unknown = set(stages) - set(STAGES)
    if unknown:
        parser.error(f"unknown stages {', '.join(sorted(unknown))}; choose from {', '.join(STAGES)}")
    if stages:
        print(dumps(row("machine", f"load average before: {os.getloadavg()}")))
        run_stages(args, stages)
        print(dumps(row("machine", f"load average after: {os.getloadavg()}")))
    for n in [int(x) for x in args.memory.split(",") if x]:
        done = subprocess.run([sys.executable, __file__, "--memory-run", str(n)], capture_output=True, text=True)
        lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
        failed = row("driver memory", f"{n} items", error=done.stderr.strip().splitlines()[-1:])
        print(lines[-1] if lines else dumps(failed), flush=True)


if __name__ == "__main__":
    main()
