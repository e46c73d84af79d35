"""What can go wrong on a mock request: scripted per request number, or drawn at random (seeded)."""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

FaultKind = Literal[
    "latency", "rate_limit", "server_error", "unavailable", "hang", "drop", "truncated", "invalid_json", "empty"
]
"""``latency`` delays a normal reply; ``rate_limit`` is a 429 and ``unavailable`` a 503 (both with an optional
``Retry-After``); ``server_error`` is a 500; ``hang`` holds the connection ``seconds`` then closes it unanswered;
``drop`` closes it at once; ``truncated``/``invalid_json`` answer 200 with a broken body; ``empty`` answers a
well-formed reply with no content."""

MAX_FAULT_SECONDS = 10.0
"""Longest latency or hang a fault may ask for (keeps every handler bounded in time)."""


@dataclass(frozen=True)
class Fault:
    """One injected failure."""

    kind: FaultKind
    """What goes wrong."""
    seconds: float = 0.0
    """Delay before the reply (``latency``) or before closing the connection (``hang``)."""
    retry_after: float | None = None
    """``Retry-After`` header value in seconds for ``rate_limit`` / ``unavailable``; ``None`` sends none."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.seconds <= MAX_FAULT_SECONDS:
            raise ValueError(f"fault seconds must be in [0, {MAX_FAULT_SECONDS}], got {self.seconds}")


@dataclass(frozen=True)
class FaultPlan:
    """Which requests fail: an exact script by request number, plus a seeded random rate for the others."""

    script: Mapping[int, Fault] = field(default_factory=dict)
    """1-based request number (arrival order, all endpoints) → fault."""
    rate: float = 0.0
    """Probability that an unscripted request gets one of ``random_faults``."""
    random_faults: tuple[Fault, ...] = ()
    """Faults drawn uniformly when the rate hits."""
    seed: int = 0
    """Seed of the random draws (deterministic for a given arrival order)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate must be in [0, 1], got {self.rate}")
        if self.rate > 0 and not self.random_faults:
            raise ValueError("a fault rate needs random_faults to draw from")

    @classmethod
    def sequence(cls, *faults: Fault | None) -> FaultPlan:
        """Request ``i`` (1-based) gets ``faults[i-1]`` (``None``: no fault); later requests succeed."""
        return cls(script={i: f for i, f in enumerate(faults, start=1) if f is not None})


class FaultPicker:
    """Thread-safe draws from a :class:`FaultPlan`."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self._rng = random.Random(plan.seed)
        self._lock = threading.Lock()

    def pick(self, number: int) -> Fault | None:
        """The fault for request ``number``."""
        with self._lock:
            draw = self._rng.random()  # drawn for every request so the sequence depends only on arrival order
            if number in self.plan.script:
                return self.plan.script[number]
            if draw < self.plan.rate:
                return self._rng.choice(self.plan.random_faults)
            return None
