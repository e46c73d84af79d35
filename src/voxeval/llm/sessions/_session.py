"""A speech-to-speech model behind a WebSocket API: one fresh session per turn, with limits, retries, the request
cache and the one redaction boundary, as :class:`~voxeval.llm.RemoteChatModel` does for HTTP.

A provider protocol (OpenAI Realtime, Gemini Live) supplies the URL, headers and :meth:`SessionProtocol.converse`,
which drives one open session to a :class:`SessionResult`. Each attempt starts from nothing, so the partial audio of
a failed attempt is never part of a reply.

Every result passes :func:`checked_result` before it is returned or cached, and again when read back from the
cache (a file anyone could edit): its strings redacted of the key and bounded, its numbers checked as numbers, its
audio within the reply bounds of :class:`~voxeval.llm.sessions._collect.ReplyCollector`, its text UTF-8. Text the cache
cannot hold whole (:func:`~voxeval.llm._cache.storable`) is never cached.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from voxeval.io import atomic_write_text
from voxeval.llm._cache import RequestCache, checked_usage, storable
from voxeval.llm._http import redact, redact_error
from voxeval.llm._limits import Limiter
from voxeval.llm._retry import RetryPolicy, with_retries
from voxeval.llm._types import ProviderError, Usage
from voxeval.llm.sessions._collect import MAX_REPLY_AUDIO_SECONDS, MAX_REPLY_TEXT_CHARS, checked_rate
from voxeval.llm.sessions._ws import SessionTimeouts, WsSession, open_session

SESSION_CACHE_FORMAT = 1
"""Bumped when the key recipe or the entry layout of cached sessions changes."""


@dataclass(frozen=True)
class EarlierTurn:
    """One earlier turn of a dialogue, sent into a session as conversation history (``--history gold``)."""

    role: str
    """``user`` or ``assistant``."""
    text: str
    """An assistant turn's text ("" for a user turn given as audio)."""
    pcm: bytes | None = None
    """A user turn's speech: 16-bit mono PCM at the session's input rate."""


@dataclass(frozen=True)
class SessionInput:
    """One turn to speak into a session (a fresh one, or the next turn of a conversation)."""

    instructions: str
    """System instructions (Appendix B.1)."""
    user_text: str
    """Text sent as a user message before the audio (Appendix B.2); ``""`` sends none."""
    pcm: bytes
    """The input speech: 16-bit little-endian mono PCM at ``rate``."""
    rate: int
    """Sample rate of ``pcm`` (the session's input rate)."""
    history: tuple[EarlierTurn, ...] = ()
    """The dialogue so far, sent as conversation items before the turn (empty for a single turn)."""


@dataclass(frozen=True)
class SessionResult:
    """What one session answered."""

    text: str
    """The model's transcript of its spoken reply (or its text reply in text mode)."""
    pcm: bytes
    """The reply audio, 16-bit mono PCM at ``rate`` (``b""`` when none came)."""
    rate: int
    """Sample rate of ``pcm``."""
    model_version: str | None
    """The model the server says answered."""
    response_id: str | None
    """The provider's id of the response or session."""
    status: str | None
    """How the reply ended (``completed``, ``turnComplete``…)."""
    usage: Usage
    """Token counts of the response (audio and text)."""
    first_audio_s: float | None = None
    """Seconds from the end of the input (commit / activity end) to the first reply audio."""
    first_text_s: float | None = None
    """Seconds from the end of the input to the first reply text."""
    total_s: float | None = None
    """Seconds from the end of the input to the end of the reply."""
    cached: bool = False
    """Answered from the request cache (no timings then)."""


class SessionProtocol(Protocol):
    """One provider's WebSocket protocol."""

    provider: str
    """Registry name (``openai-realtime``, ``gemini-live``)."""
    model: str
    """The model name."""
    input_rate: int
    """Sample rate the session takes input audio at."""

    def url(self) -> str:
        """The WebSocket URL of a new session (no key in it)."""
        ...

    def headers(self) -> dict[str, str]:
        """Handshake headers, the key included."""
        ...

    def settings(self) -> dict[str, Any]:
        """Everything sent besides the turn that changes the answer (for the cache key and ``describe``)."""
        ...

    async def converse(self, session: WsSession, turn: SessionInput) -> SessionResult:
        """Drive one open session through the turn; raise a classified ``ProviderError`` when it fails."""
        ...

    async def setup(self, session: WsSession, turn: SessionInput) -> None:
        """Configure a new session (the first part of :meth:`converse`)."""
        ...

    async def exchange(self, session: WsSession, turn: SessionInput) -> SessionResult:
        """One turn in a configured session (the rest of :meth:`converse`); called again for the next turn of a
        conversation."""
        ...


def session_cache_key(protocol: SessionProtocol, base_url: str, turn: SessionInput) -> str:
    """Hex sha256 over the provider, model, URL, settings, prompts and the input audio's sha256 (never the key)."""
    identity = {
        "format": SESSION_CACHE_FORMAT,
        "kind": "session",
        "provider": protocol.provider,
        "model": protocol.model,
        "base_url": base_url,
        "settings": protocol.settings(),
        "instructions": turn.instructions,
        "user_text": turn.user_text,
        "rate": turn.rate,
        "audio_sha256": hashlib.sha256(turn.pcm).hexdigest(),
    }
    if turn.history:  # single turns keep their keys (and their cached answers)
        identity["history"] = [
            {"role": h.role, "text": h.text, "audio_sha256": hashlib.sha256(h.pcm).hexdigest() if h.pcm else None}
            for h in turn.history
        ]
    canonical = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


MAX_LABEL_CHARS = 256
"""Longest model version, response id or status kept from a server."""


def _label(value: object, name: str, secrets: tuple[str, ...], where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_LABEL_CHARS:
        shown = f"a {type(value).__name__}" if not isinstance(value, str) else f"{len(value)} characters long"
        raise ProviderError("bad_response", f"{where} sent a {name} that is {shown}, not a short text: refused")
    return redact(value, secrets)


def _checked_text(text: object, secrets: tuple[str, ...], where: str) -> str:
    if not isinstance(text, str) or len(text) > MAX_REPLY_TEXT_CHARS:
        message = f"reply text from {where} is no text of at most {MAX_REPLY_TEXT_CHARS} characters: refused"
        raise ProviderError("bad_response", message, retryable=False)
    text = redact(text, secrets)  # the whole text: a key split across deltas is caught here
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        message = f"reply text from {where} holds a lone surrogate at character {exc.start}"
        raise ProviderError("undecodable", message, retryable=False) from None
    if "\ufffd" in text:
        message = f"reply text from {where} holds U+FFFD replacement characters (broken encoding)"
        raise ProviderError("undecodable", message, retryable=False)
    return text


def checked_result(result: SessionResult, secrets: tuple[str, ...], where: str) -> SessionResult:
    """``result`` as voxeval keeps it: text and labels redacted of ``secrets`` and bounded, the rate a rate, the audio
    16-bit PCM within :data:`MAX_REPLY_AUDIO_SECONDS`; anything else raises a classified ``ProviderError``.

    A lone surrogate or U+FFFD in the text is ``undecodable`` (the outcome an HTTP reply with them gets).
    """
    rate = checked_rate(result.rate, where)
    if not isinstance(result.pcm, bytes) or len(result.pcm) % 2:
        raise ProviderError("bad_response", f"reply audio from {where} is not 16-bit PCM: refused", retryable=False)
    if len(result.pcm) > int(MAX_REPLY_AUDIO_SECONDS * rate) * 2:
        message = f"reply audio from {where} runs over {MAX_REPLY_AUDIO_SECONDS:g} s: refused"
        raise ProviderError("bad_response", message, retryable=False)
    return dataclasses.replace(
        result,
        text=_checked_text(result.text, secrets, where),
        rate=rate,
        model_version=_label(result.model_version, "model version", secrets, where),
        response_id=_label(result.response_id, "response id", secrets, where),
        status=_label(result.status, "status", secrets, where),
    )


def _cache_get(cache: RequestCache, key: str, secrets: tuple[str, ...]) -> SessionResult | None:
    try:
        entry = json.loads(cache.path(key).read_text(encoding="utf-8"))
        if entry.get("format") != SESSION_CACHE_FORMAT or entry.get("key") != key:
            return None
        body = entry["session"]
        usage = checked_usage(body["usage"], body.get("usage_warnings") or [])
        pcm = base64.b64decode(body["pcm"], validate=True)
        fields = {k: body[k] for k in ("text", "rate", "model_version", "response_id", "status")}
        return checked_result(SessionResult(pcm=pcm, usage=usage, cached=True, **fields), secrets, "the cache")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError, ProviderError):
        return None  # a corrupt entry is a miss, rewritten by the next answer


def _cache_put(cache: RequestCache, key: str, result: SessionResult) -> None:
    if not storable(result.text):
        return  # a reply the run cannot keep is never replayed from the cache
    body = {
        "text": result.text,
        "pcm": base64.b64encode(result.pcm).decode("ascii"),
        "rate": result.rate,
        "model_version": result.model_version,
        "response_id": result.response_id,
        "status": result.status,
        "usage": {"input_tokens": result.usage.input_tokens, "output_tokens": result.usage.output_tokens},
        "usage_warnings": list(result.usage.warnings),
    }
    entry = {"format": SESSION_CACHE_FORMAT, "key": key, "session": body}
    atomic_write_text(cache.path(key), json.dumps(entry, ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class SessionOptions:
    """Limits, retries and timeouts of a session model."""

    concurrency: int = 4
    """Sessions open at once."""
    rps: float | None = None
    """Sessions started per second at most; ``None`` for no limit."""
    max_retries: int = 4
    """Retries (fresh sessions) after the first attempt for transient failures."""
    timeouts: SessionTimeouts = field(default_factory=SessionTimeouts)
    """Connect, idle and total timeouts of one attempt."""


class SessionModel:
    """One speech-to-speech model at one WebSocket endpoint. ``policy`` and ``sleep`` are public for tests."""

    def __init__(
        self,
        protocol: SessionProtocol,
        options: SessionOptions,
        *,
        base_url: str,
        secret: str = "",
        cache: RequestCache | None = None,
        described: Mapping[str, Any] | None = None,
    ) -> None:
        self.protocol = protocol
        self.provider = protocol.provider
        self.model = protocol.model
        self.base_url = base_url
        self.options = options
        self.cache = cache
        self.policy = RetryPolicy(max_retries=options.max_retries)
        self.sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
        self.limiter = Limiter(options.concurrency, options.rps)
        self.attempts = 0
        """Sessions opened (first attempts and retries)."""
        self._secrets = (secret,) if secret else ()
        self._described = dict(described or {})

    async def _attempt(self, turn: SessionInput) -> SessionResult:
        async with self.limiter:
            self.attempts += 1
            headers = self.protocol.headers()
            url, timeouts = self.protocol.url(), self.options.timeouts
            async with open_session(url, headers, timeouts, self._secrets) as session:
                return checked_result(await self.protocol.converse(session, turn), self._secrets, session.where)

    async def answer(self, turn: SessionInput) -> SessionResult:
        """The model's reply to ``turn``: from the cache, or a session retried per the policy (then cached)."""
        key = session_cache_key(self.protocol, self.base_url, turn) if self.cache is not None else ""
        if self.cache is not None:
            found = await asyncio.to_thread(_cache_get, self.cache, key, self._secrets)
            if found is not None:
                return found
        try:
            result = await with_retries(lambda: self._attempt(turn), self.policy, self.sleep)
        except ProviderError as error:
            raise redact_error(error, self._secrets) from None
        if self.cache is not None:
            await asyncio.to_thread(_cache_put, self.cache, key, result)
        return result

    def open_conversation(self) -> SessionConversation:
        """One session kept open for the turns of a dialogue (``--history own``); it holds a concurrency slot
        until closed. Not cached and not retried turn by turn: a turn's answer depends on the whole session, so a
        session that breaks fails its dialogue, which is rerun from its first turn (docs/dialogues.md)."""
        return SessionConversation(self)

    def forget(self, turn: SessionInput) -> None:
        """Drop the cached reply to ``turn`` (a reply that failed validation must not be replayed)."""
        if self.cache is not None:
            self.cache.path(session_cache_key(self.protocol, self.base_url, turn)).unlink(missing_ok=True)

    def describe(self) -> dict[str, Any]:
        """Provider, model, URL, settings and options; never the key."""
        timeouts = self.options.timeouts
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "settings": self.protocol.settings(),
            "parameters": {
                **self._described,
                "concurrency": self.options.concurrency,
                "rps": self.options.rps,
                "max_retries": self.options.max_retries,
                "timeout": timeouts.total,
                "connect_timeout": timeouts.connect,
                "idle_timeout": timeouts.idle,
            },
        }


class SessionConversation:
    """The turns of one dialogue in one WebSocket session."""

    def __init__(self, model: SessionModel) -> None:
        self._model = model
        self._stack: contextlib.AsyncExitStack | None = None
        self._session: WsSession | None = None
        self.turns = 0
        """Turns answered in this session."""

    async def answer(self, turn: SessionInput) -> SessionResult:
        """The model's reply to the next turn; the first one opens and configures the session."""
        model = self._model
        try:
            if self._session is None:
                self._stack = contextlib.AsyncExitStack()
                await self._stack.enter_async_context(model.limiter)
                model.attempts += 1
                url, headers = model.protocol.url(), model.protocol.headers()
                self._session = await self._stack.enter_async_context(
                    open_session(url, headers, model.options.timeouts, model._secrets)
                )
                await model.protocol.setup(self._session, turn)
            self._session.next_turn()
            exchanged = await model.protocol.exchange(self._session, turn)
            result = checked_result(exchanged, model._secrets, self._session.where)
        except ProviderError as error:
            raise redact_error(error, model._secrets) from None
        self.turns += 1
        return result

    async def close(self) -> None:
        """Close the session and free its slot."""
        stack, self._stack, self._session = self._stack, None, None
        if stack is not None:
            await stack.aclose()
