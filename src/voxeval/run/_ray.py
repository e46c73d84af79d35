"""The Ray executor (``--executor ray``): a stage's CPU-bound work on a pool of Ray actors, on one machine or a cluster.

Each actor holds one unpickled worker and calls its ``setup()`` once (again only if Ray restarts the actor after
its process died), so a model is loaded once per actor, not per item. Every CPU-bound worker of voxeval loads
something (a TTS engine, the offline annotator, the acoustic judge's ASR), so all run on actors; a stateless
Ray task per item would reload them each time. Actors declare ``num_cpus`` (one each by default) and ``num_gpus``
when the worker says it can use a GPU (``gpus`` attribute) and the cluster has one.

The driver stays the single writer: at most ``limit`` tasks are in flight; finished ones are collected with
``ray.wait`` and yielded to the stage runner, which appends their rows, so the executor holds at most ``limit``
items whatever the stage's size. Work items carry paths, not audio: the run directory and the datasets must be on
storage every node sees at the same path (docs/scale.md). An actor whose process dies (killed, out of memory, node
lost) is restarted by Ray and probed before it gets more tasks; of its in-flight tasks the one it was running is
charged an attempt and every one is resubmitted; a task that was running at ``attempts`` deaths is yielded as a
:class:`WorkerLost` error, which the runner records as failed. No task is yielded twice.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from voxeval.errors import ConfigError, MissingDependencyError
from voxeval.run._executor import Outcome, Row, Task, Worker

P = TypeVar("P")
RAY_ADDRESS_ENV = "RAY_ADDRESS"
"""Environment variable naming the cluster to join when ``--ray-address`` is not given."""
QUEUE_DEPTH = 2
"""Tasks queued on one actor at once: the next is ready when one finishes, so no actor waits on the driver."""


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

    def __init__(self, worker: Any, cwd: str) -> None:
        if os.path.isdir(cwd):
            os.chdir(cwd)  # relative paths (``--out runs/x``) mean what they mean on the driver
        self.worker = worker
        self.ready = False

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

    def call(self, payload: Any) -> tuple[bool, Any]:
        """``(True, rows)``, or ``(False, error)`` when the worker raised (the error travels as a value)."""
        self._setup()
        try:
            return True, asyncio.run(self.worker(payload))
        except Exception as exc:  # handed to the driver, which records it as the async executor would
            return False, _portable(exc)


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
    """One actor of the pool and the tasks queued on it, oldest (the one running) first."""

    actor: Any
    """The Ray actor handle."""
    where: str
    """``host:pid`` of the actor process when it started (named in a ``WorkerLost`` error)."""
    queue: deque[Any] = field(default_factory=deque)
    """Object refs of the tasks submitted to it and not yet collected."""
    probe: Any = None
    """After its process died: the ref of a ``start`` call that answers once Ray has restarted it (no new tasks
    go to it until then; a task sent to a restarting actor would fail at once)."""


@dataclass
class _Flight:
    """A task in flight: which actor has it and how many worker deaths it has been charged."""

    task: Task[Any]
    """The stage's task."""
    slot: _Slot
    """The actor it was submitted to."""
    deaths: int = 0
    """Times a worker process died while running it."""
    waited: bool = False
    """Queued behind the task that was running when its actor died (not charged for that death)."""


class RayExecutor:
    """Runs CPU-bound workers on Ray actors (``--executor ray``); see the module docstring."""

    name = "ray"

    def __init__(
        self, address: str | None = None, *, workers: int | None = None, cpus: float = 1.0, attempts: int = 3
    ) -> None:
        self.address = address or os.environ.get(RAY_ADDRESS_ENV) or None
        self.workers = workers
        self.cpus = cpus
        self.attempts = max(1, attempts)
        self.busy: tuple[int, int] = (0, 0)
        """Actors with work right now, and actors in the pool (read by the progress display)."""

    def connect(self) -> Any:
        """Join the cluster at ``address``, or start a local Ray with this machine's CPUs; reuse a live session."""
        ray = import_ray()
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, logging_level="WARNING")
            else:
                ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, logging_level="WARNING")
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
        actors = [remote.remote(worker, os.getcwd()) for _ in range(size)]
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
        """Run every task on the actor pool, at most ``limit`` in flight; yield each as it finishes."""
        if not tasks:
            return
        ray = self.connect()
        limit = max(1, limit)
        slots = self._pool(ray, worker, max(1, min(self.processes, limit, len(tasks))))
        flights: dict[Any, _Flight] = {}
        todo: deque[_Flight] = deque()
        pending = iter(tasks)
        try:
            while True:
                self._fill(flights, todo, pending, slots, limit)
                probes = {s.probe: s for s in slots if s.probe is not None}
                if not flights and not probes:
                    break
                ready = await asyncio.to_thread(_finished, ray, [*flights, *probes])
                for ref in [r for r in ready if r in probes]:
                    _recovered(ray, probes[ref])
                for ref in sorted(set(ready) - set(probes), key=lambda r: _position(r, flights[r].slot, slots)):
                    flight = flights.pop(ref)
                    outcome = self._outcome(ray, ref, flight, flights, todo)
                    flight.slot.queue.remove(ref)
                    if outcome is not None:
                        yield flight.task, outcome
                self.busy = (sum(1 for s in slots if s.queue), len(slots))
        finally:
            for slot in slots:
                ray.kill(slot.actor)
            self.busy = (0, 0)

    def _fill(
        self, flights: dict[Any, _Flight], todo: deque[_Flight], pending: Any, slots: list[_Slot], limit: int
    ) -> None:
        """Submit retries first, then new tasks, to the least-loaded live actor while under ``limit``."""
        while len(flights) < limit:
            live = [s for s in slots if s.probe is None]
            slot = min(live, key=lambda s: len(s.queue)) if live else None
            if slot is None or len(slot.queue) >= QUEUE_DEPTH:
                return
            if todo:
                flight = todo.popleft()
                flight.slot = slot
            else:
                task = next(pending, None)
                if task is None:
                    return
                flight = _Flight(task, slot)
            ref = slot.actor.call.remote(flight.task.payload)
            slot.queue.append(ref)
            flights[ref] = flight

    def _outcome(
        self, ray: Any, ref: Any, flight: _Flight, flights: dict[Any, _Flight], todo: deque[_Flight]
    ) -> Outcome | None:
        """The task's rows or error; ``None`` when its actor died and it was queued for another attempt."""
        try:
            ok, value = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # the call itself raised past ``Exception`` (e.g. SystemExit)
            return RuntimeError(f"the worker raised {exc.cause!r}" if exc.cause is not None else str(exc))
        except ray.exceptions.RayError as exc:
            # The actor's process died (killed, out of memory, its node lost) or the result was lost with it. The
            # oldest task on it was running: it is charged one attempt; the tasks queued behind it only waited and
            # are not charged when their own failure arrives.
            slot = flight.slot
            if slot.queue[0] == ref and not flight.waited:
                flight.deaths += 1
                for other in list(slot.queue)[1:]:
                    flights[other].waited = True
            if slot.probe is None:  # wait for Ray to restart it before sending it more
                slot.probe = slot.actor.start.options(max_task_retries=-1).remote()
            if flight.deaths >= self.attempts:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                host = flight.slot.where.rpartition(":")[0]
                died = f"the worker process died {flight.deaths} times on this item"
                return WorkerLost(f"{died} (last on {host}: {first})")
            flight.waited = False
            todo.append(flight)
            return None
        if ok:
            rows: list[Row] = value
            return rows
        error: Exception = value
        return error


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
