"""Workers for the stage-runner tests (importable by spawned pool processes)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any

SETUPS: list[int] = []
"""Process ids in which ``setup`` ran (per process: its own list)."""


@dataclass
class EchoWorker:
    """Returns one row per key; payload ``"fail"`` returns a failed row, ``"raise"`` raises."""

    cpu_bound: bool = False
    delay: float = 0.0
    in_flight: list[int] = field(default_factory=lambda: [0, 0])
    calls: list[str] = field(default_factory=list)

    def setup(self) -> None:
        SETUPS.append(os.getpid())

    async def __call__(self, payload: str) -> list[dict[str, Any]]:
        self.calls.append(payload)
        self.in_flight[0] += 1
        self.in_flight[1] = max(self.in_flight[1], self.in_flight[0])
        await asyncio.sleep(self.delay)
        self.in_flight[0] -= 1
        if payload == "raise":
            raise ValueError("worker broke\nsecond line")
        status = "failed" if payload == "fail" else "ok"
        return [{"key": payload, "status": status, "pid": os.getpid(), "setups": SETUPS.count(os.getpid())}]
