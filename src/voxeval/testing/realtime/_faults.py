"""Which mock sessions fail and how: a deterministic draw per sample and attempt, or a script by session number."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

SessionFault = Literal["error_event", "close_1011", "slow_first_byte", "rate_limit", "go_away", "silent"]
"""``error_event``: an ``error`` event after the first audio delta (Gemini, which has no error event: a close
with 1011); ``close_1011``: the socket closed with 1011 halfway through the reply; ``slow_first_byte``: the reply
starts ``slow_seconds`` late; ``rate_limit``: a rate-limit ``error`` event (Gemini: close 1011
``RESOURCE_EXHAUSTED``) instead of a reply; ``go_away``: Gemini's ``goAway`` then a 1001 close mid-reply (OpenAI:
the 1001 close); ``silent``: the session never answers the turn."""

FAULTS: tuple[SessionFault, ...] = ("error_event", "close_1011", "slow_first_byte", "rate_limit", "go_away", "silent")
"""Every fault kind."""


@dataclass(frozen=True)
class SessionFaultPlan:
    """Fault rates drawn from a hash of (seed, input audio, attempt): the same sample meets the same faults in
    every run whatever the order and concurrency, and a retry (next attempt) draws afresh."""

    rates: Mapping[SessionFault, float] = field(default_factory=dict)
    """Probability of each fault per session; they must add up to at most 1."""
    script: Mapping[int, SessionFault] = field(default_factory=dict)
    """1-based session number (arrival order) → fault, overriding the draw."""
    seed: int = 0
    """Seed of the draws."""
    slow_seconds: float = 0.5
    """Delay of ``slow_first_byte``."""

    def __post_init__(self) -> None:
        unknown = set(self.rates) - set(FAULTS) | set(self.script.values()) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown session fault(s) {sorted(unknown)}; known: {', '.join(FAULTS)}")
        if any(not 0.0 <= r <= 1.0 for r in self.rates.values()) or sum(self.rates.values()) > 1.0 + 1e-9:
            raise ValueError(f"fault rates must be in [0, 1] and add up to at most 1, got {dict(self.rates)}")
        if not 0.0 <= self.slow_seconds <= 10.0:
            raise ValueError(f"slow_seconds must be in [0, 10], got {self.slow_seconds}")

    def pick(self, number: int, audio_sha256: str, attempt: int) -> SessionFault | None:
        """The fault of session ``number``, the ``attempt`` th (0-based) for the audio with this hash."""
        if number in self.script:
            return self.script[number]
        digest = hashlib.sha256(f"{self.seed}:{audio_sha256}:{attempt}".encode()).digest()
        draw = int.from_bytes(digest[:8], "big") / 2**64
        for kind in FAULTS:
            draw -= self.rates.get(kind, 0.0)
            if draw < 0:
                return kind
        return None
