"""A served session's conversation: its items, and the ``Turn`` the system answers (pure)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Literal

from voxeval.serve._config import REALTIME_RATE, ClientError
from voxeval.systems import Said, Turn

MAX_ITEMS = 1000
"""Items one session may hold (a longer dialogue is refused with an error event, not held in memory)."""


@dataclass(frozen=True)
class Item:
    """One message of the conversation."""

    id: str
    """``item_…``."""
    role: Literal["user", "assistant"]
    """Who said it."""
    text: str = ""
    """User: the text items sent (a prompt); assistant: the reply's transcript (as far as it was sent)."""
    pcm: bytes = b""
    """User: the audio (24 kHz, 16-bit mono)."""

    def row(self) -> dict[str, Any]:
        """As ``conversation.item.added`` describes it (audio left out, as the API does)."""
        content: list[dict[str, Any]]
        if self.role == "assistant":
            content = [{"type": "output_audio", "transcript": self.text}]
        else:
            content = [{"type": "input_audio", "transcript": None}] if self.pcm else []
            content += [{"type": "input_text", "text": self.text}] if self.text else []
        return {"id": self.id, "type": "message", "object": "realtime.item", "status": "completed",
                "role": self.role, "content": content}  # fmt: skip


def item_from_event(item: object, item_id: str) -> Item:
    """The item of a ``conversation.item.create``: a user message of ``input_text`` / ``input_audio`` parts or an
    assistant message of ``output_text`` / ``output_audio`` transcripts; anything else raises :class:`ClientError`."""
    if not isinstance(item, dict) or item.get("type", "message") != "message":
        raise ClientError("unsupported", "only message items are served (no function calls)", "item.type")
    role, content = item.get("role"), item.get("content")
    if role not in ("user", "assistant") or not isinstance(content, list):
        raise ClientError("invalid_value", "a message item needs role user or assistant and a content list", "item")
    text, pcm = [], bytearray()
    for i, part in enumerate(content):
        where = f"item.content[{i}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if role == "user" and kind == "input_text" and isinstance(part.get("text"), str):
            text.append(part["text"])
        elif role == "user" and kind == "input_audio" and isinstance(part.get("audio"), str):
            pcm += decode_audio(part["audio"], f"{where}.audio")
        elif role == "assistant" and kind in ("output_text", "text") and isinstance(part.get("text"), str):
            text.append(part["text"])
        elif role == "assistant" and kind == "output_audio" and isinstance(part.get("transcript"), str):
            text.append(part["transcript"])
        else:
            raise ClientError("invalid_value", f"{where}: a {role} message cannot hold a {kind!r} part", where)
    if not text and not pcm:
        raise ClientError("invalid_value", "the message item says nothing (no text, no audio)", "item.content")
    return Item(str(item.get("id") or item_id), role, "".join(text), bytes(pcm))


def decode_audio(data: str, where: str) -> bytes:
    """Base64 PCM; bad base64 or an odd byte count raises :class:`ClientError`."""
    try:
        pcm = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ClientError("invalid_value", f"{where} is not base64", where) from None
    if len(pcm) % 2:
        raise ClientError("invalid_value", f"{where}: 16-bit PCM needs an even number of bytes", where)
    return pcm


def build_turn(items: list[Item], turn_id: str, config: tuple[str, str]) -> Turn:
    """The turn the system answers: the user items after the last assistant item, with everything before them as
    ``Turn.history`` (consecutive items of one role joined into one turn). ``config`` is ``(instructions,
    language)``. Nothing to answer, or a turn without audio, raises :class:`ClientError`."""
    from voxeval.speech.audio import encode_wav

    groups: list[tuple[str, str, bytes]] = []
    for item in items:
        if groups and groups[-1][0] == item.role:
            role, text, pcm = groups[-1]
            groups[-1] = (role, text + item.text, pcm + item.pcm)
        else:
            groups.append((item.role, item.text, item.pcm))
    if not groups or groups[-1][0] != "user":
        raise ClientError("nothing_to_answer", "no user input since the last response: commit audio first")
    if groups[0][0] != "user":
        raise ClientError(
            "invalid_value", "the conversation starts with an assistant message: a user turn must come first"
        )
    _, prompt, pcm = groups[-1]
    if not pcm:
        raise ClientError("no_audio", "the user turn has no audio: a served system answers speech")

    def wav(data: bytes) -> bytes | None:
        import numpy as np

        return encode_wav(np.frombuffer(data, dtype="<i2"), REALTIME_RATE) if data else None

    history = tuple(Said(role, text, wav(data) if role == "user" else None) for role, text, data in groups[:-1])  # type: ignore[arg-type]
    instructions, language = config
    return Turn(turn_id, wav(pcm) or b"", instructions, prompt, "", language, history)
