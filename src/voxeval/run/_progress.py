"""A progress bar per stage: counts, items per second, ETA, failures and busy workers (tqdm, on stderr)."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any


class StageProgress:
    """Counts done and failed items of one stage and shows them in a tqdm bar."""

    def __init__(self, stage: str, total: int, *, enabled: bool = True) -> None:
        self.stage = stage
        self.total = total
        self.done = 0
        self.failed = 0
        self._bar: Any = None
        self._enabled = enabled and total > 0
        self._started = time.perf_counter()
        self._workers: tuple[int, int] | None = None
        self._peak_busy = 0
        if self._enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=stage, unit="item", file=sys.stderr, dynamic_ncols=True, leave=True)

    def advance(self, *, failed: bool = False) -> None:
        """One item finished (successfully or not)."""
        self.done += 1
        self.failed += int(failed)
        if self._bar is not None:
            self._bar.update(1)
            self._postfix()

    def workers(self, busy: int, total: int) -> None:
        """How many of the executor's workers have work right now (executors with a worker pool report it)."""
        self._workers = (busy, total)
        self._peak_busy = max(self._peak_busy, busy)
        if self._bar is not None:
            self._postfix()

    def _postfix(self) -> None:
        shown: dict[str, object] = {"failed": self.failed} if self.failed else {}
        if self._workers is not None:
            shown["busy"] = f"{self._workers[0]}/{self._workers[1]}"
        if shown:
            self._bar.set_postfix(shown, refresh=False)

    def __enter__(self) -> StageProgress:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._enabled:
            # Not a terminal (a log file, CI): one summary line per stage instead of a redrawn bar.
            took = time.perf_counter() - self._started
            rate = f", {self.done / took:.1f} items/s" if took > 0 else ""
            pool = f", up to {self._peak_busy}/{self._workers[1]} workers busy" if self._workers else ""
            line = f"{self.stage}: {self.done}/{self.total} done, {self.failed} failed, {took:.1f}s{rate}{pool}"
            print(line, file=sys.stderr)
