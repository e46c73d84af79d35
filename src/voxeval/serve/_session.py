"""One served OpenAI Realtime session: client events in, server events out; turn detection on the incoming audio,
the system's reply streamed as deltas, barge-in cancelling it."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from voxeval.serve import _events as ev
from voxeval.serve._config import REALTIME_RATE, ClientError, SessionConfig, apply_update
from voxeval.serve._conversation import MAX_ITEMS, Item, build_turn, decode_audio, item_from_event
from voxeval.serve._runner import SystemRunner
from voxeval.serve._vad import SileroStream, SpeechEdge, TurnDetector
from voxeval.systems import Turn

BYTES_PER_MS = REALTIME_RATE * 2 // 1000
"""16-bit mono PCM at 24 kHz."""
MIN_COMMIT_MS = 100
"""Shortest buffer a commit accepts (the API's ``input_audio_buffer_commit_empty`` rule)."""
MAX_BUFFER_S = 300
"""Longest input buffer held before a commit; more is refused with an error event."""
KEEP_BEFORE_SPEECH_MS = 2000
"""With server VAD, audio kept while nobody speaks (at least ``prefix_padding_ms`` + 100 ms): a session may stream
silence for as long as it likes."""
MAX_CONVERSATION_S = 1800
"""Most user audio one session's conversation holds."""


@dataclass(frozen=True)
class ServeOptions:
    """How the server answers."""

    instructions: str
    """Instructions of a session that sends none (the reported default)."""
    language: str = "ja"
    """``Turn.language`` of every turn (the protocol has no session language)."""
    speed: float = 1.0
    """Reply audio streamed at this multiple of real time; ``math.inf`` sends it at once."""
    delta_ms: int = 100
    """Audio per ``response.output_audio.delta``."""
    log: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr, flush=True))
    """Where failures of the served system are reported (the operator's console)."""


@dataclass
class Active:
    """The response in progress."""

    id: str
    turn: Turn
    output: str
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    reason: str = ""
    sent: str = ""
    """Transcript sent so far (what a cancelled reply leaves in the conversation)."""


class RealtimeSession:
    """The server side of one connection."""

    def __init__(self, connection: Any, runner: SystemRunner, options: ServeOptions, number: int, model: str) -> None:
        self.connection, self.runner, self.options = connection, runner, options
        self.id = f"sess_{number}"
        self.config = SessionConfig(instructions=options.instructions, model=model)
        self.items: list[Item] = []
        self.buffer = bytearray()
        self.buffer_start = 0
        """Where ``buffer`` begins, in bytes of all audio appended in the session (kept in bytes: no drift)."""
        self.vad: tuple[SileroStream, TurnDetector, int] | None = None
        self.speech_item: str | None = None
        self.active: Active | None = None
        self._task: asyncio.Task[None] | None = None
        self._counts = {"event": 0, "item": 0, "resp": 0}

    def _id(self, kind: str) -> str:
        self._counts[kind] += 1
        return f"{kind}_{self.id[5:]}_{self._counts[kind]}"

    async def send(self, event: dict[str, Any]) -> None:
        await self.connection.send(json.dumps({"event_id": self._id("event"), **event}, ensure_ascii=False))

    async def run(self) -> None:
        """Serve until the client leaves; a response in progress is cancelled then."""
        await self.send({"type": "session.created", "session": self.config.row(self.id)})
        try:
            async for raw in self.connection:
                await self.handle(raw)
        finally:
            if self.active is not None:
                self.active.cancelled.set()
            if self._task is not None:
                await asyncio.gather(self._task, return_exceptions=True)

    async def handle(self, raw: str | bytes) -> None:
        """One client message; a refused one is answered with an ``error`` event."""
        event_id = None
        try:
            event = json.loads(raw) if isinstance(raw, str) else None
            if not isinstance(event, dict):
                raise ClientError("invalid_json", "a client event is a JSON object sent as a text message")
            event_id = event.get("event_id") if isinstance(event.get("event_id"), str) else None
            await self.dispatch(event)
        except json.JSONDecodeError as exc:
            await self.send(ev.error(ClientError("invalid_json", f"not JSON: {exc}"), None))
        except ClientError as exc:
            await self.send(ev.error(exc, event_id))

    async def dispatch(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "session.update":
            self.config = apply_update(self.config, event.get("session"))
            self.vad = None  # new settings: a fresh detector (speech in progress is forgotten)
            await self.send({"type": "session.updated", "session": self.config.row(self.id)})
        elif kind == "input_audio_buffer.append":
            await self.append(decode_audio(_field(event, "audio", str), "audio"))
        elif kind == "input_audio_buffer.commit":
            if len(self.buffer) < MIN_COMMIT_MS * BYTES_PER_MS:
                raise ClientError("input_audio_buffer_commit_empty", f"buffer too small: at least {MIN_COMMIT_MS} ms")
            await self.commit(len(self.buffer), self.speech_item or self._id("item"))
        elif kind == "input_audio_buffer.clear":
            self.buffer_start += len(self.buffer)
            self.buffer, self.speech_item = bytearray(), None
            self._reset_detector()
            await self.send({"type": "input_audio_buffer.cleared"})
        elif kind == "conversation.item.create":
            previous = event.get("previous_item_id")
            if previous is not None and previous != (self.items[-1].id if self.items else None):
                message = "items are only appended: previous_item_id must be the last item's id (or omitted)"
                raise ClientError("unsupported", message, "previous_item_id")
            await self.add(item_from_event(event.get("item"), self._id("item")))
        elif kind == "response.create":
            self.start_response(_response_options(event.get("response"), self.config))
        elif kind == "response.cancel":
            wanted = event.get("response_id")
            if self.active is None or (wanted is not None and wanted != self.active.id):
                raise ClientError("response_cancel_not_active", "no response in progress to cancel", "response_id")
            self.cancel("client_cancelled")
        else:
            raise ClientError("invalid_event", f"client event type {kind!r} is not served (docs/serve.md)", "type")

    async def append(self, pcm: bytes) -> None:
        """Buffer the audio; with server VAD, score it and act on the edges it completes."""
        if len(self.buffer) + len(pcm) > MAX_BUFFER_S * REALTIME_RATE * 2:
            raise ClientError("input_audio_buffer_too_long", f"the input buffer holds at most {MAX_BUFFER_S} s")
        here = self.buffer_start + len(self.buffer)
        self.buffer += pcm
        vad = self.config.turn_detection
        if vad is None:
            return
        if self.vad is None:
            self.vad = (_silero(), TurnDetector(vad), here)  # the stream's window 0 starts here
        stream, detector, origin = self.vad
        first = stream.windows
        for edge in detector.feed(stream.feed(pcm), first):
            await self.on_edge(edge, origin)
        keep = max(KEEP_BEFORE_SPEECH_MS, vad.prefix_padding_ms + 100) * BYTES_PER_MS
        if not detector.speaking and len(self.buffer) > keep:
            self._drop(len(self.buffer) - keep)  # a turn needs only its padded start: silence is not hoarded

    async def on_edge(self, edge: SpeechEdge, origin: int) -> None:
        """Act on a VAD edge; ``origin``: the byte of session audio where the detector's stream began."""
        vad = self.config.turn_detection
        assert vad is not None  # edges come only from a detector of the current settings
        padding = vad.prefix_padding_ms * BYTES_PER_MS
        if edge.kind == "started":
            self.speech_item = self._id("item")
            start = max(self.buffer_start, origin + edge.at_ms * BYTES_PER_MS - padding) // BYTES_PER_MS
            if self.active is not None and vad.interrupt_response:
                self.cancel("turn_detected")  # before the event is sent: no delta may follow it on the wire
            await self.send(ev.speech_started(start, self.speech_item))
            return
        item_id = self.speech_item or self._id("item")
        end = origin + edge.at_ms * BYTES_PER_MS
        await self.send(ev.speech_stopped(end // BYTES_PER_MS, item_id))
        self._drop(max(0, origin + edge.speech_start_ms * BYTES_PER_MS - padding - self.buffer_start))
        await self.commit(min(len(self.buffer), end - self.buffer_start), item_id)
        if not vad.create_response:
            return
        if self.active is not None:
            raise ClientError("conversation_already_has_active_response", "the turn ended while a response was active")
        self.start_response(self.config)

    def _drop(self, size: int) -> None:
        """Drop audio before a turn's padded start from the buffer."""
        size -= size % 2
        self.buffer_start += size
        del self.buffer[:size]

    async def commit(self, size: int, item_id: str) -> None:
        """The buffer's first ``size`` bytes become a user item (the rest stays buffered)."""
        size -= size % 2
        pcm = bytes(self.buffer[:size])
        self._drop(size)
        self.speech_item = None
        self._reset_detector()
        previous = self.items[-1].id if self.items else None
        await self.send(ev.committed(item_id, previous))
        await self.add(Item(item_id, "user", "", pcm))

    def _reset_detector(self) -> None:
        if self.vad is not None:
            self.vad[1].reset()

    async def add(self, item: Item) -> None:
        heard = sum(len(i.pcm) for i in self.items) + len(item.pcm)
        if len(self.items) >= MAX_ITEMS or heard > MAX_CONVERSATION_S * REALTIME_RATE * 2:
            raise ClientError("conversation_too_long", f"a session holds {MAX_ITEMS} items, {MAX_CONVERSATION_S} s")
        previous = self.items[-1].id if self.items else None
        self.items.append(item)
        await self.send(ev.item_added(item.row(), previous))
        await self.send(ev.item_added(item.row(), previous, "done"))

    def start_response(self, config: SessionConfig) -> None:
        if self.active is not None:
            raise ClientError("conversation_already_has_active_response", "a response is already in progress")
        turn_id = f"{self.id}/{self.items[-1].id}" if self.items else self.id
        turn = build_turn(self.items, turn_id, (config.instructions, self.options.language))
        self.active = Active(self._id("resp"), turn, config.output)
        self._task = asyncio.ensure_future(self._respond(self.active))

    def cancel(self, reason: str) -> None:
        """Cancel the response in progress: no delta is sent after this returns."""
        assert self.active is not None
        self.active.reason = reason
        self.active.cancelled.set()

    async def _respond(self, active: Active) -> None:
        from websockets.exceptions import ConnectionClosed

        from voxeval.serve._stream import stream_reply

        try:
            await stream_reply(self, active)
        except ConnectionClosed:
            pass  # the client left mid-reply: nobody to tell
        except Exception as exc:  # a fault of the server itself (the system's own failures are handled inside)
            self.options.log(f"voxeval serve: {self.id}: response {active.id} broke: {exc!r}")
            await self.connection.close(1011, "voxeval serve: internal error")
        finally:
            self.items.append(Item(self._id("item"), "assistant", active.sent))
            self.active = None


def _silero() -> SileroStream:
    """A VAD stream; without faster-whisper an error event says which extra to install (there is no fallback)."""
    from voxeval.errors import MissingDependencyError

    try:
        return SileroStream()
    except MissingDependencyError as exc:
        where = "session.audio.input.turn_detection"
        raise ClientError("turn_detection_unavailable", f"{exc}; or set turn_detection to null", where) from None


def _field(event: dict[str, Any], name: str, kind: type) -> Any:
    value = event.get(name)
    if not isinstance(value, kind):
        raise ClientError("invalid_value", f"{event.get('type')} needs {name} ({kind.__name__})", name)
    return value


def _response_options(options: object, config: SessionConfig) -> SessionConfig:
    """``response.create``'s ``response`` object: ``instructions`` and ``output_modalities`` for this response."""
    if options is None:
        return config
    if not isinstance(options, dict):
        raise ClientError("invalid_type", "response must be an object", "response")
    allowed = {"instructions", "output_modalities"}
    for key, value in options.items():
        if key not in allowed and value not in (None, "auto", {}, []):
            raise ClientError("unsupported", f"response.{key} is not implemented by voxeval serve", f"response.{key}")
    return apply_update(config, {k: v for k, v in options.items() if k in allowed})


def pace_seconds(index: int, delta_ms: int, speed: float) -> float:
    """When the ``index``-th audio delta is due, in seconds after the first (``speed`` × real time)."""
    return 0.0 if math.isinf(speed) else index * delta_ms / 1000 / speed
