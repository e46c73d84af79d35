"""The system-under-test extension point: input audio (+ the Appendix B prompts) → the reply."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, runtime_checkable

from voxeval.prompts import for_language, load_prompt
from voxeval.registry import Registry


@dataclass(frozen=True)
class Said:
    """One earlier turn of a dialogue, as the system under test is given it (``Turn.history``)."""

    role: Literal["user", "assistant"]
    """Who said it."""
    text: str
    """Assistant: the reply text (the reference under ``--history gold``, the system's own under ``own``). User: the
    turn's reference transcript — like ``Turn.reference_text``, only oracle and test systems may read it."""
    audio: bytes | None = None
    """User: the turn's speech (WAV), what a real system hears. Assistant: ``None`` (gold replies are text only)."""

    def __post_init__(self) -> None:
        if self.role not in ("user", "assistant"):
            raise ValueError(f"a dialogue turn is said by the user or the assistant, not {self.role!r}")
        if self.role == "user" and self.audio is None and not self.text:
            raise ValueError("an earlier user turn needs its audio or its text")


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
    history: tuple[Said, ...] = ()
    """The dialogue so far, oldest first, alternating user / assistant and ending with an assistant turn; empty for a
    single-turn item (and under ``--history none``). A system answers ``audio`` as the next user turn after it."""

    def __post_init__(self) -> None:
        for i, said in enumerate(self.history):
            expected = "user" if i % 2 == 0 else "assistant"
            if said.role != expected:
                raise ValueError(
                    f"turn {self.id}: history item {i} is said by the {said.role}, expected the {expected}"
                )
        if len(self.history) % 2:
            raise ValueError(f"turn {self.id}: the history ends with a user turn the assistant has not answered")


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


@runtime_checkable
class ConversationalSystem(Protocol):
    """A system that keeps its own state across the turns of one dialogue (a realtime or live session).

    ``--history own`` then opens one conversation per dialogue and sends each user turn into it, instead of resending
    the history with every turn."""

    def open_conversation(self, dialogue_id: str) -> Conversation:
        """A fresh conversation (no state shared with any other)."""
        ...


class Conversation(Protocol):
    """One dialogue with a system, turn after turn; closed when the dialogue ends or breaks."""

    async def respond(self, turn: Turn) -> Reply:
        """Answer the next user turn (``turn.history`` is what was said before it, for systems that need it)."""
        ...

    async def close(self) -> None:
        """Release the session."""
        ...


class StatelessConversation:
    """A conversation with a system that keeps no state: every turn is sent with the whole dialogue so far.

    The history holds the user turns as given and the system's *own* earlier reply texts (``--history own`` for chat
    APIs, the cascade, ``python:`` and ``replay:`` systems)."""

    def __init__(self, system: SpokenDialogueSystem) -> None:
        self._system = system
        self._history: list[Said] = []

    async def respond(self, turn: Turn) -> Reply:
        """Send ``turn`` after the dialogue so far; remember what the user said and what the system answered."""
        reply = await self._system.respond(replace(turn, history=tuple(self._history)))
        self._history += [Said("user", turn.reference_text, turn.audio), Said("assistant", reply.text)]
        return reply

    async def close(self) -> None:
        """Nothing to release."""


def open_conversation(system: SpokenDialogueSystem, dialogue_id: str) -> Conversation:
    """The system's own conversation when it keeps state, else a :class:`StatelessConversation`."""
    if isinstance(system, ConversationalSystem):
        return system.open_conversation(dialogue_id)
    return StatelessConversation(system)


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
