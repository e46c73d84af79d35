"""A full-duplex mock: server-side turn detection on the audio it receives, with configured turn-taking.

Voice activity is energy based and sample exact: a sample of ``|x| ≥ level`` is sound. The user's turn ends after
``silence_ms`` of silence (OpenAI ``input_audio_buffer.speech_stopped``), and the reply's first audio goes out
``reply_delay_ms`` later, paced at real time: the configured response onset latency is
``silence_ms + reply_delay_ms``, and a pause longer than ``silence_ms`` is taken over. User speech starting while
the model talks is a barge-in: with ``barge_in="stop"`` the reply's audio ends exactly ``stop_after_ms`` after the
user's onset (OpenAI ``response.done`` status ``cancelled``; Gemini ``serverContent.interrupted``); a stretch that
is already over by then and shorter than ``backchannel_max_s`` is a backchannel, talked through (and not answered)
with ``backchannel="continue"``. The clock of the received audio is its arrival: sample ``s`` plays at the earliest
start the frames' arrivals imply plus ``s / rate``, so a client sending at real time sees the configured values
within its own scheduling jitter.
"""

from __future__ import annotations

import asyncio
import base64
import json
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import numpy as np

from voxeval.testing.realtime._protocols import OUTPUT_RATE, MockReply, MockTurn, dumps
from voxeval.testing.realtime._server import RealtimeMockServer, RecordedSession, Responder, default_responder


@dataclass(frozen=True)
class TurnBehaviour:
    """How the mock model takes turns."""

    silence_ms: int = 500
    """Silence that ends the user's turn; a pause longer than this is taken over."""
    reply_delay_ms: int = 200
    """From the end of the turn being detected to the reply's first audio."""
    reply_s: float = 3.0
    """Length of each reply (a tone)."""
    barge_in: Literal["stop", "ignore"] = "stop"
    """What user speech over the reply does."""
    stop_after_ms: int = 300
    """With ``stop``: the reply's audio ends this long after the user's onset."""
    backchannel: Literal["continue", "stop"] = "continue"
    """What a backchannel (a short stretch over by the stop moment) does."""
    backchannel_max_s: float = 0.6
    """Longest stretch of user speech that counts as a backchannel."""
    level: int = 33
    """``|sample|`` that counts as sound."""
    delta_ms: int = 40
    """Audio per delta."""
    late_deltas: int = 0
    """Audio deltas still sent after a cancel (a server slow to stop; the client must count them)."""


class DuplexMockServer(RealtimeMockServer):
    """:class:`RealtimeMockServer` whose sessions detect turns themselves (both protocols on the same paths).

    >>> with DuplexMockServer(TurnBehaviour(silence_ms=300)) as srv:
    ...     srv.openai_url.startswith("ws://127.0.0.1:")
    True
    """

    def __init__(
        self, behaviour: TurnBehaviour | None = None, responder: Responder = default_responder, *, drops: int = 0
    ) -> None:
        self.behaviour = behaviour or TurnBehaviour()
        self.drops = drops
        """Sessions still to be dropped (closed with 1011 as their first reply would begin), one each."""
        super().__init__(responder, audio_seconds=self.behaviour.reply_s)

    async def _handle(self, connection: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        record = self._begin(connection.request.path, connection.request.headers)
        try:
            if record.protocol in ("openai", "gemini"):
                await _DuplexSession(self, connection, record).run()
            else:
                await connection.close(1008, f"unknown path {record.path}")
        except ConnectionClosed:
            pass


class _DuplexSession:
    def __init__(self, server: DuplexMockServer, connection: Any, record: RecordedSession) -> None:
        self.server, self.connection, self.record = server, connection, record
        self.b = server.behaviour
        self.openai = record.protocol == "openai"
        self.rate = 24_000 if self.openai else 16_000
        self.loop = asyncio.get_running_loop()
        self.stream_t0: float | None = None
        self.samples = 0
        self.speaking = False
        self.onset = self.last_loud = 0.0
        self.heard = bytearray()
        self.interrupts = True
        self.model = ""
        self.replies = 0
        self.speaking_until = 0.0  # loop time the current reply's audio ends (as scheduled)
        self.stop_at: float | None = None
        self.queue_end = 0.0
        self.events = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.stopped_for: set[float] = set()  # onsets of the stretches the reply was stopped for

    async def send(self, message: dict[str, Any]) -> None:
        if self.openai:
            self.events += 1
            message = {"event_id": f"event_{self.record.number}_{self.events}", **message}
        await self.connection.send(dumps(message))

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def run(self) -> None:
        self.model = parse_qs(urlsplit(self.record.path).query).get("model", [""])[0]
        if self.openai:
            await self.send({"type": "session.created", "session": {"type": "realtime", "model": self.model}})
        try:
            async for raw in self.connection:
                message = json.loads(raw)
                self.record.messages.append(message)
                await self.message(message)
        finally:
            for task in list(self.tasks):
                task.cancel()

    async def message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "session.update":
            detection = ((message["session"].get("audio") or {}).get("input") or {}).get("turn_detection") or {}
            self.interrupts = detection.get("interrupt_response", True) is not False
            await self.send({"type": "session.updated", "session": {"type": "realtime", "model": self.model}})
        elif message.get("type") == "input_audio_buffer.append":
            await self.audio(base64.b64decode(message["audio"]))
        elif "setup" in message:
            config = message["setup"].get("realtimeInputConfig") or {}
            if (config.get("automaticActivityDetection") or {}).get("disabled"):
                await self.connection.close(1008, "mock: the duplex mock needs automatic activity detection")
                return
            self.interrupts = config.get("activityHandling") != "NO_INTERRUPTION"
            await self.send({"setupComplete": {}})
        elif "realtimeInput" in message and "audio" in message["realtimeInput"]:
            data = message["realtimeInput"]["audio"]["data"]
            await self.audio(base64.b64decode(data.replace("-", "+").replace("_", "/")))

    async def audio(self, pcm: bytes) -> None:
        # The audio clock: the earliest start any frame's arrival implies, so one late frame shifts nothing.
        implied = self.loop.time() - self.samples / self.rate
        self.stream_t0 = implied if self.stream_t0 is None else min(self.stream_t0, implied)
        x = np.frombuffer(pcm, dtype="<i2")
        base = self.stream_t0 + self.samples / self.rate
        self.samples += x.size
        loud = np.flatnonzero(np.abs(x.astype(np.int32)) >= self.b.level)
        if loud.size:
            if not self.speaking:
                self.speaking, self.onset, self.heard = True, base + loud[0] / self.rate, bytearray()
                if self.openai:
                    await self.send({"type": "input_audio_buffer.speech_started", "audio_start_ms": 0})
                self.barge_in(self.onset)
            self.last_loud = base + (loud[-1] + 1) / self.rate
        if self.speaking:
            self.heard += pcm
            if base + x.size / self.rate - self.last_loud >= self.b.silence_ms / 1000:
                self.speaking = False
                if self.openai:
                    await self.send({"type": "input_audio_buffer.speech_stopped", "audio_end_ms": 0})
                self.end_of_turn(self.onset, self.last_loud)

    def barge_in(self, onset: float) -> None:
        if self.loop.time() >= self.speaking_until or self.b.barge_in == "ignore" or not self.interrupts:
            return
        self.spawn(self.decide(onset))

    async def decide(self, onset: float) -> None:
        at = onset + self.b.stop_after_ms / 1000
        await asyncio.sleep(max(0.0, at - self.loop.time()))
        over = not self.speaking or at - self.last_loud >= 0.1
        if self.b.backchannel == "continue" and over and self.last_loud - onset < self.b.backchannel_max_s:
            return
        if at < self.speaking_until:
            self.stop_at = at
            self.stopped_for.add(onset)

    def end_of_turn(self, onset: float, end: float) -> None:
        was_talking = onset < self.speaking_until
        short = end - onset < self.b.backchannel_max_s
        if was_talking and self.b.backchannel == "continue" and short and onset not in self.stopped_for:
            return  # a backchannel over the reply: talked through, not answered
        turn = MockTurn(self.record.protocol, self.model, "", "", bytes(self.heard), self.rate)
        start = max(end + (self.b.silence_ms + self.b.reply_delay_ms) / 1000, self.queue_end)
        reply = self.server._reply(turn)
        self.queue_end = start + len(reply.pcm) / 2 / OUTPUT_RATE
        self.spawn(self.speak(reply, start, end))

    async def speak(self, reply: MockReply, start: float, end: float) -> None:
        await asyncio.sleep(max(0.0, start - self.loop.time()))
        if self.onset > end:
            self.queue_end = self.loop.time()
            return  # the user spoke again before the reply began: it is dropped (the new stretch is answered)
        if self.server.drops > 0:
            self.server.drops -= 1
            return await self.connection.close(1011, "mock: dropped mid-scenario")
        self.replies += 1
        rid = f"resp_{self.record.number}_{self.replies}"
        self.speaking_until, self.stop_at = start + len(reply.pcm) / 2 / OUTPUT_RATE, None
        if self.openai:
            await self.send({"type": "response.created", "response": {"id": rid, "status": "in_progress"}})
        size = OUTPUT_RATE * 2 * self.b.delta_ms // 1000
        chunks = [reply.pcm[i : i + size] for i in range(0, len(reply.pcm), size)]
        words = reply.text.split() or [reply.text]
        for k, chunk in enumerate(chunks):
            due = start + k * self.b.delta_ms / 1000
            await asyncio.sleep(max(0.0, due - self.loop.time()))
            if self.stop_at is not None and due + len(chunk) / 2 / OUTPUT_RATE > self.stop_at:
                chunk = chunk[: max(0, round((self.stop_at - due) * OUTPUT_RATE)) * 2]
                if chunk:
                    await self.delta(rid, chunk, "")
                await asyncio.sleep(max(0.0, self.stop_at - self.loop.time()))
                await self.cancelled(rid)
                for late in chunks[k + 1 : k + 1 + self.b.late_deltas]:  # a server that does not stop at once
                    await self.delta(rid, late, "")
                if not self.openai:  # Gemini ends the interrupted turn
                    await self.send({"serverContent": {"turnComplete": True}})
                return
            await self.delta(rid, chunk, words[k] + " " if k < len(words) else "")
        self.speaking_until = self.loop.time()
        await self.completed(rid, reply)

    async def delta(self, rid: str, pcm: bytes, text: str) -> None:
        data = base64.b64encode(pcm).decode("ascii")
        if self.openai:
            await self.send({"type": "response.output_audio.delta", "response_id": rid, "delta": data})
            if text:
                await self.send({"type": "response.output_audio_transcript.delta", "response_id": rid, "delta": text})
            return
        content: dict[str, Any] = {
            "modelTurn": {"parts": [{"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": data}}]}
        }
        if text:
            content["outputTranscription"] = {"text": text}
        await self.send({"serverContent": content})

    async def cancelled(self, rid: str) -> None:
        self.speaking_until = self.queue_end = self.loop.time()
        if self.openai:
            await self.send({"type": "response.done", "response": {"id": rid, "status": "cancelled"}})
        else:
            await self.send({"serverContent": {"interrupted": True}})

    async def completed(self, rid: str, reply: MockReply) -> None:
        if self.openai:
            await self.send(
                {"type": "response.output_audio_transcript.done", "response_id": rid, "transcript": reply.text}
            )
            await self.send({"type": "response.done", "response": {"id": rid, "status": "completed"}})
        else:
            await self.send({"serverContent": {"turnComplete": True}})
