"""Gemini Live (``BidiGenerateContent``, as ``google.genai.live`` sends it): the client messages of one turn (pure)
and the server messages folded into a :class:`SessionResult`.

One turn: ``setup`` (model, AUDIO response modality, voice, system instruction, input and output transcription
on, automatic activity detection off), answered by ``setupComplete``; the user prompt as ``clientContent`` (turn
not complete); ``activityStart``, the audio as 16 kHz ``realtimeInput.audio`` chunks, ``activityEnd``; then the
model turn's inline audio, ``outputTranscription`` and ``usageMetadata`` until ``turnComplete``. Keys are sent in
lowerCamelCase (the SDK mixes in snake_case; the API's proto JSON reads both).
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any

from voxeval.llm._types import ProviderError, Usage
from voxeval.llm.sessions._collect import ReplyCollector, malformed
from voxeval.llm.sessions._session import SessionInput, SessionResult
from voxeval.llm.sessions._ws import WsSession

LIVE_URL = "wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.{version}.GenerativeService.BidiGenerateContent"
"""Default endpoint of ``live:gemini:`` (``{version}``: ``v1beta`` unless ``api_version`` says otherwise)."""
LIVE_INPUT_RATE = 16_000
"""Input PCM rate the Live API documents (``audio/pcm;rate=16000``)."""
LIVE_OUTPUT_RATE = 24_000
"""Output PCM rate of the native-audio models (each chunk's MIME type says it; checked)."""
DEFAULT_VOICE = "Kore"
"""Prebuilt voice when none is named."""
_FINE_REASONS = (None, "TURN_COMPLETE_REASON_UNSPECIFIED", "NEED_MORE_INPUT")


@dataclass(frozen=True)
class LiveSettings:
    """What a ``live:gemini:`` session is configured with."""

    voice: str = DEFAULT_VOICE
    """Prebuilt voice name."""
    output: str = "audio"
    """``audio`` (speech plus its transcription) or ``text``."""
    max_tokens: int | None = None
    """``maxOutputTokens``; ``None`` leaves the API's default."""
    temperature: float | None = 0.0
    """``temperature``; ``None`` sends none."""
    chunk_ms: int = 100
    """Milliseconds of input audio per ``realtimeInput.audio`` message."""


def setup_message(model: str, turn: SessionInput, settings: LiveSettings) -> dict[str, Any]:
    """The ``setup`` message (pure)."""
    generation: dict[str, Any] = {"responseModalities": [settings.output.upper()]}
    if settings.temperature is not None:
        generation["temperature"] = settings.temperature
    if settings.max_tokens is not None:
        generation["maxOutputTokens"] = settings.max_tokens
    if settings.output == "audio":
        generation["speechConfig"] = {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": settings.voice}}}
    setup: dict[str, Any] = {
        "model": model if model.startswith("models/") else f"models/{model}",
        "generationConfig": generation,
        "systemInstruction": {"parts": [{"text": turn.instructions}]},
        "inputAudioTranscription": {},
        "realtimeInputConfig": {"automaticActivityDetection": {"disabled": True}},
    }
    if settings.output == "audio":
        setup["outputAudioTranscription"] = {}
    return {"setup": setup}


def turn_messages(turn: SessionInput, settings: LiveSettings) -> list[dict[str, Any]]:
    """The messages after ``setupComplete`` up to (not including) ``activityEnd`` (pure)."""
    if turn.rate != LIVE_INPUT_RATE:
        raise ValueError(f"the Live API takes {LIVE_INPUT_RATE} Hz PCM, got {turn.rate} Hz")
    messages: list[dict[str, Any]] = []
    turns = history_turns(turn)
    if turn.user_text:
        turns.append({"role": "user", "parts": [{"text": turn.user_text}]})
    if turns:
        messages.append({"clientContent": {"turns": turns, "turnComplete": False}})
    messages.append({"realtimeInput": {"activityStart": {}}})
    size = LIVE_INPUT_RATE * 2 * settings.chunk_ms // 1000
    mime = f"audio/pcm;rate={LIVE_INPUT_RATE}"
    for start in range(0, len(turn.pcm), size):
        data = base64.urlsafe_b64encode(turn.pcm[start : start + size]).decode("ascii")  # as the SDK encodes bytes
        messages.append({"realtimeInput": {"audio": {"data": data, "mimeType": mime}}})
    return messages


def history_turns(turn: SessionInput) -> list[dict[str, Any]]:
    """The dialogue so far as ``clientContent`` turns (pure): earlier user turns as their 16 kHz audio, the model's
    earlier turns as text."""
    turns = []
    mime = f"audio/pcm;rate={LIVE_INPUT_RATE}"
    for said in turn.history:
        if said.role == "user" and said.pcm is not None:
            data = base64.urlsafe_b64encode(said.pcm).decode("ascii")
            turns.append({"role": "user", "parts": [{"inlineData": {"mimeType": mime, "data": data}}]})
        else:
            turns.append({"role": "user" if said.role == "user" else "model", "parts": [{"text": said.text}]})
    return turns


ACTIVITY_END: dict[str, Any] = {"realtimeInput": {"activityEnd": {}}}
"""Ends the input: the clock of the reply's timings starts when it is sent."""


def _rate_of(mime: object, where: str) -> int | str:
    """The ``rate=`` a chunk's MIME type declares (as written, checked by the collector), or the default."""
    mime = str(mime or "")
    if not mime.startswith("audio/pcm"):
        raise ProviderError("bad_response", f"{where} sent audio as {mime!r:.80}, not audio/pcm", retryable=False)
    for param in mime.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip() == "rate":
            value = value.strip()
            return int(value) if value.isascii() and value.isdigit() and len(value) < 10 else value
    return LIVE_OUTPUT_RATE


class LiveFold:
    """Server messages of one attempt folded into the reply."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.reply = ReplyCollector(LIVE_OUTPUT_RATE, where)
        self.session_id: str | None = None
        self.usage: dict[str, Any] = {}
        self.go_away: str | None = None
        """``timeLeft`` of a ``goAway`` received (the server will close the session soon)."""

    def _content(self, content: dict[str, Any], at: float) -> bool:
        for part in (content.get("modelTurn") or {}).get("parts") or []:
            inline = part.get("inlineData")
            if inline:
                self.reply.set_rate(_rate_of(inline.get("mimeType"), self.where))
                self.reply.audio(inline.get("data"), at)
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                self.reply.text(part["text"], at)
        transcription = content.get("outputTranscription")
        if isinstance(transcription, dict) and transcription.get("text"):
            self.reply.text(transcription["text"], at)
        if not content.get("turnComplete"):
            return False
        reason = content.get("turnCompleteReason")
        if reason not in _FINE_REASONS:
            raise ProviderError("refused", f"{self.where} ended the turn: {reason}")
        return True

    def feed(self, message: dict[str, Any], at: float) -> bool:
        """Take one message received ``at`` seconds after the activity end; ``True`` once the turn is complete.

        Fields of unexpected types raise ``bad_response`` naming the message, never a bare ``TypeError``."""
        try:
            return self._feed(message, at)
        except (AttributeError, TypeError, KeyError) as exc:
            raise malformed(self.where, message, exc) from None

    def _feed(self, message: dict[str, Any], at: float) -> bool:
        if "setupComplete" in message:
            self.session_id = (message.get("setupComplete") or {}).get("sessionId") or self.session_id
        if isinstance(message.get("usageMetadata"), dict):
            self.usage = message["usageMetadata"]
        if "goAway" in message:
            self.go_away = str((message.get("goAway") or {}).get("timeLeft", "?"))
        content = message.get("serverContent")
        return isinstance(content, dict) and self._content(content, at)

    def result(self, model: str, total_s: float) -> SessionResult:
        """The finished reply."""
        output = self.usage.get("responseTokenCount", self.usage.get("candidatesTokenCount"))
        return SessionResult(
            text=self.reply.reply_text(),
            pcm=bytes(self.reply.pcm),
            rate=self.reply.rate,
            model_version=model,
            response_id=self.session_id,
            status="turnComplete",
            usage=Usage.checked({"promptTokenCount": self.usage.get("promptTokenCount"), "responseTokenCount": output}),
            first_audio_s=self.reply.first_audio_s,
            first_text_s=self.reply.first_text_s,
            total_s=total_s,
        )


class GeminiLive:
    """The ``live:gemini:`` protocol for one model at one endpoint."""

    provider = "gemini-live"
    input_rate = LIVE_INPUT_RATE

    def __init__(self, model: str, endpoint: str, key: str, settings: LiveSettings) -> None:
        self.model = model
        self.endpoint = endpoint
        self._key = key
        self.live = settings

    def url(self) -> str:
        """The endpoint (the key travels in a header, never in the URL)."""
        return self.endpoint

    def headers(self) -> dict[str, str]:
        """``x-goog-api-key``, as the SDK sends it."""
        return {"x-goog-api-key": self._key} if self._key else {}

    def settings(self) -> dict[str, Any]:
        """Voice, output modality, output cap, temperature and chunking."""
        s = self.live
        return {
            "voice": s.voice,
            "output": s.output,
            "max_tokens": s.max_tokens,
            "temperature": s.temperature,
            "chunk_ms": s.chunk_ms,
        }

    async def converse(self, session: WsSession, turn: SessionInput) -> SessionResult:
        """Set up, wait for ``setupComplete``, send the turn, end the activity and fold until ``turnComplete``.

        A close before the turn completes raises its classified error, naming an earlier ``goAway``."""
        await self.setup(session, turn)
        return await self.exchange(session, turn)

    async def setup(self, session: WsSession, turn: SessionInput) -> None:
        """``setup``, then wait for ``setupComplete`` (an error or a close before it is raised classified); the
        session id it gives is kept on the session for every turn's result."""
        fold = LiveFold(session.where)
        await session.send(setup_message(self.model, turn, self.live))
        while "setupComplete" not in (first := await session.receive()):
            fold.feed(first, 0.0)
        fold.feed(first, 0.0)
        session.session_id = fold.session_id

    async def exchange(self, session: WsSession, turn: SessionInput) -> SessionResult:
        """One turn: its messages, ``activityEnd``, then messages until ``turnComplete``.

        A close before the turn completes raises its classified error, naming an earlier ``goAway``."""
        fold = LiveFold(session.where)
        fold.session_id = session.session_id
        for message in turn_messages(turn, self.live):
            await session.send(message)
        await session.send(ACTIVITY_END)
        start = time.perf_counter()
        try:
            while not fold.feed(await session.receive(), time.perf_counter() - start):
                pass
        except ProviderError as error:
            if fold.go_away is None or not error.retryable:
                raise
            reason = f"{error.message} (after goAway, timeLeft {fold.go_away})"
            raise ProviderError(error.kind, reason, status=error.status, retry_after=error.retry_after) from None
        return fold.result(self.model, time.perf_counter() - start)
