"""The stage runner: resume, retry, failure records, bounded concurrency, executors, the run-directory lock."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.run.stage_workers import EchoWorker
from voxeval.errors import ConfigError
from voxeval.run._executor import ProcessExecutor, Task, executor_from_name
from voxeval.run._lock import RunLock
from voxeval.run._stage import Stage, StageRun, run_stage


def tasks(*names: str) -> list[Task[str]]:
    return [Task((n,), n, {"id": n}) for n in names]


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_resume_skips_done_and_retry_reruns_failed_only(tmp_path) -> None:
    stage = Stage("t", tmp_path / "log.jsonl")
    worker = EchoWorker()
    rows = asyncio.run(run_stage(stage, tasks("a", "fail", "raise"), worker, limit=2))
    assert {k: r["status"] for k, r in rows.items()} == {"a": "ok", "fail": "failed", "raise": "failed"}
    # A worker that raised is recorded with the task's fields and a one-line error, never dropped.
    assert rows["raise"] == {"key": "raise", "id": "raise", "status": "failed", "error": "ValueError: worker broke"}
    worker.calls.clear()
    asyncio.run(run_stage(stage, tasks("a", "fail", "raise", "b"), worker, limit=2))
    assert worker.calls == ["b"]
    asyncio.run(run_stage(stage, tasks("a", "fail", "raise", "b"), worker, limit=2, how=StageRun(retry_failed=True)))
    assert sorted(worker.calls) == ["b", "fail", "raise"]
    assert len(lines(tmp_path / "log.jsonl")) == 6  # a, fail, raise, b, then the two retries


def test_errors_stop_a_stage_that_does_not_record_failures(tmp_path) -> None:
    stage = Stage("t", tmp_path / "log.jsonl", record_failures=False)
    with pytest.raises(ValueError, match="worker broke"):
        asyncio.run(run_stage(stage, tasks("a", "raise"), EchoWorker(delay=0.01), limit=1))


def test_concurrency_is_bounded(tmp_path) -> None:
    worker = EchoWorker(delay=0.02)
    asyncio.run(run_stage(Stage("t", tmp_path / "log.jsonl"), tasks(*"abcdefgh"), worker, limit=3))
    assert worker.in_flight[1] == 3


def test_a_worker_that_forgets_a_key_gets_a_failure_row(tmp_path) -> None:
    batch = [Task(("a", "missing"), "a")]
    rows = asyncio.run(run_stage(Stage("t", tmp_path / "log.jsonl"), batch, EchoWorker(), limit=1))
    assert rows["a"]["status"] == "ok" and rows["missing"]["status"] == "failed"
    assert "no row for this key" in rows["missing"]["error"]


def test_process_executor_sets_up_once_per_process_and_the_driver_writes(tmp_path) -> None:
    how = StageRun(progress=False, cpu_executor=ProcessExecutor(2))
    names = [f"s{i}" for i in range(8)]
    rows = asyncio.run(run_stage(Stage("t", tmp_path / "log.jsonl"), tasks(*names), EchoWorker(True), limit=2, how=how))
    assert set(rows) == set(names)
    pids = {r["pid"] for r in rows.values()}
    assert 1 <= len(pids) <= 2 and all(r["setups"] == 1 for r in rows.values())
    import os

    assert os.getpid() not in pids  # the work ran in the pool; the rows were appended here, by the driver
    assert len(lines(tmp_path / "log.jsonl")) == 8


def test_unknown_executor_is_a_config_error() -> None:
    assert executor_from_name("process").name == "process"
    with pytest.raises(ConfigError, match="unknown executor 'spark'"):
        executor_from_name("spark")


def test_lock_refuses_a_second_writer_naming_the_holder(tmp_path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from voxeval.run._lock import RunLock\n"
         f"with RunLock(Path({str(tmp_path)!r})):\n    print('held', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError, match=rf"in use by pid {holder.pid} on host \S+"), RunLock(tmp_path):
            pass
    finally:
        holder.kill()
        holder.wait()
    with RunLock(tmp_path):  # released when its holder died
        pass


def test_two_runs_on_one_folder_do_not_both_work(tmp_path, capsys) -> None:
    from voxeval.cli import main

    out = tmp_path / "run"
    args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--system", "python:tests.run.doubles:echo_gold"]
    with RunLock(out):
        assert main([*args, "--annotator", "gold", "--out", str(out), "--quiet"]) == 2
    assert "is in use by pid" in capsys.readouterr().err
    assert not (out / "replies.jsonl").exists()


def test_a_run_with_the_process_executor_writes_what_the_async_one_writes(tmp_path) -> None:
    from voxeval.cli import main

    def run(out: Path, executor: str) -> dict[str, dict]:
        args = ["run", "--dataset", "ja-assistant", "--limit", "3", "--system", "python:tests.run.doubles:echo_gold"]
        assert main([*args, "--annotator", "gold", "--out", str(out), "--quiet", "--executor", executor]) == 0
        return {r["id"]: r for r in lines(out / "scores.jsonl")}

    assert run(tmp_path / "process", "process") == run(tmp_path / "async", "async")
    made = {r["key"]: r["audio"] for r in lines(tmp_path / "process" / "inputs.jsonl")}
    assert made == {r["key"]: r["audio"] for r in lines(tmp_path / "async" / "inputs.jsonl")}


def test_typed_settings_keep_the_config_format_and_fingerprint_of_earlier_runs() -> None:
    import hashlib

    from voxeval.run import RunSettings

    settings = RunSettings("style", ("acoustic-ja",), ("s",), "acoustic", "auto", abilities=("speed", "pitch"))
    legacy = {
        "benchmark": "style", "datasets": ["acoustic-ja"], "systems": ["s"], "annotator": "acoustic", "tts": "auto",
        "split": None, "system_prompt": "", "user_prompt": "", "extra": {"abilities": ["pitch", "speed"]},
    }  # fmt: skip
    assert json.loads(json.dumps(settings.to_json())) == legacy
    blob = json.dumps(legacy, sort_keys=True, ensure_ascii=False).encode("utf-8")
    assert settings.fingerprint() == hashlib.sha256(blob).hexdigest()[:16]
    assert RunSettings.from_json(legacy) == RunSettings(
        "style", ("acoustic-ja",), ("s",), "acoustic", "auto", abilities=("pitch", "speed")
    )
