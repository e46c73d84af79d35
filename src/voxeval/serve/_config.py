"""The session configuration of a served OpenAI Realtime session, and the ``session.update`` that changes it (pure).

Field names follow the GA protocol as the ``openai`` SDK types it (``openai.types.realtime``:
``RealtimeSessionCreateRequest``, ``RealtimeAudioConfigInput``, ``ServerVad``). What is not implemented is refused
with an error naming the field, never silently ignored (docs/serve.md lists both).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

REALTIME_RATE = 24_000
"""The only PCM rate of the GA protocol (``AudioPCM.rate: Literal[24000]``), input and output."""
PCM_FORMAT = {"type": "audio/pcm", "rate": REALTIME_RATE}
"""The one audio format served."""


class ClientError(Exception):
    """A client event the server refuses: sent back as an ``error`` event; the session stays open."""

    def __init__(self, code: str, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.param = param


@dataclass(frozen=True)
class ServerVad:
    """``turn_detection: {"type": "server_vad", …}`` with the API's defaults."""

    threshold: float = 0.5
    """Silero speech probability that starts speech (it stops below ``threshold - 0.15``, as Silero's own rule)."""
    prefix_padding_ms: int = 300
    """Audio before the detected start that goes into the committed turn."""
    silence_duration_ms: int = 500
    """Silence that ends the user's turn."""
    create_response: bool = True
    """Answer when the turn ends."""
    interrupt_response: bool = True
    """Cancel the response in progress when the user starts speaking (barge-in)."""

    def row(self) -> dict[str, Any]:
        """As the protocol writes it."""
        return {
            "type": "server_vad",
            "threshold": self.threshold,
            "prefix_padding_ms": self.prefix_padding_ms,
            "silence_duration_ms": self.silence_duration_ms,
            "create_response": self.create_response,
            "interrupt_response": self.interrupt_response,
            "idle_timeout_ms": None,
        }


@dataclass(frozen=True)
class SessionConfig:
    """What a served session is configured with."""

    instructions: str
    """System instructions: the system's ``Turn.system_prompt``."""
    model: str = ""
    """The ``?model=`` of the connection (reported, not used: the served system is fixed)."""
    output: str = "audio"
    """``audio`` (speech and its transcript) or ``text``."""
    voice: str = "marin"
    """Recorded only: the served system speaks with its own voice."""
    turn_detection: ServerVad | None = ServerVad()
    """Server VAD (the API's default), or ``None``: the client commits and asks for responses."""
    max_output_tokens: int | str = "inf"
    """Recorded only: the served system's own limits apply."""

    def row(self, session_id: str) -> dict[str, Any]:
        """The ``session`` object of ``session.created`` / ``session.updated``."""
        vad = None if self.turn_detection is None else self.turn_detection.row()
        output = {"format": PCM_FORMAT, "voice": self.voice}
        return {
            "type": "realtime",
            "object": "realtime.session",
            "id": session_id,
            "model": self.model,
            "instructions": self.instructions,
            "output_modalities": [self.output],
            "max_output_tokens": self.max_output_tokens,
            "audio": {"input": {"format": PCM_FORMAT, "turn_detection": vad}, "output": output},
        }


_IGNORED_NULL = ("tracing", "tools", "tool_choice", "prompt", "truncation", "include", "reasoning")
"""Session fields accepted only empty (``null``, ``[]``, ``"auto"``): they need tools or tracing the server lacks."""


def apply_update(config: SessionConfig, session: object) -> SessionConfig:
    """``config`` after a ``session.update``'s ``session`` object; a field not implemented raises :class:`ClientError`
    naming it (``param``: ``session.audio.input.format``)."""
    if not isinstance(session, dict):
        raise ClientError("invalid_value", "session.update needs a session object", "session")
    changes: dict[str, Any] = {}
    for key, value in session.items():
        where = f"session.{key}"
        if key in ("type", "model", "object", "id"):
            if key == "type" and value != "realtime":
                raise ClientError("invalid_value", f"only realtime sessions are served, not {value!r}", where)
        elif key == "instructions":
            changes["instructions"] = _text(value, where)
        elif key == "output_modalities":
            if value not in (["audio"], ["text"]):
                raise ClientError("invalid_value", 'output_modalities must be ["audio"] or ["text"]', where)
            changes["output"] = value[0]
        elif key == "max_output_tokens":
            if not (value == "inf" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4096)):
                raise ClientError("invalid_value", "max_output_tokens must be an integer 1-4096 or 'inf'", where)
            changes["max_output_tokens"] = value
        elif key == "audio":
            changes.update(_audio(value, config))
        elif key in _IGNORED_NULL and value in (None, [], "auto"):
            pass
        else:
            raise ClientError("unsupported", f"{where} is not implemented by voxeval serve (docs/serve.md)", where)
    return replace(config, **changes)


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ClientError("invalid_type", f"{where} must be a string", where)
    return value


def _audio(audio: object, config: SessionConfig) -> dict[str, Any]:
    if not isinstance(audio, dict):
        raise ClientError("invalid_type", "session.audio must be an object", "session.audio")
    changes: dict[str, Any] = {}
    for side, settings in audio.items():
        where = f"session.audio.{side}"
        if side not in ("input", "output") or not isinstance(settings, dict):
            raise ClientError("invalid_value", f"{where}: expected the input or output object", where)
        for key, value in settings.items():
            field = f"{where}.{key}"
            if key == "format":
                _check_format(value, field)
            elif side == "input" and key == "turn_detection":
                changes["turn_detection"] = turn_detection(value, config.turn_detection, field)
            elif side == "input" and key in ("transcription", "noise_reduction") and value is None:
                pass
            elif side == "output" and key == "voice":
                changes["voice"] = _text(value, field)
            elif side == "output" and key == "speed" and value == 1:
                pass
            else:
                raise ClientError("unsupported", f"{field} is not implemented by voxeval serve (docs/serve.md)", field)
    return changes


def _check_format(value: object, where: str) -> None:
    if not isinstance(value, dict) or value.get("type") != "audio/pcm" or value.get("rate", REALTIME_RATE) != 24_000:
        raise ClientError("unsupported", "only audio/pcm at 24000 Hz is served (no pcmu / pcma)", where)


def turn_detection(value: object, current: ServerVad | None, where: str) -> ServerVad | None:
    """``turn_detection``: ``null`` (off) or ``server_vad`` with its options over the current (or default) ones."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") != "server_vad":
        kind = value.get("type") if isinstance(value, dict) else value
        raise ClientError("unsupported", f"turn detection {kind!r} is not served: use server_vad or null", where)
    vad = current or ServerVad()
    for key, option in value.items():
        field = f"{where}.{key}"
        if key == "type" or (key == "idle_timeout_ms" and option is None):
            continue
        if key == "threshold" and isinstance(option, (int, float)) and 0.0 < option < 1.0:
            vad = replace(vad, threshold=float(option))
        elif key in ("prefix_padding_ms", "silence_duration_ms") and _ms(option):
            vad = replace(vad, **{key: int(option)})  # type: ignore[arg-type]  # _ms checked it is an int
        elif key in ("create_response", "interrupt_response") and isinstance(option, bool):
            vad = replace(vad, **{key: option})
        else:
            raise ClientError("invalid_value", f"{field}={option!r} is not served (docs/serve.md)", field)
    return vad


def _ms(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000
