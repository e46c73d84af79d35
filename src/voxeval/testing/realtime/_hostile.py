"""How a hostile mock misbehaves in every session, for tests that play the server the client must survive.

The fault plan (``_faults.py``) breaks sessions the way real servers fail transiently; a :class:`Hostility` makes
the mock lie: echo the client's key into ids and metadata, declare absurd audio rates, send events of another
response, flood transcript text without ever finishing, nest a message thousands deep, or redirect the handshake.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

ForeignEvent = Literal["audio", "text", "transcript_done"]
"""OpenAI event sent with another ``response_id`` right after ``response.created``."""


@dataclass(frozen=True)
class Hostility:
    """What the mock does besides answering (the defaults: nothing)."""

    echo_key: bool = False
    """Append the key the client sent to every id, model name and handle, and send it as a usage count."""
    audio_rate: str | None = None
    """Gemini: the ``rate=`` each audio chunk's MIME type declares (``"100"``, ``"0"``, ``"abc"``…)."""
    foreign: ForeignEvent | None = None
    """OpenAI: one event of this kind carrying another ``response_id``, sent before the reply's own deltas."""
    flood_bytes: int = 0
    """Transcript deltas of this many characters, sent until the client hangs up, instead of the reply."""
    nesting: int = 0
    """A message nested this many arrays deep, sent before the reply."""
    redirect: tuple[int, str] | None = None
    """Answer every handshake with this status and ``Location``."""

    def __post_init__(self) -> None:
        if self.redirect is not None and not 300 <= self.redirect[0] < 400:
            raise ValueError(f"a redirect needs a 3xx status, got {self.redirect[0]}")
        if self.flood_bytes < 0 or self.nesting < 0:
            raise ValueError("flood_bytes and nesting must be ≥ 0")

    def echo(self, value: str, key: str) -> str:
        """``value`` with the key appended when echoing."""
        return f"{value}{key}" if self.echo_key and key else value


def nested(depth: int) -> str:
    """A JSON object whose ``deep`` field is ``depth`` arrays nested (built as text: no recursion here)."""
    return '{"type":"mock.deep","deep":' + "[" * depth + "]" * depth + "}"


async def before_reply(hostility: Hostility, send_raw: Callable[[str], Awaitable[Any]]) -> None:
    """What a hostile server sends after the input's end and before its reply."""
    if hostility.nesting:
        await send_raw(nested(hostility.nesting))


async def flood(text_event: Callable[[str], dict[str, Any]], send: Callable[[dict[str, Any]], Any], size: int) -> None:
    """Transcript deltas of ``size`` characters until the client closes (the send then raises ``ConnectionClosed``)."""
    while True:
        await send(text_event("x" * size))
        await asyncio.sleep(0)


def foreign_event(kind: ForeignEvent, ids: dict[str, Any], pcm: bytes) -> dict[str, Any]:
    """An OpenAI event of ``kind`` (audio delta of ``pcm``, text delta, transcript done) carrying ``ids``."""
    if kind == "audio":
        return {"type": "response.output_audio.delta", **ids, "delta": base64.b64encode(pcm).decode()}
    if kind == "text":
        return {"type": "response.output_audio_transcript.delta", **ids, "delta": "another reply's words"}
    return {"type": "response.output_audio_transcript.done", **ids, "transcript": "another reply's words"}
