"""The thread budget of a CPU worker process: what executors set, what engines read."""

from __future__ import annotations

import asyncio

import pytest

from tests.run.ray_workers import ThreadsWorker
from voxeval.run._executor import ProcessExecutor, Task
from voxeval.workers import THREADS_ENV, cpu_threads


def test_engines_keep_their_default_in_process_and_use_the_budget_an_executor_set(monkeypatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert cpu_threads(2) == 2
    monkeypatch.setenv(THREADS_ENV, "1")
    assert cpu_threads(2) == 1
    monkeypatch.setenv(THREADS_ENV, "not a number")
    assert cpu_threads(2) == 2


@pytest.mark.parametrize("processes", [1, 2])
def test_pool_processes_share_the_cores(monkeypatch, processes) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)

    async def rows() -> list[dict]:
        out = []
        async for _, outcome in ProcessExecutor(processes).run(
            ThreadsWorker(), [Task(("a",), "a"), Task(("b",), "b")], 2
        ):
            assert isinstance(outcome, list)
            out += outcome
        return out

    assert {r["threads"] for r in asyncio.run(rows())} == {2 // processes}
