"""What goes on the wire of a streamed session, per protocol: the set-up with turn detection on, one audio frame,
and a server message read into duplex events (pure; the driver does the I/O).

OpenAI Realtime: ``session.update`` with ``audio.input.turn_detection`` (``server_vad`` / ``semantic_vad``), frames
as ``input_audio_buffer.append`` (24 kHz), never a commit or ``response.create``: the server decides. Gemini Live:
``setup`` with ``realtimeInputConfig.automaticActivityDetection`` on, frames as ``realtimeInput.audio`` (16 kHz),
never ``activityStart`` / ``activityEnd``. Gemini names no responses: turns are numbered ``turn-1``, ``turn-2``…
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from voxeval.duplex import ModelAudioReceived, PlaybackFlushed, ServerEvent, ServerKind
from voxeval.llm._types import ProviderError
from voxeval.llm.stream._options import TurnDetection

Incoming = list[tuple[ServerEvent | ModelAudioReceived | PlaybackFlushed, bytes | None]]
"""Events read from one server message, each with its 24 kHz PCM (model audio) or ``None``."""


class Wire(Protocol):
    """One protocol's messages and how its server's messages read as events."""

    provider: str
    """``openai`` or ``gemini``."""
    input_rate: int
    """Rate the session takes input audio at."""
    ready: bool
    """The server acknowledged the set-up (audio may flow)."""
    active: set[str]
    """Responses begun and not yet done or cancelled."""
    created: dict[str, float]
    """When each response began (``response.created``; Gemini: its turn's first content)."""

    def setup(self, instructions: str) -> list[dict[str, Any]]:
        """The messages that open the session, turn detection on."""
        ...

    def frame(self, pcm24: bytes) -> dict[str, Any]:
        """One frame of user audio (given at 24 kHz)."""
        ...

    def read(self, message: dict[str, Any], t: float) -> Incoming:
        """The events of one server message received at ``t``."""
        ...


def to_rate(pcm24: bytes, rate: int) -> bytes:
    """24 kHz 16-bit PCM at ``rate`` by linear interpolation (enough for 24 → 16 kHz speech frames; no state, so
    each frame is converted alone)."""
    if rate == 24_000:
        return pcm24
    x = np.frombuffer(pcm24, dtype="<i2").astype(np.float32)
    n = round(x.size * rate / 24_000)
    if x.size == 0 or n == 0:
        return b""
    y = np.interp(np.arange(n) * (24_000 / rate), np.arange(x.size), x)
    return np.round(y).astype("<i2").tobytes()


def _seconds(pcm: bytes, rate: int = 24_000) -> float:
    return len(pcm) / 2 / rate


def _decode(data: object, where: str) -> bytes:
    if not isinstance(data, str):
        raise ProviderError("bad_response", f"{where} sent an audio delta that is not base64 text", retryable=False)
    try:
        pcm = base64.b64decode(data.replace("-", "+").replace("_", "/"), validate=True)
    except ValueError:
        raise ProviderError(
            "bad_response", f"{where} sent an audio delta that is not base64", retryable=False
        ) from None
    if len(pcm) % 2:
        raise ProviderError("bad_response", f"{where} sent audio that is not 16-bit PCM (odd length)", retryable=False)
    return pcm


_OPENAI_TEXT = ("response.output_audio_transcript.delta", "response.audio_transcript.delta")


@dataclass
class OpenAIWire:
    """``realtime:openai:`` with server-side turn detection."""

    voice: str
    """Output voice."""
    detection: TurnDetection
    """The session's turn detection."""
    where: str = ""
    """The endpoint, for messages."""
    provider: str = "openai"
    input_rate: int = 24_000
    ready: bool = True  # audio may follow session.update at once
    active: set[str] = field(default_factory=set)
    created: dict[str, float] = field(default_factory=dict)

    def setup(self, instructions: str) -> list[dict[str, Any]]:
        pcm = {"type": "audio/pcm", "rate": 24_000}
        audio = {
            "input": {"format": pcm, "turn_detection": self.detection.openai()},
            "output": {"format": pcm, "voice": self.voice},
        }
        session = {"type": "realtime", "instructions": instructions, "output_modalities": ["audio"], "audio": audio}
        return [{"type": "session.update", "session": session}]

    def frame(self, pcm24: bytes) -> dict[str, Any]:
        return {"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm24).decode("ascii")}

    def read(self, message: dict[str, Any], t: float) -> Incoming:
        kind = str(message.get("type", ""))
        rid = _response_id(message)
        out: Incoming = []
        if kind == "error":
            found = message.get("error")
            error: dict[str, Any] = found if isinstance(found, dict) else {}
            code = f"{error.get('type', '')}/{error.get('code', '')}"
            if "rate_limit" in code:
                raise ProviderError("rate_limit", f"error event from {self.where}: {code}")
            out.append((ServerEvent(t, "error", None, str(error.get("message", ""))[:500], kind), None))
        elif kind in ("input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped"):
            out.append((ServerEvent(t, _kind(kind.rsplit(".", 1)[1]), None, "", kind), None))
            if kind.endswith("started") and self.active and self.detection.interrupts("openai"):
                out.append((PlaybackFlushed(t, kind), None))
        elif kind == "response.created" and rid:
            self.active.add(rid)
            self.created.setdefault(rid, t)
            out.append((ServerEvent(t, "response_created", rid, "", kind), None))
        elif kind in ("response.output_audio.delta", "response.audio.delta"):
            pcm = _decode(message.get("delta"), self.where)
            if pcm:
                out.append((ModelAudioReceived(t, _seconds(pcm), rid), pcm))
        elif kind in _OPENAI_TEXT:
            out.append((ServerEvent(t, "transcript_delta", rid, str(message.get("delta", "")), kind), None))
        elif kind == "conversation.item.input_audio_transcription.delta":
            out.append((ServerEvent(t, "input_transcript_delta", None, str(message.get("delta", "")), kind), None))
        elif kind == "response.done" and rid:
            self.active.discard(rid)
            status = (message.get("response") or {}).get("status")
            done: ServerKind = "response_cancelled" if status == "cancelled" else "response_done"
            out.append((ServerEvent(t, done, rid, "", kind), None))
        return out


def _kind(name: str) -> ServerKind:
    return "speech_started" if name == "speech_started" else "speech_stopped"


def _response_id(message: dict[str, Any]) -> str | None:
    response = message.get("response")
    rid = response.get("id") if isinstance(response, dict) else message.get("response_id")
    return rid if isinstance(rid, str) and rid else None


@dataclass
class GeminiWire:
    """``live:gemini:`` with automatic activity detection."""

    model: str
    """Model name."""
    voice: str
    """Prebuilt voice."""
    detection: TurnDetection
    """The session's activity detection."""
    where: str = ""
    """The endpoint, for messages."""
    provider: str = "gemini"
    input_rate: int = 16_000
    ready: bool = False
    active: set[str] = field(default_factory=set)
    created: dict[str, float] = field(default_factory=dict)
    turns: int = 0
    """Model turns begun so far."""
    interrupted: str | None = None
    """The turn ``interrupted`` last, until its ``turnComplete``: audio arriving meanwhile is that turn's (audio
    after the cancel, counted), not a new turn's."""

    def setup(self, instructions: str) -> list[dict[str, Any]]:
        speech = {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": self.voice}}}
        setup = {
            "model": self.model if self.model.startswith("models/") else f"models/{self.model}",
            "generationConfig": {"responseModalities": ["AUDIO"], "speechConfig": speech},
            "systemInstruction": {"parts": [{"text": instructions}]},
            "inputAudioTranscription": {},
            "outputAudioTranscription": {},
            "realtimeInputConfig": self.detection.gemini(),
        }
        return [{"setup": setup}]

    def frame(self, pcm24: bytes) -> dict[str, Any]:
        data = base64.b64encode(to_rate(pcm24, self.input_rate)).decode("ascii")
        return {"realtimeInput": {"audio": {"data": data, "mimeType": f"audio/pcm;rate={self.input_rate}"}}}

    def _turn(self, t: float) -> str:
        if self.interrupted is not None:
            return self.interrupted
        if not self.active:
            self.turns += 1
            self.active.add(f"turn-{self.turns}")
            self.created[f"turn-{self.turns}"] = t
        return f"turn-{self.turns}"

    def read(self, message: dict[str, Any], t: float) -> Incoming:
        if "setupComplete" in message:
            self.ready = True
        content = message.get("serverContent")
        if not isinstance(content, dict):
            return []
        out: Incoming = []
        for part in (content.get("modelTurn") or {}).get("parts") or []:
            inline = part.get("inlineData") if isinstance(part, dict) else None
            if inline:
                mime = str(inline.get("mimeType", ""))
                if not mime.startswith("audio/pcm") or ("rate=" in mime and "rate=24000" not in mime):
                    raise ProviderError("bad_response", f"{self.where} sent audio as {mime!r}", retryable=False)
                pcm = _decode(inline.get("data"), self.where)
                if pcm:
                    out.append((ModelAudioReceived(t, _seconds(pcm), self._turn(t)), pcm))
        said = content.get("outputTranscription")
        if isinstance(said, dict) and said.get("text"):
            out.append(
                (ServerEvent(t, "transcript_delta", self._turn(t), str(said["text"]), "outputTranscription"), None)
            )
        heard = content.get("inputTranscription")
        if isinstance(heard, dict) and heard.get("text"):
            out.append((ServerEvent(t, "input_transcript_delta", None, str(heard["text"]), "inputTranscription"), None))
        current = f"turn-{self.turns}" if self.active else self.interrupted
        if content.get("interrupted"):
            out.append((ServerEvent(t, "interrupted", current, "", "serverContent.interrupted"), None))
            out.append((PlaybackFlushed(t, "serverContent.interrupted"), None))
            self.active.clear()
            self.interrupted = current
        if content.get("turnComplete"):
            out.append((ServerEvent(t, "turn_complete", current, "", "serverContent.turnComplete"), None))
            self.active.clear()
            self.interrupted = None
        return out
