"""OpenAI Realtime (GA protocol, as ``openai.types.realtime`` describes it): the client events of one turn (pure)
and the server events folded into a :class:`SessionResult`.

One turn: ``session.update`` (instructions, output modality, PCM 24 kHz in and out, voice, turn detection off),
the user prompt as a ``conversation.item.create`` text message, the audio as ``input_audio_buffer.append`` chunks,
``input_audio_buffer.commit``, ``response.create``; then audio and transcript deltas until ``response.done``.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from voxeval.llm._types import ProviderError, Usage
from voxeval.llm.sessions._collect import ReplyCollector, malformed
from voxeval.llm.sessions._session import SessionInput, SessionResult
from voxeval.llm.sessions._ws import WsSession

REALTIME_URL = "wss://api.openai.com/v1/realtime"
"""Default endpoint of ``realtime:openai:``; the model goes in the ``model`` query parameter."""
REALTIME_RATE = 24_000
"""The only PCM rate the GA Realtime API accepts (``AudioPCM.rate: Literal[24000]``), input and output."""
DEFAULT_VOICE = "marin"
"""Voice when none is named (the SDK's docs recommend ``marin`` and ``cedar``)."""

_AUDIO_DELTAS = ("response.output_audio.delta", "response.audio.delta")  # GA, then the beta name
_TEXT_DELTAS = (
    "response.output_audio_transcript.delta",
    "response.output_text.delta",
    "response.audio_transcript.delta",
    "response.text.delta",
)
_TEXT_DONE = {"response.output_audio_transcript.done": "transcript", "response.output_text.done": "text"}


@dataclass(frozen=True)
class RealtimeSettings:
    """What a ``realtime:openai:`` session is configured with."""

    voice: str = DEFAULT_VOICE
    """Output voice."""
    output: str = "audio"
    """``audio`` (speech plus its transcript) or ``text``."""
    max_tokens: int | None = None
    """``max_output_tokens`` of the session; ``None`` leaves the API's default (``inf``)."""
    chunk_ms: int = 100
    """Milliseconds of input audio per ``input_audio_buffer.append``."""


def session_update(turn: SessionInput, settings: RealtimeSettings) -> dict[str, Any]:
    """The ``session.update`` event (pure)."""
    pcm = {"type": "audio/pcm", "rate": REALTIME_RATE}
    audio: dict[str, Any] = {"input": {"format": pcm, "turn_detection": None}}
    if settings.output == "audio":
        audio["output"] = {"format": pcm, "voice": settings.voice}
    session: dict[str, Any] = {
        "type": "realtime",
        "instructions": turn.instructions,
        "output_modalities": [settings.output],
        "audio": audio,
    }
    if settings.max_tokens is not None:
        session["max_output_tokens"] = settings.max_tokens
    return {"type": "session.update", "session": session}


def turn_events(turn: SessionInput, settings: RealtimeSettings) -> list[dict[str, Any]]:
    """Every client event of one turn up to (not including) the commit, in order (pure)."""
    return [session_update(turn, settings), *exchange_events(turn, settings)]


def history_items(turn: SessionInput) -> list[dict[str, Any]]:
    """The dialogue so far as ``conversation.item.create`` events (pure): earlier user turns as their audio, earlier
    assistant turns as text (the API takes no injected assistant audio)."""
    events = []
    for said in turn.history:
        if said.role == "user" and said.pcm is not None:
            content = [{"type": "input_audio", "audio": base64.b64encode(said.pcm).decode("ascii")}]
        elif said.role == "user":
            content = [{"type": "input_text", "text": said.text}]
        else:
            content = [{"type": "output_text", "text": said.text}]
        item = {"type": "message", "role": said.role, "content": content}
        events.append({"type": "conversation.item.create", "item": item})
    return events


def exchange_events(turn: SessionInput, settings: RealtimeSettings) -> list[dict[str, Any]]:
    """The events of one turn in a configured session, up to (not including) the commit (pure)."""
    if turn.rate != REALTIME_RATE:
        raise ValueError(f"the Realtime API takes {REALTIME_RATE} Hz PCM, got {turn.rate} Hz")
    events = history_items(turn)
    if turn.user_text:
        content = [{"type": "input_text", "text": turn.user_text}]
        events.append(
            {"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": content}}
        )
    size = REALTIME_RATE * 2 * settings.chunk_ms // 1000
    for start in range(0, len(turn.pcm), size):
        chunk = base64.b64encode(turn.pcm[start : start + size]).decode("ascii")
        events.append({"type": "input_audio_buffer.append", "audio": chunk})
    return events


COMMIT = {"type": "input_audio_buffer.commit"}
"""Ends the input: the clock of the reply's timings starts when it is sent."""
RESPONSE_CREATE = {"type": "response.create"}
"""Asks for the reply (turn detection is off, so nothing answers before it)."""


def error_event(error: object, where: str) -> ProviderError:
    """The ``ProviderError`` for an ``error`` event (or a failed response's error), classified as HTTP would:
    rate limits are retried, ``invalid_request_error`` is the client's fault (not retried), the rest ``server``."""
    detail = error if isinstance(error, dict) else {}
    kind, code = str(detail.get("type") or ""), str(detail.get("code") or "")
    message = f"error event from {where}: {kind or 'error'}" + (f"/{code}" if code else "")
    message += f": {detail.get('message') or ''}".rstrip(": ")
    if "rate_limit" in kind or "rate_limit" in code:
        return ProviderError("rate_limit", message)
    if kind == "invalid_request_error":
        return ProviderError("client", message)
    return ProviderError("server", message)


def response_done_error(response: dict[str, Any], where: str) -> ProviderError | None:
    """The error a ``response.done`` stands for, or ``None`` when it completed.

    ``incomplete`` for ``max_output_tokens`` is ``truncated`` and for ``content_filter`` ``refused`` (both
    final); a ``failed`` response carries its error; ``cancelled`` or another reason is retried."""
    status = response.get("status")
    if status == "completed":
        return None
    details = response.get("status_details") or {}
    reason = details.get("reason") if isinstance(details, dict) else None
    if status == "incomplete" and reason == "max_output_tokens":
        return ProviderError("truncated", f"response from {where} stopped at max_output_tokens")
    if status == "incomplete" and reason == "content_filter":
        return ProviderError("refused", f"response from {where} stopped by the content filter")
    if status == "failed" and isinstance(details, dict) and details.get("error"):
        return error_event(details["error"], where)
    return ProviderError("server", f"response from {where} ended {status}" + (f" ({reason})" if reason else ""))


class RealtimeFold:
    """Server events of one attempt folded into the reply."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.reply = ReplyCollector(REALTIME_RATE, where)
        self.model_version: str | None = None
        self.response: dict[str, Any] | None = None
        self.usage = Usage(None, None)
        self.response_id: str | None = None
        """The id of the response being folded (from ``response.created`` or the first delta naming one)."""

    def _check_response(self, rid: object) -> None:
        """Events of another response than the one being folded are refused, never merged into the reply."""
        if rid is None:
            return  # the beta protocol's events may name no response
        if self.response_id is None:
            self.response_id = rid if isinstance(rid, str) else str(rid)
        elif rid != self.response_id:
            message = f"{self.where} sent an event of response {rid!r:.80} while answering {self.response_id!r:.80}"
            raise ProviderError("bad_response", f"{message}: refused", retryable=False)

    def feed(self, event: dict[str, Any], at: float) -> bool:
        """Take one event received ``at`` seconds after the commit; ``True`` once the response is done.

        Fields of unexpected types raise ``bad_response`` naming the event, never a bare ``TypeError``."""
        try:
            return self._feed(event, at)
        except (AttributeError, TypeError, KeyError) as exc:
            raise malformed(self.where, event, exc) from None

    def _feed(self, event: dict[str, Any], at: float) -> bool:
        kind = event.get("type")
        if kind == "error":
            raise error_event(event.get("error"), self.where)
        if kind == "response.created" or kind == "response.done":
            self._check_response((event.get("response") or {}).get("id"))
        elif "response_id" in event:
            self._check_response(event["response_id"])
        if kind in ("session.created", "session.updated"):
            session = event.get("session") or {}
            self.model_version = session.get("model") or self.model_version
        elif kind in _AUDIO_DELTAS:
            self.reply.audio(event.get("delta"), at)
        elif kind in _TEXT_DELTAS:
            self.reply.text(event.get("delta"), at)
        elif kind in _TEXT_DONE and isinstance(event.get(_TEXT_DONE[kind]), str):
            self.reply.final_text = event[_TEXT_DONE[kind]]
        elif kind == "response.done":
            response = event.get("response")
            self.response = response if isinstance(response, dict) else {}
            failure = response_done_error(self.response, self.where)
            if failure is not None:
                raise failure
            usage = self.response.get("usage") or {}
            self.usage = Usage.checked({k: usage.get(k) for k in ("input_tokens", "output_tokens")})
            return True
        return False

    def result(self, total_s: float) -> SessionResult:
        """The finished reply."""
        response = self.response or {}
        return SessionResult(
            text=self.reply.reply_text(),
            pcm=bytes(self.reply.pcm),
            rate=REALTIME_RATE,
            model_version=self.model_version,
            response_id=response.get("id"),
            status=response.get("status"),
            usage=self.usage,
            first_audio_s=self.reply.first_audio_s,
            first_text_s=self.reply.first_text_s,
            total_s=total_s,
        )


class OpenAIRealtime:
    """The ``realtime:openai:`` protocol for one model at one endpoint."""

    provider = "openai-realtime"
    input_rate = REALTIME_RATE

    def __init__(self, model: str, endpoint: str, key: str, settings: RealtimeSettings) -> None:
        self.model = model
        self.endpoint = endpoint
        self._key = key
        self.realtime = settings

    def url(self) -> str:
        """The endpoint with ``?model=`` (as the SDK builds it)."""
        joiner = "&" if "?" in self.endpoint else "?"
        return f"{self.endpoint}{joiner}model={quote(self.model, safe='')}"

    def headers(self) -> dict[str, str]:
        """``Authorization: Bearer`` (the GA API needs no ``OpenAI-Beta`` header)."""
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def settings(self) -> dict[str, Any]:
        """Voice, output modality, output cap and chunking."""
        s = self.realtime
        return {"voice": s.voice, "output": s.output, "max_tokens": s.max_tokens, "chunk_ms": s.chunk_ms}

    async def converse(self, session: WsSession, turn: SessionInput) -> SessionResult:
        """Send the turn, commit, ask for the response and fold events until ``response.done``."""
        await self.setup(session, turn)
        return await self.exchange(session, turn)

    async def setup(self, session: WsSession, turn: SessionInput) -> None:
        """``session.update`` (the session's answer is folded with the first turn's events)."""
        await session.send(session_update(turn, self.realtime))

    async def exchange(self, session: WsSession, turn: SessionInput) -> SessionResult:
        """One turn: its events, the commit, ``response.create``, then events until ``response.done``."""
        for event in exchange_events(turn, self.realtime):
            await session.send(event)
        await session.send(COMMIT)
        start = time.perf_counter()
        await session.send(RESPONSE_CREATE)
        fold = RealtimeFold(session.where)
        while not fold.feed(await session.receive(), time.perf_counter() - start):
            pass
        return fold.result(time.perf_counter() - start)
