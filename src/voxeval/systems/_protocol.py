"""The system-under-test extension point: input audio (+ the Appendix B prompts) → the reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from voxeval.prompts import for_language, load_prompt
from voxeval.registry import Registry


@dataclass(frozen=True)
class Turn:
    """One benchmark input for a system under test."""

    id: str
    """Sample id."""
    audio: bytes
    """Input speech as WAV bytes (24 kHz, 16-bit, mono, 120 ms padding for the built-in data)."""
    system_prompt: str
    """Text system prompt (Appendix B.1 by default)."""
    user_prompt: str
    """Text user prompt sent with the audio (Appendix B.2 by default)."""
    reference_text: str = ""
    """The input's ground-truth text. Only oracle / test systems may look at it; real systems hear the audio."""
    language: str = "ja"
    """ISO 639-1 code of the input's language (the dataset's); a cascade answers and speaks in it."""


@dataclass(frozen=True)
class ReplyTiming:
    """When a streaming system's reply arrived, measured by the system itself on the client's monotonic clock
    (``time.perf_counter``), network included, from the end of the input (the Realtime ``input_audio_buffer.commit``,
    the Live ``activityEnd``, or the sending of a request/response call). ``None``: not observed."""

    first_audio_s: float | None = None
    """Seconds to the first byte of reply audio."""
    first_text_s: float | None = None
    """Seconds to the first reply text (a transcript delta or a text delta)."""
    total_s: float | None = None
    """Seconds to the end of the reply (``response.done`` / ``turnComplete`` / the whole HTTP response)."""


@dataclass(frozen=True)
class Reply:
    """What a system answered."""

    text: str
    """The reply text the model gave on its text channel (for a speech model: its own transcript of its speech)."""
    audio: bytes | None = None
    """The spoken reply (WAV), when the system speaks."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Model version, token usage, intermediate results (e.g. the cascade's transcript)."""
    timing: ReplyTiming | None = None
    """Streaming timings measured by the system; ``None`` lets the reply stage time the whole call."""


class SystemFailure(Exception):
    """The system could not produce a reply (after the provider's own retries)."""


NoReplyKind = Literal["refused", "truncated", "undecodable"]
"""Deterministic reasons for a reply without usable text (the provider layer's ``ProviderError`` kinds)."""


class NoReply(SystemFailure):
    """The system deterministically gave no usable reply: it ``refused``, ran out of its output budget before any
    text (``truncated``), or answered bytes that are not text (``undecodable``).

    Every system kind reports these the same way (docs/reliability.md, "Reply outcomes"): API systems through
    ``ProviderError`` kinds, a ``python:`` callable by raising this, a ``replay:`` row with ``"outcome"``.
    """

    def __init__(self, kind: NoReplyKind, reason: str) -> None:
        if kind not in ("refused", "truncated", "undecodable"):
            raise ValueError(f"unknown no-reply kind {kind!r}: refused, truncated or undecodable")
        super().__init__(f"{kind}: {reason}")
        self.kind: NoReplyKind = kind
        self.reason = reason


class SpokenDialogueSystem(Protocol):
    """A model being evaluated. Implementations must be safe to call concurrently."""

    name: str
    """Name used in reports (the spec string by default)."""
    concurrency: int
    """How many turns the runner may have in flight at once for this system."""

    async def respond(self, turn: Turn) -> Reply:
        """Answer one turn; raise :class:`SystemFailure` (or a provider error) when it cannot."""
        ...

    def describe(self) -> dict[str, Any]:
        """Model names, versions and settings, for ``config.json`` (never secrets)."""
        ...


systems: Registry = Registry("system")
"""System factories by spec prefix; a factory takes the text after ``NAME:`` (may be empty)."""


def system_from_spec(spec: str) -> SpokenDialogueSystem:
    """Build a system from its spec string; see ``docs/systems.md`` for the grammar."""
    name, _, rest = spec.partition(":")
    system: SpokenDialogueSystem = systems.get(name)(rest)
    return system


def default_prompts(language: str = "ja") -> tuple[str, str]:
    """The spec's Appendix B system and user prompts in ``language`` (``ja``: the paper's own; ``en``, ``zh``)."""
    system, user = (for_language(f"da/response_{part}.v1", language) for part in ("system", "user"))
    return load_prompt(system).text, load_prompt(user).text
