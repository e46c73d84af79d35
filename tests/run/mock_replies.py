"""A mock-server responder that answers each input audio with a gold reply chosen by the audio's hash."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from voxeval.data import builtin_path

GOLD_REPLIES = [json.loads(x)["output"]["text"] for x in builtin_path("ja-assistant").read_text("utf-8").splitlines()]


def audio_of(request: dict[str, Any]) -> bytes:
    """The input audio in an OpenAI-shaped or Gemini-shaped request."""
    for message in request.get("messages", []):
        if isinstance(message.get("content"), list):
            for part in message["content"]:
                if part.get("type") == "input_audio":
                    return base64.b64decode(part["input_audio"]["data"])
    for content in request.get("contents", []):
        for part in content.get("parts", []):
            inline = part.get("inline_data") or part.get("inlineData")
            if inline:
                return base64.b64decode(inline["data"])
    return b""


def gold_by_audio(endpoint: str, request: dict[str, Any]) -> str:
    """Deterministic reply text for the request's audio (a gold reply, so the gold annotator can label it)."""
    digest = hashlib.sha256(audio_of(request)).digest()
    return GOLD_REPLIES[int.from_bytes(digest[:4], "big") % len(GOLD_REPLIES)]
