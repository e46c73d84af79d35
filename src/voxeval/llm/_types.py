"""The records every provider speaks: a chat request in, a chat response out, a classified error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from voxeval.errors import VoxevalError

Role = Literal["system", "user", "assistant"]
"""Who says a message."""

ErrorKind = Literal[
    "rate_limit", "server", "timeout", "connection", "bad_response", "client", "refused", "truncated", "undecodable"
]
"""Why a provider call failed. Transient kinds are retried by default; ``client`` (4xx), ``refused`` (content
filter or safety block), ``truncated`` (the token budget ran out before any text) and ``undecodable`` (bytes that
are not the declared text encoding) are deterministic outcomes, recorded once with their reason."""


@dataclass(frozen=True)
class AudioInput:
    """An audio clip sent to a model."""

    data: bytes
    """The encoded audio file (WAV by default)."""
    mime: str = "audio/wav"
    """Its MIME type, e.g. ``audio/wav`` or ``audio/mpeg``."""


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation: text, audio or both."""

    role: Role
    """``system``, ``user`` or ``assistant``."""
    text: str | None = None
    """The text part, if any."""
    audio: AudioInput | None = None
    """The audio part, if any (user messages only)."""

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant"):
            raise ValueError(f"unknown chat role {self.role!r}")
        if self.text is None and self.audio is None:
            raise ValueError(f"a {self.role} message needs text or audio")
        if self.audio is not None and self.role != "user":
            raise ValueError(f"only user messages can carry audio, not {self.role} messages")


@dataclass(frozen=True)
class ChatRequest:
    """What to ask a chat model, with the sampling parameters."""

    messages: tuple[ChatMessage, ...]
    """The conversation so far, oldest first."""
    temperature: float = 0.0
    """Sampling temperature; 0 for (near-)deterministic answers."""
    max_tokens: int | None = None
    """Cap on generated tokens; ``None`` leaves the provider's default."""
    json_output: bool = False
    """Ask for a JSON object as the reply text."""
    audio_output: bool = False
    """Ask for a spoken reply as well (providers that support it)."""
    voice: str | None = None
    """Voice of the spoken reply; ``None`` uses the provider's default."""
    seed: int | None = None
    """Sampling seed, passed on where the provider supports one."""

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a chat request needs at least one message")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {self.max_tokens}")


MAX_TOKENS = 2**53
"""Largest token count believed from a server (every count up to it is exact as a float, so costs stay finite)."""


def token_count(value: object, field: str) -> tuple[int | None, str | None]:
    """``(count, None)`` for a count a server may report, ``(None, warning)`` for one it may not, ``(None, None)``
    when it said nothing: counts are integers from 0 to :data:`MAX_TOKENS` (not -5, 10**400, 1.5 or "7").

    >>> token_count(12, "prompt_tokens"), token_count(-5, "completion_tokens")[1]
    ((12, None), 'completion_tokens: -5 is not a token count (0 to 2^53); ignored')
    """
    if value is None:
        return None, None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS:
        return value, None
    shown = repr(value) if not isinstance(value, int) else (str(value) if abs(value) < 10**30 else "a huge integer")
    return None, f"{field}: {shown[:40]} is not a token count (0 to 2^53); ignored"


@dataclass(frozen=True)
class Usage:
    """Token counts a provider reported (``None`` when it did not say, or said something that is no count)."""

    input_tokens: int | None
    """Prompt tokens, audio included."""
    output_tokens: int | None
    """Generated tokens, audio included."""
    warnings: tuple[str, ...] = ()
    """Counts the server reported that were ignored, and why (recorded in the reply's ``meta.usage_warnings``)."""

    @classmethod
    def checked(cls, fields: dict[str, object]) -> Usage:
        """Usage from the counts a server sent: ``{"prompt_tokens": …, "completion_tokens": …}`` in that order
        (input, then output; a third is added to the output, e.g. Gemini's thinking tokens)."""
        counts, warnings = [], []
        for field, value in fields.items():
            count, warning = token_count(value, field)
            counts.append(count)
            warnings += [warning] if warning else []
        output = counts[1]
        if len(counts) > 2 and output is not None:  # a third count that was sent but is no count: total unknown
            extra, invalid = counts[2], token_count(list(fields.values())[2], "")[1] is not None
            output = None if invalid else output + (extra or 0)
        return cls(counts[0], output, tuple(warnings))


@dataclass(frozen=True)
class ChatResponse:
    """A model's answer."""

    text: str
    """The reply text (the transcript of the spoken reply when only audio came back)."""
    audio: bytes | None
    """The spoken reply as WAV bytes, when audio output was asked for."""
    model_version: str | None
    """The exact model version the provider says answered."""
    usage: Usage
    """Token counts."""
    finish_reason: str | None
    """Why generation stopped, as the provider names it (``stop``, ``length``, ``STOP``…)."""


_RETRYABLE: dict[ErrorKind, bool] = {
    "rate_limit": True,
    "server": True,
    "timeout": True,
    "connection": True,
    "bad_response": True,
    "client": False,
    "refused": False,
    "truncated": False,
    "undecodable": False,
}


class ProviderError(VoxevalError):
    """A model call failed; ``kind`` says why and ``retryable`` whether trying again may help.

    The message never contains an API key: callers pass keys as secrets to redact.
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        self.kind: ErrorKind = kind
        self.status = status
        self.retry_after = retry_after
        self.retryable = _RETRYABLE[kind] if retryable is None else retryable
        self.message = message
        super().__init__(f"{kind}: {message}")
