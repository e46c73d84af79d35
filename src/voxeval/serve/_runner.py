"""The served system runs on its own thread and event loop, so a system that blocks (a ``python:`` function, a
local model) never stalls the sockets; a cancelled response cancels its call there."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from voxeval.systems import Reply, SpokenDialogueSystem, Turn


class SystemRunner:
    """Answers turns with ``system`` on a worker thread, at most ``system.concurrency`` at once."""

    def __init__(self, system: SpokenDialogueSystem) -> None:
        self.system = system
        self._loop = asyncio.new_event_loop()
        self._limit = asyncio.Semaphore(max(1, int(getattr(system, "concurrency", 1))))
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="voxeval-serve-system")
        self._thread.start()

    async def respond(self, turn: Turn) -> Reply:
        """The system's reply, awaited from another loop; cancelling the await cancels the call."""
        future = asyncio.run_coroutine_threadsafe(self._call(turn), self._loop)
        return await asyncio.wrap_future(future)

    async def _call(self, turn: Turn) -> Reply:
        async with self._limit:
            return await self.system.respond(turn)

    def close(self) -> None:
        """Stop the worker loop (calls still running are cancelled)."""

        def stop() -> None:
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            self._loop.stop()

        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(stop)
            self._thread.join(timeout=10)

    def describe(self) -> dict[str, Any]:
        """The served system's description."""
        described: dict[str, Any] = self.system.describe()
        return described
