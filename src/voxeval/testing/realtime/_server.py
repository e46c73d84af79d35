"""A WebSocket server on 127.0.0.1 that speaks OpenAI Realtime and Gemini Live, with deterministic faults."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from voxeval.testing.realtime._faults import SessionFault, SessionFaultPlan
from voxeval.testing.realtime._hostile import Hostility, before_reply, flood, foreign_event
from voxeval.testing.realtime._protocols import (
    OUTPUT_RATE,
    MockReply,
    MockSaid,
    MockTurn,
    Pacing,
    dumps,
    openai_usage,
    stream_reply,
)

Responder = Callable[[MockTurn], "str | MockReply"]
"""``turn -> reply``: a text (spoken as a tone of ``audio_seconds``) or a :class:`MockReply`."""
GEMINI_PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
"""Path the Gemini Live mock answers on."""
OPENAI_PATH = "/v1/realtime"
"""Path the OpenAI Realtime mock answers on."""
SILENT_HOLD_SECONDS = 30.0
"""Longest a ``silent`` session is held open before the mock closes it."""


def default_responder(turn: MockTurn) -> str:
    """The reply text when none is given."""
    return "はい、わかりました。"


def tone(seconds: float, frequency: float = 220.0) -> bytes:
    """A 16-bit 24 kHz sine tone as PCM."""
    t = np.arange(round(seconds * OUTPUT_RATE)) / OUTPUT_RATE
    return (0.3 * np.sin(2 * np.pi * frequency * t) * 32767).astype("<i2").tobytes()


@dataclass
class RecordedSession:
    """One session as the mock saw it."""

    number: int
    """1-based arrival number."""
    protocol: str
    """``openai``, ``gemini`` or ``unknown``."""
    path: str
    """Request path with its query."""
    auth_present: bool
    """Whether a key header came with the handshake (its value is never kept)."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Every client message, parsed."""
    fault: SessionFault | None = None
    """The fault injected, if any."""


class RealtimeMockServer:
    """Context manager running the mock on a free port in a background thread.

    ``require_key`` refuses handshakes without that key (HTTP 401). ``pacing`` says how replies stream;
    ``hostility`` how the mock lies (see :class:`Hostility`).
    """

    def __init__(
        self,
        responder: Responder = default_responder,
        *,
        faults: SessionFaultPlan | None = None,
        pacing: Pacing | None = None,
        require_key: str | None = None,
        audio_seconds: float = 0.3,
        hostility: Hostility | None = None,
    ) -> None:
        self.responder = responder
        self.hostility = hostility or Hostility()
        self.faults = faults or SessionFaultPlan()
        self.pacing = pacing or Pacing()
        self.require_key = require_key
        self.audio_seconds = audio_seconds
        self.sessions: list[RecordedSession] = []
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="realtime-mock")
        self._server: Any = None
        self.port = 0

    @property
    def openai_url(self) -> str:
        """The Realtime endpoint to put after ``@`` in a ``realtime:openai:`` spec."""
        return f"ws://127.0.0.1:{self.port}{OPENAI_PATH}"

    @property
    def gemini_url(self) -> str:
        """The Live endpoint to put after ``@`` in a ``live:gemini:`` spec."""
        return f"ws://127.0.0.1:{self.port}{GEMINI_PATH}"

    def count(self) -> int:
        """Sessions opened so far."""
        with self._lock:
            return len(self.sessions)

    def __enter__(self) -> RealtimeMockServer:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        self.port = int(next(iter(self._server.sockets)).getsockname()[1])
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()
        asyncio.run_coroutine_threadsafe(self._server.wait_closed(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _start(self) -> Any:
        from websockets.asyncio.server import serve

        return await serve(
            self._handle, "127.0.0.1", 0, process_request=self._check_key, max_size=None, compression=None
        )

    def _check_key(self, connection: Any, request: Any) -> Any:
        if self.hostility.redirect is not None:
            status, location = self.hostility.redirect
            response = connection.respond(status, "moved (mock)\n")
            response.headers["Location"] = location
            return response
        if self.require_key is None:
            return None
        given = request.headers.get("x-goog-api-key") or request.headers.get("authorization", "").removeprefix(
            "Bearer "
        )
        return None if given == self.require_key else connection.respond(401, "invalid API key (mock)\n")

    def _begin(self, path: str, headers: Any) -> RecordedSession:
        protocol = "openai" if path.startswith(OPENAI_PATH) else "gemini" if path.startswith(GEMINI_PATH) else "unknown"
        auth = "authorization" in headers or "x-goog-api-key" in headers
        with self._lock:
            record = RecordedSession(len(self.sessions) + 1, protocol, path, auth)
            self.sessions.append(record)
        return record

    def _fault(self, record: RecordedSession, pcm: bytes) -> SessionFault | None:
        digest = hashlib.sha256(pcm).hexdigest()
        with self._lock:
            attempt = self._attempts.get(digest, 0)
            self._attempts[digest] = attempt + 1
        record.fault = self.faults.pick(record.number, digest, attempt)
        return record.fault

    def _reply(self, turn: MockTurn) -> MockReply:
        answer = self.responder(turn)
        return answer if isinstance(answer, MockReply) else MockReply(answer, tone(self.audio_seconds))

    async def _handle(self, connection: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        record = self._begin(connection.request.path, connection.request.headers)
        try:
            if record.protocol == "openai":
                await _OpenAISession(self, connection, record).run()
            elif record.protocol == "gemini":
                await _GeminiSession(self, connection, record).run()
            else:
                await connection.close(1008, f"unknown path {record.path}")
        except ConnectionClosed:
            pass  # the client went away: nothing more to say


class _Session:
    protocol = ""

    def __init__(self, server: RealtimeMockServer, connection: Any, record: RecordedSession) -> None:
        self.server = server
        self.connection = connection
        self.record = record
        self.pcm = bytearray()
        self.instructions = ""
        self.user_text = ""
        self.model = ""
        self.history: list[MockSaid] = []
        self.hostility = server.hostility
        headers = connection.request.headers
        self.key = headers.get("x-goog-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        """The key the client sent (a hostile mock echoes it; never recorded)."""

    async def send(self, message: dict[str, Any]) -> None:
        await self.connection.send(dumps(message))

    async def send_raw(self, text: str) -> None:
        await self.connection.send(text)

    def echo(self, value: str) -> str:
        return self.hostility.echo(value, self.key)

    async def messages(self) -> Any:
        async for raw in self.connection:
            message = json.loads(raw)
            self.record.messages.append(message)
            yield message

    def turn(self, rate: int) -> MockTurn:
        return MockTurn(
            self.protocol, self.model, self.instructions, self.user_text, bytes(self.pcm), rate, tuple(self.history)
        )

    def remember(self, turn: MockTurn, reply: MockReply) -> None:
        """The session keeps its context: the turn and the reply join the history; the next turn starts empty."""
        self.history += [MockSaid("user", turn.user_text, turn.pcm), MockSaid("assistant", reply.text)]
        self.pcm = bytearray()
        self.user_text = ""

    async def hold(self) -> None:
        """A session that never answers: wait for the client to give up (bounded)."""
        try:
            await asyncio.wait_for(self.connection.wait_closed(), SILENT_HOLD_SECONDS)
        except TimeoutError:
            await self.connection.close(1000, "mock: silent session held too long")


class _OpenAISession(_Session):
    protocol = "openai"
    events = 0

    async def send(self, message: dict[str, Any]) -> None:
        """Every server event carries an ``event_id``, as the SDK's server event types require."""
        self.events += 1
        await super().send({"event_id": f"event_{self.record.number}_{self.events}", **message})

    async def run(self) -> None:
        self.model = parse_qs(urlsplit(self.record.path).query).get("model", [""])[0]
        self.output, self.max_tokens = "audio", None
        session = {"type": "realtime", "model": self.echo(self.model)}
        await self.send({"type": "session.created", "session": session})
        async for event in self.messages():
            kind = event.get("type")
            if kind == "session.update":
                session = event.get("session") or {}
                self.instructions = session.get("instructions", self.instructions)
                self.output = (session.get("output_modalities") or ["audio"])[0]
                self.max_tokens = session.get("max_output_tokens", self.max_tokens)
                await self.send({"type": "session.updated", "session": session})
            elif kind == "conversation.item.create":
                item = event.get("item") or {}
                content = item.get("content") or []
                if item.get("role") == "assistant":
                    self.history.append(MockSaid("assistant", "".join(c.get("text", "") for c in content)))
                elif any(c.get("type") == "input_audio" for c in content):
                    audio = b"".join(base64.b64decode(c["audio"]) for c in content if c.get("type") == "input_audio")
                    self.history.append(MockSaid("user", "", audio))
                else:
                    self.user_text += "".join(c.get("text", "") for c in content if c.get("type") == "input_text")
            elif kind == "input_audio_buffer.append":
                self.pcm += base64.b64decode(event["audio"], validate=True)
            elif kind == "input_audio_buffer.commit":
                await self.send({"type": "input_audio_buffer.committed", "item_id": "item_in"})
            elif kind == "response.create":
                await self.respond()

    async def respond(self) -> None:
        fault = self.server._fault(self.record, bytes(self.pcm))
        if fault == "silent":
            return await self.hold()
        if fault == "rate_limit":
            error = {"type": "rate_limit_exceeded", "code": "rate_limit_exceeded", "message": "mock: rate limit"}
            return await self.send({"type": "error", "error": error})
        turn = self.turn(24_000)
        reply = self.server._reply(turn)
        rid = self.echo(f"resp_{self.record.number}")
        await self.send({"type": "response.created", "response": {"id": rid, "status": "in_progress"}})
        ids = self.ids = {"response_id": rid, "item_id": "item_out", "output_index": 0, "content_index": 0}
        text_kind = "response.output_audio_transcript.delta" if self.output == "audio" else "response.output_text.delta"
        audio = reply if self.output == "audio" else MockReply(reply.text, b"")
        await before_reply(self.hostility, self.send_raw)
        if self.hostility.foreign is not None:
            await self.send(foreign_event(self.hostility.foreign, {**ids, "response_id": "resp_foreign"}, tone(0.1)))
        if self.hostility.flood_bytes:
            return await flood(lambda t: {"type": text_kind, **ids, "delta": t}, self.send, self.hostility.flood_bytes)
        finished = await stream_reply(
            audio,
            self.server.pacing,
            fault,
            self.server.faults.slow_seconds,
            lambda pcm: {"type": "response.output_audio.delta", **ids, "delta": base64.b64encode(pcm).decode()},
            lambda text: {"type": text_kind, **ids, "delta": text},
            self.send,
            self.fail,
        )
        if finished:
            await self.done(rid, turn, audio)
            self.remember(turn, reply)

    async def done(self, rid: str, turn: MockTurn, reply: MockReply) -> None:
        usage: dict[str, Any] = openai_usage(turn, reply)
        if self.hostility.echo_key:
            usage["output_tokens"] = self.echo("")
        status, details = "completed", None
        if isinstance(self.max_tokens, int) and usage["output_tokens"] > self.max_tokens:
            status, details = "incomplete", {"type": "incomplete", "reason": "max_output_tokens"}
        if self.output == "audio":
            await self.send({"type": "response.output_audio_transcript.done", **self.ids, "transcript": reply.text})
        response = {"id": rid, "object": "realtime.response", "status": status, "status_details": details}
        await self.send({"type": "response.done", "response": {**response, "usage": usage}})

    async def fail(self, fault: SessionFault) -> None:
        if fault == "error_event":
            error = {"type": "server_error", "code": "server_error", "message": "mock: the server had an error"}
            await self.send({"type": "error", "error": error})
        elif fault == "close_1011":
            await self.connection.close(1011, "mock: internal error mid-reply")
        else:
            await self.connection.close(1001, "mock: server going away")


class _GeminiSession(_Session):
    protocol = "gemini"
    text_mode = False

    async def run(self) -> None:
        async for message in self.messages():
            if "setup" in message:
                setup = message["setup"]
                self.model = setup.get("model", "")
                modalities = (setup.get("generationConfig") or {}).get("responseModalities") or ["AUDIO"]
                self.text_mode = modalities == ["TEXT"]
                parts = (setup.get("systemInstruction") or {}).get("parts") or []
                self.instructions = "".join(p.get("text", "") for p in parts)
                await self.send({"setupComplete": {"sessionId": self.echo("session-")}})
            elif "clientContent" in message:
                for turn in message["clientContent"].get("turns") or []:
                    parts = turn.get("parts") or []
                    text = "".join(p.get("text", "") for p in parts)
                    audio = [p["inlineData"]["data"] for p in parts if "inlineData" in p]
                    if turn.get("role") == "model":
                        self.history.append(MockSaid("assistant", text))
                    elif audio:
                        pcm = b"".join(base64.b64decode(a.replace("-", "+").replace("_", "/")) for a in audio)
                        self.history.append(MockSaid("user", "", pcm))
                    else:
                        self.user_text += text
            elif "realtimeInput" in message:
                realtime = message["realtimeInput"]
                if "activityStart" in realtime:
                    self.pcm = bytearray()
                if "audio" in realtime:
                    data = realtime["audio"]["data"].replace("-", "+").replace("_", "/")
                    self.pcm += base64.b64decode(data, validate=True)
                if "activityEnd" in realtime:
                    await self.respond()

    async def respond(self) -> None:
        fault = self.server._fault(self.record, bytes(self.pcm))
        if fault == "silent":
            return await self.hold()
        if fault == "rate_limit":
            return await self.connection.close(1011, "RESOURCE_EXHAUSTED: mock quota exceeded")
        turn = self.turn(16_000)
        reply = self.server._reply(turn)
        if self.text_mode:  # TEXT modality: the model turn carries text parts, no audio
            reply = MockReply(reply.text, b"")
        text_event = (
            (lambda text: {"serverContent": {"modelTurn": {"parts": [{"text": text}]}}})
            if self.text_mode
            else (lambda text: {"serverContent": {"outputTranscription": {"text": text}}})
        )
        rate = self.hostility.audio_rate
        mime = f"audio/pcm;rate={OUTPUT_RATE if rate is None else rate}"
        await before_reply(self.hostility, self.send_raw)
        if self.hostility.flood_bytes:
            return await flood(text_event, self.send, self.hostility.flood_bytes)
        finished = await stream_reply(
            reply,
            self.server.pacing,
            fault,
            self.server.faults.slow_seconds,
            lambda pcm: {
                "serverContent": {
                    "modelTurn": {"parts": [{"inlineData": {"mimeType": mime, "data": base64.b64encode(pcm).decode()}}]}
                }
            },
            text_event,
            self.send,
            self.fail,
        )
        if finished:
            usage = openai_usage(turn, reply)
            await self.send({"serverContent": {"generationComplete": True}})
            tokens: dict[str, Any] = {
                "promptTokenCount": usage["input_tokens"],
                "responseTokenCount": usage["output_tokens"],
                "totalTokenCount": usage["total_tokens"],
            }
            if self.hostility.echo_key:
                tokens = {**tokens, "promptTokenCount": self.echo(""), "trafficType": self.echo("")}
            await self.send({"serverContent": {"turnComplete": True}, "usageMetadata": tokens})
            self.remember(turn, reply)

    async def fail(self, fault: SessionFault) -> None:
        if fault == "go_away":
            await self.send({"goAway": {"timeLeft": "0s"}})
            await self.connection.close(1001, "going away")
        else:
            await self.connection.close(1011, "Internal error encountered. (mock)")
