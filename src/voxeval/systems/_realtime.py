"""Systems that speak in real time over WebSocket sessions: ``realtime:openai:MODEL[@WS_URL][?OPTIONS]`` (OpenAI
Realtime) and ``live:gemini:MODEL[@WS_URL][?OPTIONS]`` (Gemini Live). One fresh session per turn, or one per
dialogue under ``--history own``; see docs/systems.md for the options and what each one sends."""

from __future__ import annotations

import io
import wave
from typing import Any

from voxeval.systems._protocol import Reply, ReplyTiming, Turn, systems


def input_pcm(audio: bytes, rate: int, sample_id: str) -> bytes:
    """The turn's WAV as 16-bit mono PCM at ``rate``: as is when it already is that, else decoded and resampled."""
    try:
        with wave.open(io.BytesIO(audio), "rb") as reader:
            if (reader.getnchannels(), reader.getsampwidth(), reader.getframerate(), reader.getcomptype()) == (
                1,
                2,
                rate,
                "NONE",
            ):
                return reader.readframes(reader.getnframes())
    except (wave.Error, EOFError):
        pass  # not a plain PCM WAV: the general decoder below reads it or says why not
    from voxeval.errors import Location
    from voxeval.speech.audio import decode_audio, quantize_int16

    loaded = decode_audio(audio, Location(f"input audio of {sample_id}"), sample_rate=rate)
    return quantize_int16(loaded.audio.samples).tobytes()


class SessionSystem:
    """A speech-to-speech model reached through one WebSocket session per turn."""

    def __init__(self, name: str, model: Any) -> None:
        self.name = name
        self.model = model
        self.concurrency = model.options.concurrency

    async def respond(self, turn: Turn) -> Reply:
        """Speak the turn into a fresh session (retried by the session layer) and return what came back; a turn of a
        dialogue sends the dialogue so far first (earlier user turns as audio, assistant turns as text)."""
        return self.reply(await self.model.answer(self.session_input(turn)))

    def session_input(self, turn: Turn, *, with_history: bool = True) -> Any:
        """The turn as the session layer takes it."""
        from voxeval.llm import EarlierTurn, SessionInput

        rate = self.model.protocol.input_rate
        history = tuple(  # a turn with audio is sent as its audio, any other as its text
            EarlierTurn(said.role, "", input_pcm(said.audio, rate, f"{turn.id} (history)"))
            if said.audio is not None
            else EarlierTurn(said.role, said.text)
            for said in (turn.history if with_history else ())
        )
        pcm = input_pcm(turn.audio, rate, turn.id)
        return SessionInput(turn.system_prompt, turn.user_prompt, pcm, rate, history)

    def open_conversation(self, dialogue_id: str) -> SessionDialogue:
        """ONE session for the whole dialogue (``--history own``): each user turn goes into it in order."""
        return SessionDialogue(self)

    def reply(self, result: Any) -> Reply:
        """A session's result as the system's reply."""
        import numpy as np

        from voxeval.speech.audio import encode_wav

        audio = encode_wav(np.frombuffer(result.pcm, dtype="<i2"), result.rate) if result.pcm else None
        meta = {
            "model_version": result.model_version,
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "response_id": result.response_id,
            "status": result.status,
            "audio_rate": result.rate if result.pcm else None,
            "cached": result.cached,
        }
        if result.usage.warnings:
            meta["usage_warnings"] = list(result.usage.warnings)
        timing = ReplyTiming(result.first_audio_s, result.first_text_s, result.total_s)
        return Reply(result.text, audio, meta, timing)

    def describe(self) -> dict[str, Any]:
        """The session model's description (never the key)."""
        return {"system": "session", **self.model.describe()}


class SessionDialogue:
    """One dialogue in one session of a :class:`SessionSystem` (the session keeps the context)."""

    def __init__(self, system: SessionSystem) -> None:
        self._system = system
        self._conversation = system.model.open_conversation()

    async def respond(self, turn: Turn) -> Reply:
        """The next user turn into the open session (its history is already there)."""
        return self._system.reply(await self._conversation.answer(self._system.session_input(turn, with_history=False)))

    async def close(self) -> None:
        """Close the session."""
        await self._conversation.close()


def _factory(prefix: str, provider: str) -> Any:
    def make(rest: str) -> SessionSystem:
        from voxeval.errors import ConfigError
        from voxeval.llm import session_model_from_spec

        if not rest.startswith(f"{provider}:"):
            raise ConfigError(f"system {prefix}:{rest!r}: expected {prefix}:{provider}:MODEL[@WS_URL][?OPTIONS]")
        return SessionSystem(f"{prefix}:{rest}", session_model_from_spec(rest))

    make.__doc__ = f"``{prefix}:{provider}:MODEL[@WS_URL][?OPTIONS]`` — see docs/systems.md."
    return make


systems.register("realtime")(_factory("realtime", "openai"))
systems.register("live")(_factory("live", "gemini"))
