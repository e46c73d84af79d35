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
