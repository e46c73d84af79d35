"""Server events of the GA Realtime protocol, built by pure functions (field names as ``openai.types.realtime``'s
``*Event`` models; ``event_id`` is added by the session when it sends them)."""

from __future__ import annotations

import base64
from typing import Any, Literal

from voxeval.serve._config import ClientError

Status = Literal["completed", "cancelled", "failed"]
"""How a served response ends."""
CancelReason = Literal["turn_detected", "client_cancelled"]
"""Why a response was cancelled (``RealtimeResponseStatus.reason``)."""


def error(exc: ClientError, event_id: str | None) -> dict[str, Any]:
    """``error``: a client event refused (``invalid_request_error``); the session stays open."""
    detail = {"type": "invalid_request_error", "code": exc.code, "message": exc.message, "param": exc.param,
              "event_id": event_id}  # fmt: skip
    return {"type": "error", "error": detail}


def speech_started(audio_start_ms: int, item_id: str) -> dict[str, Any]:
    """``input_audio_buffer.speech_started``."""
    return {"type": "input_audio_buffer.speech_started", "audio_start_ms": audio_start_ms, "item_id": item_id}


def speech_stopped(audio_end_ms: int, item_id: str) -> dict[str, Any]:
    """``input_audio_buffer.speech_stopped``."""
    return {"type": "input_audio_buffer.speech_stopped", "audio_end_ms": audio_end_ms, "item_id": item_id}


def committed(item_id: str, previous_item_id: str | None) -> dict[str, Any]:
    """``input_audio_buffer.committed``."""
    return {"type": "input_audio_buffer.committed", "item_id": item_id, "previous_item_id": previous_item_id}


def item_added(item: dict[str, Any], previous_item_id: str | None, kind: str = "added") -> dict[str, Any]:
    """``conversation.item.added`` (or ``.done``)."""
    return {"type": f"conversation.item.{kind}", "item": item, "previous_item_id": previous_item_id}


def response(
    rid: str, output: str, status: str, details: dict[str, Any] | None = None, items: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The ``response`` object (``RealtimeResponse``); usage is not counted (no tokens: ``null``)."""
    return {"id": rid, "object": "realtime.response", "status": status, "status_details": details,
            "output_modalities": [output], "conversation_id": "conv_default", "output": items or [],
            "usage": None}  # fmt: skip


def response_created(rid: str, output: str) -> dict[str, Any]:
    """``response.created``."""
    return {"type": "response.created", "response": response(rid, output, "in_progress")}


def response_done(
    rid: str,
    output: str,
    status: Status,
    reason: str | None = None,
    message: str = "",
    item: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``response.done``: ``completed``; ``cancelled`` with its reason; ``failed`` with the system's error. ``item``:
    the assistant item it made (as ``response.output_item.done`` carries it), listed in ``output``."""
    details: dict[str, Any] | None = None
    if status == "cancelled":
        details = {"type": "cancelled", "reason": reason}
    elif status == "failed":
        details = {"type": "failed", "error": {"type": "server_error", "code": "system_failure", "message": message}}
    items = [item] if item is not None else None
    return {"type": "response.done", "response": response(rid, output, status, details, items)}


def _ids(rid: str, item_id: str) -> dict[str, Any]:
    return {"response_id": rid, "item_id": item_id, "output_index": 0, "content_index": 0}


def output_item(rid: str, item_id: str, output: str, status: str, text: str | None) -> dict[str, Any]:
    """``response.output_item.added`` (``text=None``: no content yet) or ``.done`` with the text sent."""
    kind = "added" if text is None else "done"
    part = {"type": "output_audio", "transcript": text} if output == "audio" else {"type": "output_text", "text": text}
    item = {"id": item_id, "type": "message", "object": "realtime.item", "role": "assistant", "status": status,
            "content": [] if text is None else [part]}  # fmt: skip
    return {"type": f"response.output_item.{kind}", "response_id": rid, "output_index": 0, "item": item}


def audio_delta(rid: str, item_id: str, pcm: bytes) -> dict[str, Any]:
    """``response.output_audio.delta``."""
    return {"type": "response.output_audio.delta", **_ids(rid, item_id), "delta": base64.b64encode(pcm).decode()}


def text_delta(rid: str, item_id: str, output: str, text: str) -> dict[str, Any]:
    """``response.output_audio_transcript.delta`` (audio output) or ``response.output_text.delta`` (text)."""
    kind = "response.output_audio_transcript.delta" if output == "audio" else "response.output_text.delta"
    return {"type": kind, **_ids(rid, item_id), "delta": text}


def text_done(rid: str, item_id: str, output: str, text: str) -> dict[str, Any]:
    """``response.output_audio_transcript.done`` with ``transcript`` or ``response.output_text.done`` with ``text``:
    the text sent, also when the response was cancelled (as the API does)."""
    if output == "audio":
        return {"type": "response.output_audio_transcript.done", **_ids(rid, item_id), "transcript": text}
    return {"type": "response.output_text.done", **_ids(rid, item_id), "text": text}


def audio_done(rid: str, item_id: str) -> dict[str, Any]:
    """``response.output_audio.done``."""
    return {"type": "response.output_audio.done", **_ids(rid, item_id)}


def pieces(text: str, count: int) -> list[str]:
    """``text`` in ``count`` consecutive pieces (fewer when it is short), to interleave with the audio deltas.

    >>> pieces("abcdefg", 3)
    ['abc', 'def', 'g']
    """
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]
