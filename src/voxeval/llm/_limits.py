"""Client-side limits for one provider instance: requests in flight and requests started per second."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class Limiter:
    """An async context manager: at most ``concurrency`` holders at once, started at most ``rps`` per second.

    The rate limit spaces starts ``1/rps`` seconds apart (slots are reserved in arrival order, so waiting
    callers never bunch up). Usable from successive event loops: the semaphore is rebuilt per loop.
    """

    def __init__(
        self,
        concurrency: int,
        rps: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if rps is not None and rps <= 0:
            raise ValueError(f"rps must be positive, got {rps}")
        self.concurrency = concurrency
        self.rps = rps
        self._clock = clock
        self._sleep = sleep
        self._next_start = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self.active = 0
        """Holders right now (for tests and progress displays)."""
        self.peak = 0
        """Most holders seen at once."""

    def _current_semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._loop, self._semaphore = loop, asyncio.Semaphore(self.concurrency)
        return self._semaphore

    async def _wait_for_slot(self) -> None:
        if self.rps is None:
            return
        now = self._clock()
        start = max(now, self._next_start)
        self._next_start = start + 1.0 / self.rps  # reserved before awaiting: no other task can take it
        if start > now:
            await self._sleep(start - now)

    async def __aenter__(self) -> Limiter:
        semaphore = self._current_semaphore()
        await semaphore.acquire()
        try:
            await self._wait_for_slot()
        except BaseException:
            semaphore.release()
            raise
        self.active += 1
        self.peak = max(self.peak, self.active)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.active -= 1
        self._current_semaphore().release()
