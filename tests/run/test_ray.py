"""The Ray executor on a local two-CPU Ray (no network): same rows as the local executors, workers that die lose and
duplicate nothing, a killed driver resumes. One Ray session is shared by the module and shut down after it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.run.doubles import slow_dataset
from tests.run.ray_workers import BrokenSetup, DyingWorker, GpuWorker, SlowWorker, WritesToRunDir
from tests.run.stage_workers import EchoWorker
from voxeval.run._executor import Task, executor_from_name
from voxeval.run._ray import RayExecutor
from voxeval.run._stage import Stage, StageRun, run_stage

ray = pytest.importorskip("ray", reason="the Ray executor's tests need voxeval[distributed] (in the test extra)")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster() -> object:
    """A local Ray with two CPUs (and one declared GPU, a resource count only) for the whole module; no Ray process
    outlives it."""
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def tasks(*names: str) -> list[Task[str]]:
    return [Task((n,), n, {"id": n}) for n in names]


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def stage_on_ray(path: Path, names: list[str], worker: object, limit: int = 4, **options: object) -> dict:
    how = StageRun(progress=False, cpu_executor=RayExecutor(**options))  # type: ignore[arg-type]
    return asyncio.run(run_stage(Stage("t", path), tasks(*names), worker, limit=limit, how=how))  # type: ignore[arg-type]


def test_actors_set_up_once_and_the_driver_writes_every_row(cluster, tmp_path, capsys) -> None:
    names = [f"s{i}" for i in range(12)] + ["fail", "raise"]
    how = StageRun(progress=True, cpu_executor=RayExecutor())
    stage = Stage("synth", tmp_path / "log.jsonl")
    rows = asyncio.run(run_stage(stage, tasks(*names), EchoWorker(cpu_bound=True), limit=4, how=how))
    ok = {k: r for k, r in rows.items() if r["status"] == "ok"}
    pids = {r["pid"] for r in ok.values()}
    assert 1 <= len(pids) <= 2 and os.getpid() not in pids  # at most one actor per CPU; none is the driver
    assert all(r["setups"] == 1 for r in ok.values())  # the model is loaded once per actor, not per item
    # A worker error comes back as the local executors record it: the same one-line failure row.
    assert rows["raise"] == {"key": "raise", "id": "raise", "status": "failed", "error": "ValueError: worker broke"}
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)
    # Progress reports items per second and busy workers (not a terminal: one summary line).
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.fullmatch(r"synth: 14/14 done, 2 failed, [\d.]+s, [\d.]+ items/s, up to [12]/2 workers busy", line), line


def test_a_worker_gets_a_gpu_if_it_can_use_one_and_its_cpus_as_its_thread_budget(cluster, tmp_path) -> None:
    # Whisper and llama.cpp take their thread count from voxeval.workers.cpu_threads (2 in-process on this machine):
    # two one-CPU actors spinning two threads each on two cores would slow each other down. One worker reports both
    # its GPU ids and its thread budget, so two pools check both (each pool start costs seconds).
    rows = stage_on_ray(tmp_path / "gpu.jsonl", ["a", "b", "c"], GpuWorker())
    assert all(r["gpus"] == ["0"] for r in rows.values())  # two actors share the cluster's one GPU, half each
    assert {(r["threads"], r["omp"]) for r in rows.values()} == {(1, "1")}
    rows = stage_on_ray(tmp_path / "cpu.jsonl", ["a"], GpuWorker(gpus=0.0), cpus=2.0)
    assert rows["a"]["gpus"] == [] and rows["a"]["threads"] == 2


def test_one_in_flight_at_a_time_uses_one_actor(cluster, tmp_path) -> None:
    rows = stage_on_ray(tmp_path / "log.jsonl", [f"s{i}" for i in range(6)], EchoWorker(cpu_bound=True), limit=1)
    assert len({r["pid"] for r in rows.values()}) == 1


def test_a_worker_killed_mid_task_costs_only_a_retry(cluster, tmp_path) -> None:
    names = [f"s{i}" for i in range(10)] + ["die-once-a", "die-once-b"]
    rows = stage_on_ray(tmp_path / "log.jsonl", names, DyingWorker(tmp_path))
    assert (tmp_path / "die-once-a.died").exists() and (tmp_path / "die-once-b.died").exists()  # they did die
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(names, "ok")
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)  # nothing lost, nothing twice


@pytest.mark.parametrize("batch", [None, 3])
def test_a_worker_process_killed_from_outside_loses_and_duplicates_nothing(cluster, tmp_path, batch) -> None:
    names = [f"s{i}" for i in range(8)]
    how = StageRun(progress=False, cpu_executor=RayExecutor(batch=batch))

    async def kill_the_worker_of_s3() -> int:
        marker = tmp_path / "s3.pid"
        while not marker.exists():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        pid = int(marker.read_text())
        os.kill(pid, signal.SIGKILL)  # as the OOM killer or a lost node would
        return pid

    async def both() -> tuple[dict, int]:
        stage = run_stage(Stage("t", tmp_path / "log.jsonl"), tasks(*names), SlowWorker(tmp_path), limit=4, how=how)
        return await asyncio.gather(stage, kill_the_worker_of_s3())

    rows, killed = asyncio.run(both())
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(names, "ok")
    assert rows["s3"]["pid"] != killed  # s3 was redone by the restarted actor
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)


def test_an_item_that_always_kills_its_worker_is_recorded_failed_and_the_others_are_not_charged(
    cluster, tmp_path
) -> None:
    # With one attempt, a task queued behind the dying one on the same actor must still succeed: only the task
    # that was running is charged for a death.
    names = [f"s{i}" for i in range(8)] + ["die"]
    rows = stage_on_ray(tmp_path / "log.jsonl", names, DyingWorker(tmp_path), attempts=1)
    assert rows["die"]["status"] == "failed"
    assert rows["die"]["error"].startswith("WorkerLost: the worker process died 1 times on this item")
    assert all(rows[n]["status"] == "ok" for n in names if n != "die"), rows
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)


def test_fast_tasks_go_several_to_an_actor_call_and_every_row_comes_back_once(cluster, tmp_path) -> None:
    names = [f"s{i}" for i in range(300)]
    executor = RayExecutor()
    how = StageRun(progress=False, cpu_executor=executor)
    rows = asyncio.run(run_stage(Stage("t", tmp_path / "log.jsonl"), tasks(*names), EchoWorker(cpu_bound=True),
                                 limit=2, how=how))  # fmt: skip
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(names, "ok")
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)
    # No-op tasks take far under BATCH_SECONDS: after the first calls (one task each, until one has been timed),
    # calls carry up to MAX_BATCH tasks.
    assert executor.calls <= len(names) // 4, executor.calls


def test_a_batch_whose_worker_dies_is_retried_one_task_per_call_and_nobody_is_charged(cluster, tmp_path) -> None:
    # Batches of 4: die-once-a runs in a call with s8 and s9 and kills its worker once. With one attempt, a charge
    # would record it failed; it is not charged (which task of the batch killed the worker is unknown), it and its
    # batch-mates are rerun one per call, and all succeed.
    names = [f"s{i}" for i in range(10)] + ["die-once-a"]
    rows = stage_on_ray(tmp_path / "log.jsonl", names, DyingWorker(tmp_path), attempts=1, batch=4)
    assert (tmp_path / "die-once-a.died").exists()
    assert {k: r["status"] for k, r in rows.items()} == dict.fromkeys(names, "ok")
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)


def test_a_task_that_kills_every_worker_in_a_batch_is_charged_only_when_it_runs_alone(cluster, tmp_path) -> None:
    names = [f"s{i}" for i in range(7)] + ["die"]
    rows = stage_on_ray(tmp_path / "log.jsonl", names, DyingWorker(tmp_path), attempts=2, batch=4)
    assert rows["die"]["error"].startswith("WorkerLost: the worker process died 2 times on this item")
    assert all(rows[n]["status"] == "ok" for n in names if n != "die"), rows
    assert Counter(r["key"] for r in lines(tmp_path / "log.jsonl")) == Counter(names)


def test_a_setup_error_stops_the_stage_with_that_error(cluster, tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="model file missing"):
        stage_on_ray(tmp_path / "log.jsonl", ["a", "b"], BrokenSetup())
    assert not (tmp_path / "log.jsonl").exists() or not lines(tmp_path / "log.jsonl")


def test_a_run_directory_the_nodes_cannot_see_stops_the_stage_naming_the_node(cluster, tmp_path) -> None:
    from voxeval.errors import ConfigError

    with pytest.raises(ConfigError, match=r"run directory .*missing is not visible on Ray node \S+: a cluster needs"):
        stage_on_ray(tmp_path / "log.jsonl", ["a"], WritesToRunDir(tmp_path / "missing"))


def test_the_executor_is_registered_and_reads_ray_address(monkeypatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    executor = executor_from_name("ray")
    assert executor.name == "ray" and isinstance(executor, RayExecutor) and executor.address == "10.0.0.1:6379"
    assert RayExecutor("10.0.0.2:6379").address == "10.0.0.2:6379"  # --ray-address wins over the variable


def test_without_ray_installed_the_error_names_the_extra(monkeypatch) -> None:
    from voxeval.errors import MissingDependencyError
    from voxeval.run._ray import import_ray

    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=r"--executor ray needs .*pip install 'voxeval\[distributed\]'"):
        import_ray()


def test_ray_address_without_the_ray_executor_is_refused(capsys) -> None:
    from voxeval.cli import main

    args = ["run", "--system", "python:tests.run.doubles:echo_gold", "--out", "x", "--ray-address", "h:1"]
    assert main(args) == 2
    assert "--ray-address needs --executor ray" in capsys.readouterr().err


def _run_args(out: Path, dataset: Path | str, executor: str, *extra: str) -> list[str]:
    return [
        "run", "--dataset", str(dataset), "--system", "python:tests.run.doubles:echo_gold", "--annotator", "gold",
        "--out", str(out), "--quiet", "--executor", executor, *extra,
    ]  # fmt: skip


def test_a_killed_driver_resumes_to_the_scores_of_an_uninterrupted_run(cluster, tmp_path) -> None:
    from voxeval.cli import main

    dataset, total = slow_dataset(tmp_path / "slow.jsonl", 8), 8
    out = tmp_path / "killed"
    address = cluster.get_runtime_context().gcs_address
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    command = [sys.executable, "-m", "voxeval", *_run_args(out, dataset, "ray", "--ray-address", address)]
    driver = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    log, deadline, done = out / "inputs.jsonl", time.monotonic() + 120, 0
    try:
        while time.monotonic() < deadline and driver.poll() is None:
            done = len(log.read_text("utf-8").splitlines()) if log.exists() else 0
            if done >= 2:
                break
            time.sleep(0.05)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    assert 2 <= done < total, f"the driver was to be killed mid-stage, with {done} of {total} inputs written"
    assert main(_run_args(out, dataset, "ray")) == 0  # the same command, resumed
    keys = [r["key"] for r in lines(log)]
    assert len(keys) == len(set(keys)) == total  # every input once: none lost, none written twice
    assert main(_run_args(tmp_path / "whole", dataset, "async")) == 0
    scores = [{r["id"]: r for r in lines(d / "scores.jsonl")} for d in (out, tmp_path / "whole")]
    assert scores[0] == scores[1] and len(scores[0]) == total


def test_a_run_on_ray_writes_what_the_run_on_the_event_loop_writes(cluster, tmp_path, capsys) -> None:
    """One run puts a stage of each kind on the actor pool: inputs (TTS), the replies of the offline cascade (it
    computes locally: its TTS; one copy of the system per actor) and the offline annotator (a model-loading stage:
    the encoder loads once per actor). It writes the inputs, replies, annotations, scores and summary of the
    in-process run. One run for all three, since each run on Ray starts a pool per stage. The process executor is
    compared with the async one by tests/run/test_stage.py."""
    from voxeval.cli import main
    from voxeval.testing.mockserver import MockServer

    def run(out: Path, executor: str) -> tuple[dict, str]:
        args = ["run", "--dataset", "ja-assistant", "--limit", "4", "--system", spec, "--annotator", "offline"]
        args += ["--reply-text", "model", "--reply-asr", "none"]  # about the cascade's replies, not reply ASR
        assert main([*args, "--out", str(out), "--no-cache", "--executor", executor]) == 0
        written = {
            "scores": {r["id"]: r for r in lines(out / "scores.jsonl")},
            "replies": {r["id"]: (r["status"], r["text"]) for r in lines(out / "replies.jsonl")},
            "reply audio": {r["id"]: (out / r["audio"]).read_bytes() for r in lines(out / "replies.jsonl")},
            "inputs": {r["key"]: r["audio"] for r in lines(out / "inputs.jsonl")},
            "steps": {r["key"]: r["steps"] for r in lines(out / "annotations.jsonl")},
            "summary": json.loads((out / "summary.json").read_text()),
        }
        return written, capsys.readouterr().err

    with MockServer() as server:
        spec = f"cascade:asr=oracle,llm=openai-compat:m@{server.openai_base_url},tts=pyopenjtalk"
        (on_ray, progress), (local, _) = run(tmp_path / "ray", "ray"), run(tmp_path / "async", "async")
    for what in on_ray:
        assert on_ray[what] == local[what], what
    assert len(on_ray["scores"]) == len(on_ray["steps"]) == len(on_ray["inputs"]) == 4
    for stage in ("inputs", "replies cascade", "annotations offline"):  # each ran on the actor pool
        line = next(x for x in progress.splitlines() if x.startswith(stage))
        assert re.search(r"up to [12]/2 workers busy", line), line
