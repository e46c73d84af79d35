"""Pool workers die with their parent: a SIGKILL of ``voxeval synth --workers 2`` leaves no orphans."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find child processes")


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _kill_and_check(proc: subprocess.Popen[bytes], workers: int, sig: int) -> None:
    assert _wait_for(lambda: len(_children(proc.pid)) >= workers, 120), "workers never started"
    time.sleep(0.5)
    children = _children(proc.pid)
    os.kill(proc.pid, sig)
    proc.wait(10)
    try:
        assert _wait_for(lambda: not any(_alive(c) for c in children), 10), "workers outlived their parent"
    finally:
        for child in children:
            if _alive(child):
                os.kill(child, signal.SIGKILL)


BLOCKED_POOL = textwrap.dedent(
    """
    import time, multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from voxeval.workers import die_with_parent

    if __name__ == "__main__":
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(2, mp_context=ctx, initializer=die_with_parent) as pool:
            futures = [pool.submit(time.sleep, 600) for _ in range(2)]
            [f.result() for f in futures]
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_pool_workers_blocked_in_a_task_die_with_the_parent(tmp_path: Path, sig: int) -> None:
    script = tmp_path / "pool.py"
    script.write_text(BLOCKED_POOL)
    proc = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path)
    _kill_and_check(proc, 2, sig)


def test_killing_synth_leaves_no_orphaned_workers(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "voxeval", "synth", "ja-assistant", "--workers", "2", "--out", str(tmp_path / "o")]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_and_check(proc, 2, signal.SIGKILL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killing_a_run_with_the_process_executor_leaves_no_orphaned_workers(tmp_path: Path, sig: int) -> None:
    command = [sys.executable, "-m", "voxeval", "run", "--dataset", "ja-assistant", "--executor", "process"]
    command += ["--system", "python:tests.run.doubles:silent", "--annotator", "gold", "--out", str(tmp_path / "o")]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_and_check(proc, 2, sig)
