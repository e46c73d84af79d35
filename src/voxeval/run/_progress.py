"""A progress bar per stage: counts, rate, ETA and failures (tqdm, on stderr)."""

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
        if self._enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=stage, unit="item", file=sys.stderr, dynamic_ncols=True, leave=True)

    def advance(self, *, failed: bool = False) -> None:
        """One item finished (successfully or not)."""
        self.done += 1
        self.failed += int(failed)
        if self._bar is not None:
            self._bar.update(1)
            if self.failed:
                self._bar.set_postfix(failed=self.failed, refresh=False)

    def __enter__(self) -> StageProgress:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._enabled:
            # Not a terminal (a log file, CI): one summary line per stage instead of a redrawn bar.
            took = time.perf_counter() - self._started
            print(f"{self.stage}: {self.done}/{self.total} done, {self.failed} failed, {took:.1f}s", file=sys.stderr)
