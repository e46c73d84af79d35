"""WebSocket sessions for providers: bounded timeouts, capped messages, every failure a classified ProviderError.

The HTTP layer's counterpart (see ``_http.py``) for the speech-to-speech APIs that only speak WebSocket (OpenAI
Realtime, Gemini Live). The ``websockets`` package (extra ``realtime``) does the framing; it is imported when a
session opens. One attempt is one fresh session; :class:`SessionTimeouts` bound the handshake, each wait for a
server message and the whole attempt. A failed handshake is classified like an HTTP answer of the same status, a
close like the RFC 6455 code says (see :func:`classify_close`). Every message received passes one boundary
(:func:`decode_message`): JSON objects only, nesting bounded, every string redacted of the key, and at most
:data:`MAX_SESSION_BYTES` in all. A redirect answering the handshake is refused, never followed: the key would go
with it to another origin.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from voxeval.errors import MissingDependencyError
from voxeval.llm._http import classify_status, redact_json
from voxeval.llm._types import ProviderError

MAX_MESSAGE_BYTES = 8 << 20
"""Largest server message accepted (an audio delta of a few seconds is ~100 KB); larger ones close the session."""
MAX_SESSION_BYTES = 128 << 20
"""Most one session may receive in all messages, in bytes (characters of text frames: base64 and JSON are ASCII);
the longest reply's audio, 55 MiB of PCM, is 73 MiB as base64. Past it the session fails (``bad_response``, not
retried)."""


@dataclass(frozen=True)
class SessionTimeouts:
    """Time bounds of one session attempt, in seconds."""

    connect: float = 10.0
    """TCP + TLS + WebSocket handshake."""
    idle: float = 30.0
    """Longest wait for the next server message (a session that never answers ends here)."""
    total: float = 120.0
    """The whole attempt, from connecting to the end of the reply."""

    def __post_init__(self) -> None:
        for name in ("connect", "idle", "total"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} timeout must be positive, got {getattr(self, name)}")


_RETRY_LATER = ("rate limit", "rate_limit", "resource_exhausted", "quota", "too many")


def classify_close(code: int | None, reason: str, where: str) -> ProviderError:
    """The error for a session the server closed (or that broke) before the reply was complete.

    1008 (policy) and 1007 (invalid data) are the server refusing what was sent: ``client``, not retried, unless
    the reason speaks of quota or rate limits (Gemini closes with 1008/1011 ``RESOURCE_EXHAUSTED``), which is
    ``rate_limit``; 1013 (try again later) is ``rate_limit``; 1011, 1012, 1001, 1014 are ``server``; 1000, 1006
    (no close frame) and anything else are a dropped ``connection``. All but ``client`` are retried.
    """
    detail = f"WebSocket {where} closed with code {code if code is not None else 'none'}"
    message = f"{detail}: {reason}" if reason else detail
    lowered = reason.lower()
    if code == 1013 or any(word in lowered for word in _RETRY_LATER):
        return ProviderError("rate_limit", message, status=code)
    if code in (1007, 1008, 1003, 1009):
        return ProviderError("client", message, status=code)
    if code in (1011, 1012, 1001, 1014):
        return ProviderError("server", message, status=code)
    return ProviderError("connection", message, status=code)


def _websockets() -> Any:
    try:
        import websockets
        import websockets.asyncio.client
    except ImportError:  # pragma: no cover - websockets is in the realtime and test extras
        raise MissingDependencyError("realtime/live sessions", "realtime", "websockets") from None
    return websockets


def _handshake_error(exc: BaseException, where: str) -> ProviderError:
    websockets = _websockets()
    if isinstance(exc, websockets.exceptions.InvalidStatus) and 300 <= exc.response.status_code < 400:
        status = exc.response.status_code
        message = f"{where} answered the handshake with a redirect (HTTP {status}): not followed, since the key would "
        message += "go with it; put the final URL in the spec"
        return ProviderError("client", message, status=status)
    if isinstance(exc, websockets.exceptions.InvalidStatus):
        response = exc.response
        headers = {k.lower(): v for k, v in response.headers.raw_items()}
        return classify_status(response.status_code, headers, response.body or b"", where)
    if isinstance(exc, websockets.exceptions.InvalidURI):
        return ProviderError("client", f"invalid WebSocket URL {where}: {exc}")
    if isinstance(exc, TimeoutError):
        return ProviderError("timeout", f"no WebSocket handshake with {where} in time")
    return ProviderError("connection", f"cannot open a WebSocket to {where}: {exc or type(exc).__name__}")


class WsSession:
    """One open session: JSON messages out and in, with the idle and total timeouts applied to every wait."""

    def __init__(
        self, connection: Any, where: str, timeouts: SessionTimeouts, deadline: float, secrets: tuple[str, ...] = ()
    ) -> None:
        self._connection = connection
        self._secrets = secrets
        self.received = 0
        """Bytes (characters of text frames) received so far."""
        self.where = where
        self.timeouts = timeouts
        self._deadline = deadline
        self.sent = 0
        """Messages sent so far."""
        self.session_id: str | None = None
        """The provider's id of the session, when its set-up answer gives one (Gemini ``setupComplete``)."""

    def next_turn(self) -> None:
        """Start the total timeout again: in a conversation it bounds each turn, not the whole dialogue."""
        self._deadline = time.monotonic() + self.timeouts.total

    def _closed_error(self, exc: BaseException) -> ProviderError:
        ours = getattr(exc, "sent", None)
        if ours is not None and ours.code == 1009:  # websockets refused a message over max_size
            message = f"{self.where} sent a message over {MAX_MESSAGE_BYTES} bytes: refused"
            return ProviderError("bad_response", message, retryable=False)
        received = getattr(exc, "rcvd", None)
        code = received.code if received is not None else 1006
        reason = received.reason if received is not None else "no close frame (connection dropped)"
        return classify_close(code, reason, self.where)

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one JSON message; a closed socket raises its classified error."""
        websockets = _websockets()
        try:
            async with asyncio.timeout(max(0.0, self._deadline - time.monotonic())):
                await self._connection.send(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
        except websockets.exceptions.ConnectionClosed as exc:
            raise self._closed_error(exc) from None
        except TimeoutError:
            raise self._total_timeout() from None
        self.sent += 1

    def _total_timeout(self) -> ProviderError:
        return ProviderError("timeout", f"session with {self.where} took longer than {self.timeouts.total:g} s")

    async def receive(self) -> dict[str, Any]:
        """The next server message as a JSON object; silence past the idle timeout, the total deadline, a close or
        a message that is not a JSON object raise a classified ``ProviderError``."""
        websockets = _websockets()
        left = self._deadline - time.monotonic()
        wait = min(self.timeouts.idle, left)
        try:
            async with asyncio.timeout(max(0.0, wait)):
                raw = await self._connection.recv()
        except websockets.exceptions.ConnectionClosed as exc:
            raise self._closed_error(exc) from None
        except TimeoutError:
            if wait < self.timeouts.idle:
                raise self._total_timeout() from None
            raise ProviderError("timeout", f"{self.where} sent nothing for {self.timeouts.idle:g} s") from None
        self.received += len(raw)
        if self.received > MAX_SESSION_BYTES:
            message = f"{self.where} sent more than {MAX_SESSION_BYTES} bytes in one session: refused"
            raise ProviderError("bad_response", message, retryable=False)
        return decode_message(raw, self.where, self._secrets)


def decode_message(raw: str | bytes, where: str, secrets: tuple[str, ...] = ()) -> dict[str, Any]:
    """A server message as a JSON object with every string in it (keys too) redacted of ``secrets``: the one
    boundary every field a session keeps passes (text, ids, model names, usage, close and error reasons).

    Text that is not UTF-8, JSON that is not an object and nesting too deep to decode are ``bad_response``.

    >>> decode_message('{"id": "resp-KEY"}', "s", ("KEY",))
    {'id': 'resp-***'}
    >>> decode_message("[" * 5000, "s")
    Traceback (most recent call last):
    voxeval.llm._types.ProviderError: bad_response: s sent a message nested too deeply to decode: '[[[...
    """
    shown = f"{raw[:40]!r}…" if len(raw) > 40 else repr(raw)
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        message = redact_json(json.loads(text), secrets)
    except RecursionError:
        raise ProviderError("bad_response", f"{where} sent a message nested too deeply to decode: {shown}") from None
    except (UnicodeDecodeError, ValueError):
        raise ProviderError("bad_response", f"{where} sent a message that is not JSON: {raw[:200]!r}") from None
    if not isinstance(message, dict):
        raise ProviderError("bad_response", f"{where} sent a JSON message that is not an object: {raw[:200]!r}")
    return message


def _no_redirects(websockets: Any) -> Any:
    class Connect(websockets.asyncio.client.connect):
        """``connect`` that treats every redirect as the failed handshake it answers (never followed)."""

        def process_redirect(self, exc: Exception) -> Exception:
            return exc

    return Connect


@asynccontextmanager
async def open_session(
    url: str, headers: Mapping[str, str], timeouts: SessionTimeouts, secrets: tuple[str, ...] = ()
) -> AsyncIterator[WsSession]:
    """Connect to ``url`` with ``headers`` and yield the session; closed on exit whatever happened.

    ``where`` in messages is the URL without its query (which may carry a key on some servers); every message
    received is redacted of ``secrets``.
    """
    websockets = _websockets()
    where = url.split("?", 1)[0]
    deadline = time.monotonic() + timeouts.total
    try:
        connection = await _no_redirects(websockets)(
            url,
            additional_headers=dict(headers),
            open_timeout=min(timeouts.connect, timeouts.total),
            max_size=MAX_MESSAGE_BYTES,
            compression=None,
            ping_interval=None,
            close_timeout=1.0,
            user_agent_header="voxeval",
        )
    except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as exc:
        raise _handshake_error(exc, where) from None
    try:
        yield WsSession(connection, where, timeouts, deadline, secrets)
    finally:
        await connection.close()
