"""Executors: where the work items of a stage run. The stage runner is the single writer of the logs.

An executor takes a :class:`Worker` and its :class:`Task` s and streams back each task's result as it finishes,
with at most ``limit`` tasks running at once and a bounded number in flight (the Ray executor queues a few more
per actor so that none waits for the driver). It never writes files of its own; the driver (``run_stage``) does.
That contract is all a new executor (e.g. a Ray cluster) must honour: submit tasks, stream results, bound the
in-flight count, call :meth:`Worker.setup` once per worker process before its first task.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from voxeval.errors import ConfigError

P = TypeVar("P")
P_contra = TypeVar("P_contra", contravariant=True)
Row = dict[str, Any]
"""One line of a stage log."""
Outcome = list[Row] | Exception
"""What a task produced: its rows, or the error it raised."""


@dataclass(frozen=True)
class Task(Generic[P]):
    """One unit of work of a stage: the log keys it writes and what the worker needs to write them."""

    keys: tuple[str, ...]
    """Keys of the rows this task writes (one, or a batch's)."""
    payload: P
    """The worker's input; picklable when the stage may run out of process."""
    fields: Mapping[str, Any] = field(default_factory=dict)
    """Identifying fields copied into a failure row when the worker raises (e.g. dataset, system, id)."""
    key_fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per key, identifying fields that differ between the rows of a batch (a dialogue's turn ids), over ``fields``."""


class Worker(Protocol[P_contra]):
    """What a stage does with one task's payload. Picklable when it declares ``cpu_bound``."""

    cpu_bound: bool
    """Runs in the CPU executor (a process pool or Ray actors) instead of the event loop. A worker may also say
    ``gpus: float`` (GPUs one worker can use; the Ray executor asks for them when the cluster has any)."""

    def setup(self) -> None:
        """Load what the worker needs (a model, an engine) once per worker process, before its first task."""

    async def __call__(self, payload: P_contra, /) -> list[Row]:
        """The rows of one task (each with the log's key field)."""


class Executor(Protocol):
    """Runs a worker on tasks and streams back ``(task, outcome)`` as each finishes."""

    name: str
    """Name given on the command line (``--executor``)."""

    def run(self, worker: Worker[P], tasks: Sequence[Task[P]], limit: int) -> AsyncIterator[tuple[Task[P], Outcome]]:
        """Run every task, at most ``limit`` at once and a bounded number in flight; yield each task with its rows
        or its error."""
        ...


class AsyncExecutor:
    """In-process: tasks are coroutines on the event loop (network calls, light work)."""

    name = "async"

    async def run(
        self, worker: Worker[P], tasks: Sequence[Task[P]], limit: int
    ) -> AsyncIterator[tuple[Task[P], Outcome]]:
        """Run tasks concurrently under a semaphore; yield them in the order they finish."""
        worker.setup()
        gate = asyncio.Semaphore(max(1, limit))

        async def one(task: Task[P]) -> tuple[Task[P], Outcome]:
            async with gate:
                try:
                    return task, await worker(task.payload)
                except Exception as exc:  # handed to the runner, which records or raises it
                    return task, exc

        for finished in asyncio.as_completed([one(t) for t in tasks]):
            yield await finished


_WORKER: Any = None
"""The worker of this pool process, set up once by :func:`_start`."""
_LOOP: asyncio.AbstractEventLoop | None = None
"""The pool process's event loop, kept for its life (``asyncio.run`` per task cost ~0.4 ms)."""


def _start(worker: Any, threads: int) -> None:
    global _WORKER, _LOOP
    import os

    from voxeval.workers import THREADS_ENV, die_with_parent

    die_with_parent()  # a killed driver must not leave workers blocked on the task queue forever
    os.environ[THREADS_ENV] = str(threads)  # engines loaded by setup() share the cores with the other processes
    worker.setup()
    _WORKER, _LOOP = worker, asyncio.new_event_loop()


def _call(payload: Any) -> list[Row]:
    assert _LOOP is not None, "the pool initializer sets the loop"
    rows: list[Row] = _LOOP.run_until_complete(_WORKER(payload))
    return rows


class ProcessExecutor:
    """A pool of worker processes for CPU-bound stages (TTS, ASR, local models, acoustic analysis).

    Each process unpickles the worker and calls its ``setup`` once (the "load once per worker" hook), then runs
    tasks; results come back to the driver, which writes the logs. Processes are started with ``spawn``, so a
    worker must be picklable and hold specs, not loaded models.
    """

    name = "process"

    def __init__(self, processes: int | None = None) -> None:
        import os

        self.processes = processes or max(1, (os.cpu_count() or 1))

    async def run(
        self, worker: Worker[P], tasks: Sequence[Task[P]], limit: int
    ) -> AsyncIterator[tuple[Task[P], Outcome]]:
        """Submit tasks to the pool, at most ``limit`` in flight; yield each as it finishes."""
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor

        if not tasks:
            return
        size = max(1, min(self.processes, limit, len(tasks)))
        threads = max(1, (os.cpu_count() or 1) // size)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(size, mp_context=context, initializer=_start, initargs=(worker, threads)) as pool:
            todo = iter(tasks)
            running: dict[asyncio.Future[list[Row]], Task[P]] = {}

            def fill() -> None:
                for task in todo:
                    running[asyncio.wrap_future(pool.submit(_call, task.payload))] = task
                    if len(running) >= max(1, limit):
                        return

            fill()
            while running:
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    task = running.pop(future)
                    error = future.exception()
                    if error is not None and not isinstance(error, Exception):
                        raise error
                    yield task, (error if isinstance(error, Exception) else future.result())
                fill()


EXECUTORS = ("async", "process", "ray")
"""Names accepted by ``--executor``."""


def executor_from_name(name: str, *, ray_address: str | None = None) -> Executor:
    """The executor for CPU-bound stages named on the command line (network stages always run in-process).

    ``ray`` joins the cluster at ``ray_address`` (else ``$RAY_ADDRESS``, else a local Ray on this machine's CPUs);
    it needs the ``distributed`` extra, imported only when a stage first runs on it.
    """
    if name == "async":
        return AsyncExecutor()
    if name == "process":
        return ProcessExecutor()
    if name == "ray":
        from voxeval.run._ray import RayExecutor

        return RayExecutor(ray_address)
    raise ConfigError(f"unknown executor {name!r}; choose one of: {', '.join(EXECUTORS)}")
