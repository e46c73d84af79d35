"""Worker processes that never outlive the process that started them.

A pool worker blocked on its task queue does not notice its parent's death: after a SIGKILL or SIGTERM of
``voxeval synth --workers 2`` two ~200 MB workers stayed behind forever. Every pool initializer calls
:func:`die_with_parent` first; a daemon thread polls the parent pid and ends the worker once it changes (the worker
was re-parented because its parent died). Polling rather than ``PR_SET_PDEATHSIG``: Linux sends that signal when
the *thread* that spawned the worker exits, and pools spawn workers from whatever thread submits first.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

POLL_SECONDS = 0.5
"""How often a worker checks that its parent is alive."""
THREADS_ENV = "VOXEVAL_CPU_THREADS"
"""Set by the process pool and the Ray executor in each worker process to the CPUs that worker holds."""


def cpu_threads(default: int) -> int:
    """Threads an engine with its own thread pool (Whisper, llama.cpp) may use in this process.

    ``$VOXEVAL_CPU_THREADS`` where an executor set it (a Ray actor declaring ``num_cpus=1`` gets 1, so two actors on
    two cores do not spin four threads), else ``default`` (in-process runs keep the engine's own setting).
    """
    value = os.environ.get(THREADS_ENV, "")
    return max(1, int(value)) if value.isdigit() else default


def die_with_parent(poll_seconds: float = POLL_SECONDS) -> None:
    """Call at the start of a worker process: the worker exits (status 1) soon after its parent dies.

    The parent's pid comes from multiprocessing's own record, not ``os.getppid()``: a worker still importing when
    its parent was killed has already been re-parented by the time it gets here.
    """
    origin = multiprocessing.parent_process()
    parent = origin.pid if origin is not None and origin.pid is not None else os.getppid()

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)  # no cleanup: the parent that wanted the results is gone
            time.sleep(poll_seconds)

    threading.Thread(target=watch, name="voxeval-parent-watch", daemon=True).start()
