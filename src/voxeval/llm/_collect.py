"""What a session's reply is made of, gathered as events arrive: audio deltas (checked), text, first-byte times."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from voxeval.llm._types import ProviderError

MAX_REPLY_AUDIO_SECONDS = 600.0
"""Longest reply audio kept (10 minutes, as the audio decoder's limit); more is refused, not truncated."""
_BASE64 = re.compile(rb"[A-Za-z0-9+/\-_]*={0,2}")


def decode_audio_delta(data: object, where: str) -> bytes:
    """A base64 PCM16 delta (standard or URL-safe alphabet, as Gemini's SDK sends) as bytes; anything else
    raises a non-retried ``bad_response`` naming the problem."""
    if not isinstance(data, str):
        message = f"audio delta from {where} is a {type(data).__name__}, not base64 text: refused"
        raise ProviderError("bad_response", message, retryable=False)
    raw = data.encode("ascii", "replace")
    if not _BASE64.fullmatch(raw):
        raise ProviderError("bad_response", f"audio delta from {where} is not base64: refused", retryable=False)
    try:
        pcm = base64.b64decode(raw.replace(b"-", b"+").replace(b"_", b"/"), validate=True)
    except (binascii.Error, ValueError):
        raise ProviderError(
            "bad_response", f"audio delta from {where} is not base64: refused", retryable=False
        ) from None
    if len(pcm) % 2:
        message = f"audio delta from {where} has an odd byte count ({len(pcm)}): not 16-bit PCM, refused"
        raise ProviderError("bad_response", message, retryable=False)
    return pcm


def malformed(where: str, message: dict[str, Any], exc: Exception) -> ProviderError:
    """The error for a server message whose fields have unexpected types (a broken or incompatible server)."""
    kind = message.get("type") or next(iter(message), "?")
    detail = f"{type(exc).__name__}: {exc}"
    return ProviderError("bad_response", f"{where} sent a malformed {kind!s:.60} message ({detail:.200})")


class ReplyCollector:
    """The reply of one attempt as it arrives; times are seconds since the input was committed."""

    def __init__(self, rate: int, where: str) -> None:
        self.rate = rate
        self.where = where
        self.pcm = bytearray()
        self.text_parts: list[str] = []
        self.final_text: str | None = None
        self.first_audio_s: float | None = None
        self.first_text_s: float | None = None
        self._cap = int(MAX_REPLY_AUDIO_SECONDS * rate) * 2

    def audio(self, data: object, at: float) -> None:
        """Append one base64 delta received at ``at``; past the cap raises ``bad_response`` (not retried)."""
        pcm = decode_audio_delta(data, self.where)
        if len(self.pcm) + len(pcm) > self._cap:
            message = f"reply audio from {self.where} runs over {MAX_REPLY_AUDIO_SECONDS:g} s: refused"
            raise ProviderError("bad_response", message, retryable=False)
        if pcm and self.first_audio_s is None:
            self.first_audio_s = at
        self.pcm += pcm

    def text(self, delta: object, at: float) -> None:
        """Append a text or transcript delta received at ``at``."""
        if not isinstance(delta, str):
            message = f"text delta from {self.where} is a {type(delta).__name__}, not text: refused"
            raise ProviderError("bad_response", message, retryable=False)
        if delta and self.first_text_s is None:
            self.first_text_s = at
        self.text_parts.append(delta)

    def reply_text(self) -> str:
        """The final transcript when the server sent one, else the deltas joined."""
        return self.final_text if self.final_text is not None else "".join(self.text_parts)
