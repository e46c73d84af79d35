"""What a session's reply is made of, gathered as events arrive: audio deltas (checked), text, first-byte times."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from voxeval.llm._types import ProviderError

MAX_REPLY_AUDIO_SECONDS = 600.0
"""Longest reply audio kept (10 minutes, as the audio decoder's limit); more is refused, not truncated."""
MIN_REPLY_RATE = 8_000
"""Lowest sample rate a reply's audio may declare (telephone speech)."""
MAX_REPLY_RATE = 48_000
"""Highest sample rate a reply's audio may declare: with :data:`MAX_REPLY_AUDIO_SECONDS` it bounds the audio bytes."""
MAX_REPLY_AUDIO_BYTES = int(MAX_REPLY_AUDIO_SECONDS * MAX_REPLY_RATE) * 2
"""Most PCM bytes one reply may hold whatever its rate (55 MiB): the duration cap at the highest rate."""
MAX_REPLY_TEXT_CHARS = 1 << 20
"""Longest reply text (deltas joined, or the final transcript) one session may send; more is refused. Ten minutes
of speech is under 10,000 characters; the run keeps at most 512 KiB of text anyway (``VOXEVAL_MAX_REPLY_BYTES``)."""
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


def checked_rate(rate: object, where: str) -> int:
    """A reply's declared sample rate when it is a whole number from :data:`MIN_REPLY_RATE` to
    :data:`MAX_REPLY_RATE`; anything else (0, 100, 999999999999, ``"abc"``) raises a non-retried ``bad_response``.

    >>> checked_rate(24000, "s")
    24000
    >>> checked_rate(100, "s")
    Traceback (most recent call last):
    voxeval.llm._types.ProviderError: bad_response: s declared reply audio at 100 Hz: not a rate from 8000 to 48000 Hz
    """
    if isinstance(rate, int) and not isinstance(rate, bool) and MIN_REPLY_RATE <= rate <= MAX_REPLY_RATE:
        return rate
    shown = f"{rate!r:.40}" if not isinstance(rate, int) or abs(rate) < 10**30 else "a huge number"
    message = f"{where} declared reply audio at {shown} Hz: not a rate from {MIN_REPLY_RATE} to {MAX_REPLY_RATE} Hz"
    raise ProviderError("bad_response", message, retryable=False)


def malformed(where: str, message: dict[str, Any], exc: Exception) -> ProviderError:
    """The error for a server message whose fields have unexpected types (a broken or incompatible server)."""
    kind = message.get("type") or next(iter(message), "?")
    detail = f"{type(exc).__name__}: {exc}"
    return ProviderError("bad_response", f"{where} sent a malformed {kind!s:.60} message ({detail:.200})")


class ReplyCollector:
    """The reply of one attempt as it arrives; times are seconds since the input was committed.

    The one bound on a reply, whatever the server declares: at most :data:`MAX_REPLY_AUDIO_SECONDS` of audio at a
    rate from :data:`MIN_REPLY_RATE` to :data:`MAX_REPLY_RATE` (so at most :data:`MAX_REPLY_AUDIO_BYTES`), and at
    most :data:`MAX_REPLY_TEXT_CHARS` of text; past either the attempt fails (``bad_response``, not retried).
    """

    def __init__(self, rate: int, where: str) -> None:
        self.where = where
        self.rate = checked_rate(rate, where)
        self.pcm = bytearray()
        self.text_parts: list[str] = []
        self._text_chars = 0
        self._final_text: str | None = None
        self.first_audio_s: float | None = None
        self.first_text_s: float | None = None

    def set_rate(self, rate: object) -> None:
        """Take the rate a delta declares: checked, and never changed once audio came at another rate."""
        rate = checked_rate(rate, self.where)
        if rate != self.rate and self.pcm:
            raise ProviderError("bad_response", f"{self.where} changed the audio rate mid-reply", retryable=False)
        self.rate = rate

    def audio(self, data: object, at: float) -> None:
        """Append one base64 delta received at ``at``; past the cap raises ``bad_response`` (not retried)."""
        pcm = decode_audio_delta(data, self.where)
        if len(self.pcm) + len(pcm) > int(MAX_REPLY_AUDIO_SECONDS * self.rate) * 2:
            message = f"reply audio from {self.where} runs over {MAX_REPLY_AUDIO_SECONDS:g} s: refused"
            raise ProviderError("bad_response", message, retryable=False)
        if pcm and self.first_audio_s is None:
            self.first_audio_s = at
        self.pcm += pcm

    def _count(self, text: str) -> None:
        if self._text_chars + len(text) > MAX_REPLY_TEXT_CHARS:
            message = f"reply text from {self.where} runs over {MAX_REPLY_TEXT_CHARS} characters: refused"
            raise ProviderError("bad_response", message, retryable=False)
        self._text_chars += len(text)

    def text(self, delta: object, at: float) -> None:
        """Append a text or transcript delta received at ``at``."""
        if not isinstance(delta, str):
            message = f"text delta from {self.where} is a {type(delta).__name__}, not text: refused"
            raise ProviderError("bad_response", message, retryable=False)
        self._count(delta)
        if delta and self.first_text_s is None:
            self.first_text_s = at
        self.text_parts.append(delta)

    @property
    def final_text(self) -> str | None:
        """The whole transcript, when the server sent one (it replaces the deltas)."""
        return self._final_text

    @final_text.setter
    def final_text(self, text: str) -> None:
        if len(text) > MAX_REPLY_TEXT_CHARS:
            message = f"reply text from {self.where} runs over {MAX_REPLY_TEXT_CHARS} characters: refused"
            raise ProviderError("bad_response", message, retryable=False)
        self._final_text = text

    def reply_text(self) -> str:
        """The final transcript when the server sent one, else the deltas joined."""
        return self.final_text if self.final_text is not None else "".join(self.text_parts)
