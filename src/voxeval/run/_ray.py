"""The Ray executor (``--executor ray``): a stage's CPU-bound work on a pool of Ray actors, on one machine or a cluster.

Each actor holds one unpickled worker and calls its ``setup()`` once (again only if Ray restarts the actor after
its process died), so a model is loaded once per actor, not per item. Every CPU-bound worker of voxeval loads
something (a TTS engine, the offline annotator, the acoustic judge's ASR), so all run on actors; a stateless
Ray task per item would reload them each time. Actors declare ``num_cpus`` (one each by default) and ``num_gpus``
when the worker says it can use a GPU (``gpus`` attribute) and the cluster has one.

The driver stays the single writer: each actor has at most ``QUEUE_DEPTH`` calls queued; a call carries one task,
or a small batch of fast tasks (as many as take about ``BATCH_SECONDS``, measured as the stage runs; at most
``MAX_BATCH``), since each call costs ~1 ms of driver and actor CPU. Finished calls are collected with ``ray.wait``
and their tasks yielded to the stage runner, which appends their rows, so the executor holds at most
``actors × QUEUE_DEPTH × MAX_BATCH`` tasks whatever the stage's size; ``limit`` caps the actors (tasks running at
once). Work items carry paths, not audio: the run directory and the datasets must be on storage every node sees at
the same path (docs/scale.md). An actor whose process dies (killed, out of memory, node lost) is restarted by Ray
and probed before it gets more calls; the call it was running is resubmitted one task per call (a task that ran
alone when it died is charged an attempt; a batch's tasks are not, since which one killed it is unknown), the
calls queued behind it are resubmitted without charge; a task charged ``attempts`` deaths is yielded as a
:class:`WorkerLost` error, which the runner records as failed. No task is yielded twice. Each actor sets
``$VOXEVAL_CPU_THREADS`` to the CPUs it holds (``voxeval.workers.cpu_threads``; Ray itself sets
``OMP_NUM_THREADS``), so a one-CPU actor's Whisper or llama.cpp runs one thread.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from voxeval.errors import ConfigError, MissingDependencyError
from voxeval.run._executor import Outcome, Task, Worker
from voxeval.run._ray_connect import connect_ray
from voxeval.workers import THREADS_ENV

P = TypeVar("P")
RAY_ADDRESS_ENV = "RAY_ADDRESS"
"""Environment variable naming the cluster to join when ``--ray-address`` is not given."""
QUEUE_DEPTH = 2
"""Calls queued on one actor at once: the next is there when one finishes, so no actor waits on the driver."""
BATCH_SECONDS = 0.5
"""Work one actor call aims at: tasks faster than this go several to a call (each call costs ~1 ms of driver and
actor CPU), so results still reach the driver about twice a second per actor."""
MAX_BATCH = 16
"""Most tasks in one call: with ``QUEUE_DEPTH`` it bounds what is in flight per actor (and lost if it dies)."""


def import_ray() -> Any:
    """The ``ray`` module, or an error naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("--executor ray", "distributed", "ray") from None
    return ray


class WorkerLost(RuntimeError):
    """A task whose worker process died under it on every attempt."""


class StageActor:
    """The body of one Ray actor: one worker, set up lazily once per actor process (so again after a restart)."""

    def __init__(self, worker: Any, cwd: str, threads: int = 1) -> None:
        if os.path.isdir(cwd):
            os.chdir(cwd)  # relative paths (``--out runs/x``) mean what they mean on the driver
        os.environ[THREADS_ENV] = str(max(1, threads))  # engines loaded by setup() use the CPUs the actor holds
        self.worker = worker
        self.ready = False
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: ``asyncio.run`` per item cost 0.4 ms

    def start(self) -> tuple[str, int]:
        """Set the worker up now (its errors stop the stage) and say where this actor runs."""
        run_dir = getattr(self.worker, "run_dir", None)
        if run_dir is not None and not Path(run_dir).is_dir():
            raise ConfigError(
                f"run directory {run_dir} is not visible on Ray node {socket.gethostname()}: a cluster needs the "
                "run directory and the datasets on storage shared by every node, at the same path (docs/scale.md)"
            )
        self._setup()
        return socket.gethostname(), os.getpid()

    def _setup(self) -> None:
        if not self.ready:
            self.worker.setup()
            self.ready = True

    def call(self, payloads: list[Any]) -> tuple[float, list[tuple[bool, Any]]]:
        """Run a batch of payloads in order: seconds spent and, per payload, ``(True, rows)`` or ``(False, error)``
        when the worker raised (the error travels as a value)."""
        self._setup()
        started = time.perf_counter()
        results: list[tuple[bool, Any]] = []
        for payload in payloads:
            try:
                results.append((True, self.loop.run_until_complete(self.worker(payload))))
            except Exception as exc:  # handed to the driver, which records it as the async executor would
                results.append((False, _portable(exc)))
        return time.perf_counter() - started, results


def _portable(exc: Exception) -> Exception:
    """``exc`` if it survives pickling, else a ``RuntimeError`` with the same one-line description."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        from voxeval.run._stage import describe_error

        return RuntimeError(describe_error(exc))
    return exc


@dataclass
class _Slot:
    """One actor of the pool and the calls queued on it, oldest (the one running) first."""

    actor: Any
    """The Ray actor handle."""
    where: str
    """``host:pid`` of the actor process when it started (named in a ``WorkerLost`` error)."""
    queue: deque[Any] = field(default_factory=deque)
    """Object refs of the calls submitted to it and not yet collected."""
    probe: Any = None
    """After its process died: the ref of a ``start`` call that answers once Ray has restarted it (no new calls
    go to it until then; a call sent to a restarting actor would fail at once)."""


@dataclass
class _Flight:
    """A task not yet finished: how many worker deaths it has been charged, and whether it must run alone."""

    task: Task[Any]
    """The stage's task."""
    deaths: int = 0
    """Times a worker process died while running it alone."""
    alone: bool = False
    """It was in a batch that its actor died under (or that raised past ``Exception``): it runs in a call of its
    own from now on, so that only the task that kills a worker is charged."""


@dataclass
class _Call:
    """One actor call in flight: a batch of tasks, run in order by one actor."""

    slot: _Slot
    """The actor it was submitted to."""
    items: list[_Flight]
    """Its tasks, in the order the actor runs them."""
    waited: bool = False
    """Queued behind the call that was running when its actor died (its tasks are not charged for that death)."""


class RayExecutor:
    """Runs CPU-bound workers on Ray actors (``--executor ray``); see the module docstring."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        cpus: float = 1.0,
        attempts: int = 3,
        batch: int | None = None,
    ) -> None:
        self.address = address or os.environ.get(RAY_ADDRESS_ENV) or None
        self.workers = workers
        self.cpus = cpus
        self.attempts = max(1, attempts)
        self.batch = batch
        """Tasks per actor call; ``None``: chosen from the measured time per task (see :data:`BATCH_SECONDS`)."""
        self.busy: tuple[int, int] = (0, 0)
        """Actors with work right now, and actors in the pool (read by the progress display)."""
        self.calls = 0
        """Actor calls made by the last ``run`` (tasks divided by calls: the mean batch)."""
        self._per_task: float | None = None

    def connect(self) -> Any:
        """Join the cluster at ``address`` (token authentication as the cluster wants it, one-line errors naming
        the fix), or start a private local Ray with this machine's CPUs; reuse a live session."""
        ray = import_ray()
        if not ray.is_initialized():
            connect_ray(ray, self.address, os.cpu_count() or 1)
        return ray

    @property
    def processes(self) -> int:
        """Actors a stage gets at most: ``workers``, else the cluster's CPUs divided by ``cpus`` per actor."""
        if self.workers is not None:
            return max(1, self.workers)
        total = float(self.connect().cluster_resources().get("CPU", 1.0))
        return max(1, int(total // self.cpus))

    def _pool(self, ray: Any, worker: Worker[Any], size: int) -> list[_Slot]:
        gpus = float(getattr(worker, "gpus", 0.0) or 0.0)
        has_gpu = float(ray.cluster_resources().get("GPU", 0.0)) > 0
        remote = ray.remote(StageActor).options(
            num_cpus=self.cpus, num_gpus=gpus if has_gpu else 0, max_restarts=-1, max_task_retries=0, max_concurrency=1
        )
        threads = max(1, int(self.cpus))
        actors = [remote.remote(worker, os.getcwd(), threads) for _ in range(size)]
        try:
            places = ray.get([a.start.remote() for a in actors])
        except ray.exceptions.RayTaskError as exc:  # setup() raised: stop the stage as the local executors do
            for actor in actors:
                ray.kill(actor)
            cause = exc.cause if isinstance(exc.cause, Exception) else exc
            raise cause from None
        return [_Slot(a, f"{host}:{pid}") for a, (host, pid) in zip(actors, places, strict=True)]

    async def run(
        self, worker: Worker[P], tasks: Sequence[Task[P]], limit: int
    ) -> AsyncIterator[tuple[Task[P], Outcome]]:
        """Run every task on a pool of at most ``limit`` actors; yield each task as its call returns."""
        if not tasks:
            return
        ray = self.connect()
        slots = self._pool(ray, worker, max(1, min(self.processes, limit, len(tasks))))
        calls: dict[Any, _Call] = {}
        todo: deque[_Flight] = deque()
        pending = iter(tasks)
        self.calls, self._per_task = 0, None
        try:
            while True:
                self._fill(calls, todo, pending, slots)
                # Counted when work is handed out, so a reader between two completions sees the actors working
                # (counting only after completions read 0 when every call finished in the same wait).
                self.busy = (sum(1 for s in slots if s.queue), len(slots))
                probes = {s.probe: s for s in slots if s.probe is not None}
                # Nothing in flight and a live actor got nothing: the work is done. Do not wait for an actor Ray is
                # still restarting: after its node is lost it may wait for a CPU that the live actors hold.
                if not calls and (not probes or len(probes) < len(slots)):
                    break
                ready = await asyncio.to_thread(_finished, ray, [*calls, *probes])
                for ref in [r for r in ready if r in probes]:
                    _recovered(ray, probes[ref])
                for ref in sorted(set(ready) - set(probes), key=lambda r: _position(r, calls[r].slot, slots)):
                    call = calls.pop(ref)
                    outcomes = self._outcomes(ray, ref, call, calls, todo)
                    call.slot.queue.remove(ref)
                    for flight, outcome in outcomes:
                        yield flight.task, outcome
        finally:
            for slot in slots:
                ray.kill(slot.actor)
            self.busy = (0, 0)

    def _fill(self, calls: dict[Any, _Call], todo: deque[_Flight], pending: Any, slots: list[_Slot]) -> None:
        """Give every live actor up to ``QUEUE_DEPTH`` calls, least-loaded first: retries, then new tasks."""
        while True:
            live = [s for s in slots if s.probe is None]
            slot = min(live, key=lambda s: len(s.queue)) if live else None
            if slot is None or len(slot.queue) >= QUEUE_DEPTH:
                return
            batch = self._next_batch(todo, pending)
            if not batch:
                return
            ref = slot.actor.call.remote([f.task.payload for f in batch])
            slot.queue.append(ref)
            calls[ref] = _Call(slot, batch)
            self.calls += 1

    def _next_batch(self, todo: deque[_Flight], pending: Any) -> list[_Flight]:
        """The tasks of the next call: one task that must run alone, or up to :meth:`_batch_size` others."""
        if todo and todo[0].alone:
            return [todo.popleft()]
        batch: list[_Flight] = []
        size = self._batch_size()
        while len(batch) < size:
            if todo and not todo[0].alone:
                batch.append(todo.popleft())
            elif todo:
                break
            else:
                task = next(pending, None)
                if task is None:
                    break
                batch.append(_Flight(task))
        return batch

    def _batch_size(self) -> int:
        """``batch`` if set; else as many tasks as take about ``BATCH_SECONDS`` (one until a call has returned)."""
        if self.batch is not None:
            return max(1, self.batch)
        if self._per_task is None:
            return 1
        return max(1, min(MAX_BATCH, int(BATCH_SECONDS / max(self._per_task, 1e-6))))

    def _outcomes(
        self, ray: Any, ref: Any, call: _Call, calls: dict[Any, _Call], todo: deque[_Flight]
    ) -> list[tuple[_Flight, Outcome]]:
        """Each finished task of the call with its rows or error; tasks to try again go to ``todo``."""
        try:
            seconds, results = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # a task raised past ``Exception`` (e.g. SystemExit)
            if len(call.items) > 1:  # which one is unknown: each runs alone to find out
                for flight in call.items:
                    flight.alone = True
                todo.extend(call.items)
                return []
            return [(call.items[0], RuntimeError(f"the worker raised {exc.cause!r}" if exc.cause else str(exc)))]
        except ray.exceptions.RayError as exc:
            return self._died(ray, exc, ref, call, calls, todo)
        per_task = seconds / len(call.items)
        self._per_task = per_task if self._per_task is None else 0.7 * self._per_task + 0.3 * per_task
        return [(flight, value) for flight, (_, value) in zip(call.items, results, strict=True)]

    def _died(
        self, ray: Any, exc: Exception, ref: Any, call: _Call, calls: dict[Any, _Call], todo: deque[_Flight]
    ) -> list[tuple[_Flight, Outcome]]:
        """The actor's process died (killed, out of memory, its node lost) or the result was lost with it.

        The oldest call on it was running: a task running alone is charged one attempt; a batch's tasks are not
        (which one killed it is unknown) but each runs alone from now on. Calls queued behind it only waited.
        Tasks charged ``attempts`` deaths are returned as :class:`WorkerLost`; the others go back to ``todo``.
        A call whose reply was still inside the process when the next call killed it looks like the running one
        and is charged (Ray does not say which call was executing); attempts > 1 keep that from failing a task.
        """
        slot = call.slot
        if slot.queue[0] == ref and not call.waited:
            if len(call.items) == 1:
                call.items[0].deaths += 1
            for flight in call.items:
                flight.alone = True
            for other in list(slot.queue)[1:]:
                calls[other].waited = True
        if slot.probe is None:  # wait for Ray to restart it before sending it more
            slot.probe = slot.actor.start.options(max_task_retries=-1).remote()
        lost: list[tuple[_Flight, Outcome]] = []
        for flight in call.items:
            if flight.deaths >= self.attempts:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                host = slot.where.rpartition(":")[0]
                died = f"the worker process died {flight.deaths} times on this item"
                lost.append((flight, WorkerLost(f"{died} (last on {host}: {first})")))
            else:
                todo.append(flight)
        return lost


def _recovered(ray: Any, slot: _Slot) -> None:
    """The restarted actor answered its probe: it takes tasks again. Its ``setup()`` failing stops the stage."""
    try:
        ray.get(slot.probe)
    except ray.exceptions.RayTaskError as exc:
        raise (exc.cause if isinstance(exc.cause, Exception) else exc) from None
    except ray.exceptions.RayError:  # died again while restarting: ask again
        slot.probe = slot.actor.start.options(max_task_retries=-1).remote()
        return
    slot.probe = None


def _position(ref: Any, slot: _Slot, slots: list[_Slot]) -> tuple[int, int]:
    """Sort key: the actor, then the order the ref was queued on it (the actor runs its queue in order)."""
    return slots.index(slot), slot.queue.index(ref)


def _finished(ray: Any, refs: list[Any]) -> list[Any]:
    """Block until at least one ref is ready; return every ready one."""
    ready, rest = ray.wait(refs, num_returns=1)
    if rest:
        more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
        ready += more
    return list(ready)
