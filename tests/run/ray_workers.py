"""Workers for the Ray executor's tests (importable by Ray worker processes)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class DyingWorker:
    """Echoes its payload; ``die-once`` kills its own process the first time (a marker file remembers), ``die``
    every time. Rows carry the pid that made them."""

    marks: Path
    """Folder of the once-only markers."""
    cpu_bound: bool = True

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        marker = self.marks / f"{payload}.died"
        if payload == "die" or (payload.startswith("die-once") and not marker.exists()):
            marker.touch()
            # Mid-task, as a crashed worker dies: after the reply of the task before it has left the process (a
            # worker that died within microseconds of finishing one task could take that task's reply with it,
            # and the driver would charge that task for the death).
            time.sleep(0.1)
            os._exit(1)
        return [{"key": payload, "status": "ok", "pid": os.getpid()}]


@dataclass
class BrokenSetup:
    """A worker whose model cannot load."""

    cpu_bound: bool = True

    def setup(self) -> None:
        raise FileNotFoundError("model file missing")

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        return [{"key": payload, "status": "ok"}]


@dataclass
class SlowWorker:
    """Announces the pid working on each payload in ``marks/PAYLOAD.pid``, then works for ``seconds``."""

    marks: Path
    """Folder of the announcements."""
    seconds: float = 0.3
    cpu_bound: bool = True

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        import time

        (self.marks / f"{payload}.pid").write_text(str(os.getpid()))
        time.sleep(self.seconds)
        return [{"key": payload, "status": "ok", "pid": os.getpid()}]


@dataclass
class WritesToRunDir:
    """A worker that writes into a run directory (as the input stage does)."""

    run_dir: Path
    """Where it writes."""
    cpu_bound: bool = True

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        return [{"key": payload, "status": "ok"}]


@dataclass
class GpuWorker:
    """A worker that says it can use half a GPU; rows carry the GPU ids Ray assigned to its actor and the thread
    budget its process was given (what Whisper and llama.cpp would use)."""

    cpu_bound: bool = True
    gpus: float = 0.5

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        import ray

        from voxeval.workers import cpu_threads

        gpus = [str(g) for g in ray.get_gpu_ids()]
        threads, omp = cpu_threads(2), os.environ.get("OMP_NUM_THREADS")
        return [{"key": payload, "status": "ok", "gpus": gpus, "threads": threads, "omp": omp}]


@dataclass
class ThreadsWorker:
    """Rows carry the thread budget its process was given (what Whisper and llama.cpp would use)."""

    cpu_bound: bool = True

    def setup(self) -> None:
        """Nothing to load."""

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        from voxeval.workers import cpu_threads

        return [{"key": payload, "status": "ok", "threads": cpu_threads(2), "omp": os.environ.get("OMP_NUM_THREADS")}]
