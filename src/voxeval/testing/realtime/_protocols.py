"""The server side of one mock session, per protocol: read the client's turn, then stream the reply (or a fault)."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from voxeval.testing.realtime._faults import SessionFault


@dataclass(frozen=True)
class MockTurn:
    """What a client sent in one session, as the responder sees it."""

    protocol: str
    """``openai`` or ``gemini``."""
    model: str
    """Model named by the client."""
    instructions: str
    """System instructions."""
    user_text: str
    """Text sent before the audio."""
    pcm: bytes
    """Input audio, 16-bit mono PCM."""
    rate: int
    """Its sample rate."""
    history: tuple[MockSaid, ...] = ()
    """What this session heard and said before this turn: history items the client sent (a dialogue's reference
    so far) and the session's own earlier turns, oldest first."""


@dataclass(frozen=True)
class MockSaid:
    """One earlier turn in a mock session."""

    role: str
    """``user`` or ``assistant``."""
    text: str
    """An assistant turn's text (or a user turn sent as text)."""
    pcm: bytes = b""
    """A user turn's audio."""


@dataclass(frozen=True)
class MockReply:
    """What the mock model says."""

    text: str
    """Its transcript."""
    pcm: bytes
    """Its audio, 16-bit mono PCM at 24 kHz."""


@dataclass(frozen=True)
class Pacing:
    """How the reply streams: delay to the first audio delta, delta size, real-time or instant."""

    first_delay: float = 0.0
    """Seconds from the end of the input to the first audio delta."""
    delta_ms: int = 100
    """Audio per delta, in milliseconds."""
    realtime: bool = False
    """Send each delta when its audio would play (after ``first_delay``), else all at once."""


OUTPUT_RATE = 24_000
"""Sample rate of the mock's reply audio."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


Send = Callable[[dict[str, Any]], Any]
"""Sends one JSON message to the client."""


async def stream_reply(
    reply: MockReply,
    pacing: Pacing,
    fault: SessionFault | None,
    slow_seconds: float,
    audio_event: Callable[[bytes], dict[str, Any]],
    text_event: Callable[[str], dict[str, Any]],
    send: Send,
    fail: Callable[[SessionFault], Any],
) -> bool:
    """Send the reply's audio and transcript deltas interleaved, paced; ``fail(fault)`` at the fault's moment.

    Returns ``False`` when a fault ended the reply early."""
    size = OUTPUT_RATE * 2 * pacing.delta_ms // 1000
    chunks = [reply.pcm[i : i + size] for i in range(0, len(reply.pcm), size)] or [b""]
    texts = _pieces(reply.text, len(chunks))
    loop = asyncio.get_running_loop()
    start = loop.time() + pacing.first_delay + (slow_seconds if fault == "slow_first_byte" else 0.0)
    # Where a mid-reply fault strikes: after the first delta (error event), or halfway (close, goAway).
    cut = {"error_event": 1, "close_1011": max(1, len(chunks) // 2), "go_away": max(1, len(chunks) // 2)}.get(
        fault or ""
    )
    for index, chunk in enumerate(chunks):
        if index == cut:
            break
        due = start + (index * pacing.delta_ms / 1000 if pacing.realtime else 0.0)
        if due > loop.time():
            await asyncio.sleep(due - loop.time())
        if chunk:
            await send(audio_event(chunk))
        if index < len(texts):
            await send(text_event(texts[index]))
    if cut is not None and fault is not None:
        await fail(fault)
        return False
    for rest in texts[len(chunks) :]:
        await send(text_event(rest))
    return True


def openai_usage(turn: MockTurn, reply: MockReply) -> dict[str, int]:
    """Deterministic token counts: 10 per second of audio, one per character of text."""
    seconds_in = len(turn.pcm) // (2 * max(1, turn.rate))
    seconds_out = len(reply.pcm) // (2 * OUTPUT_RATE)
    input_tokens = 10 * seconds_in + len(turn.instructions) + len(turn.user_text)
    output_tokens = 10 * seconds_out + len(reply.text)
    return {"input_tokens": input_tokens, "output_tokens": output_tokens, "total_tokens": input_tokens + output_tokens}


def dumps(message: dict[str, Any]) -> str:
    """Compact JSON; a text holding a lone surrogate is sent as its ``\\udcXX`` escape (as a broken server does)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":"))
    return text
