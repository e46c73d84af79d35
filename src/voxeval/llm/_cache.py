"""An on-disk cache of model answers, keyed by everything that determines the answer (never the API key)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from voxeval.io import MAX_LINE_BYTES, atomic_write_text
from voxeval.llm._provider import ChatModel
from voxeval.llm._types import ChatRequest, ChatResponse, Usage
from voxeval.paths import cache_dir

CACHE_FORMAT = 1
"""Bumped when the key recipe or the entry layout changes, so old entries simply miss."""


def _request_identity(request: ChatRequest) -> dict[str, Any]:
    messages = [
        {
            "role": m.role,
            "text": m.text,
            "audio": None
            if m.audio is None
            else {"mime": m.audio.mime, "sha256": hashlib.sha256(m.audio.data).hexdigest(), "bytes": len(m.audio.data)},
        }
        for m in request.messages
    ]
    return {
        "messages": messages,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "json_output": request.json_output,
        "audio_output": request.audio_output,
        "voice": request.voice,
        "seed": request.seed,
    }


def cache_key(provider: str, model: str, base_url: str | None, request: ChatRequest) -> str:
    """Hex sha256 over the provider, model, base URL and the full request (parameters, texts, audio bytes)."""
    identity = {
        "format": CACHE_FORMAT,
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "request": _request_identity(request),
    }
    canonical = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def response_to_json(response: ChatResponse) -> dict[str, Any]:
    """A response as plain JSON (audio base64)."""
    return {
        "text": response.text,
        "audio": None if response.audio is None else base64.b64encode(response.audio).decode("ascii"),
        "model_version": response.model_version,
        "usage": {"input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens},
        "usage_warnings": list(response.usage.warnings),
        "finish_reason": response.finish_reason,
    }


def storable(text: object) -> bool:
    """Whether a reply's text may be cached: UTF-8 text without U+FFFD, no longer than a run's log line can hold.

    An undecodable or oversized reply is recorded as such by the run and asked again by ``--retry-failed``; a cached
    copy would replay the same failure forever (once a 51 MB entry).

    >>> storable("はい"), storable("x\\udc80"), storable("x\\ufffd"), storable("x" * (2 << 20))
    (True, False, False, False)
    """
    if not isinstance(text, str) or len(text) > MAX_LINE_BYTES or "\ufffd" in text:
        return False
    try:
        return len(text.encode("utf-8")) <= MAX_LINE_BYTES
    except UnicodeEncodeError:
        return False


def checked_usage(usage: dict[str, Any], recorded: list[str]) -> Usage:
    """The cached counts, checked again (a cache file is a file anyone could edit), with the recorded warnings."""
    checked = Usage.checked({k: usage[k] for k in ("input_tokens", "output_tokens")})
    return Usage(checked.input_tokens, checked.output_tokens, (*map(str, recorded), *checked.warnings))


def response_from_json(obj: dict[str, Any]) -> ChatResponse:
    """The inverse of :func:`response_to_json`; raises ``ValueError``/``KeyError``/``TypeError`` on bad input."""
    audio = obj["audio"]
    usage = obj["usage"]
    response = ChatResponse(
        text=obj["text"],
        audio=None if audio is None else base64.b64decode(audio, validate=True),
        model_version=obj["model_version"],
        usage=checked_usage(usage, obj.get("usage_warnings") or []),
        finish_reason=obj["finish_reason"],
    )
    if not isinstance(response.text, str):
        raise TypeError("cached text is not a string")
    return response


class RequestCache:
    """Responses stored one JSON file per key under ``directory/ab/abcdef….json``, written atomically."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatResponse | None:
        """The cached response, or ``None`` when absent or unreadable (a corrupt entry counts as a miss)."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
            if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
                return None
            return response_from_json(entry["response"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, response: ChatResponse) -> None:
        """Store ``response`` under ``key``, replacing any previous (possibly corrupt) entry; a reply whose text is
        not :func:`storable` is not stored (and any previous entry is dropped)."""
        if not storable(response.text):
            self.path(key).unlink(missing_ok=True)
            return
        entry = {"format": CACHE_FORMAT, "key": key, "response": response_to_json(response)}
        atomic_write_text(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1) + "\n")


class CachedChatModel:
    """A :class:`ChatModel` answering from a :class:`RequestCache` first; counts ``hits`` and ``misses``."""

    def __init__(self, inner: ChatModel, cache: RequestCache) -> None:
        self.inner = inner
        self.cache = cache
        self.provider = inner.provider
        self.model = inner.model
        self.hits = 0
        """Requests answered from the cache."""
        self.misses = 0
        """Requests sent to the model (then stored)."""

    def key(self, request: ChatRequest) -> str:
        """The cache key of ``request`` for the wrapped model."""
        base_url = self.inner.describe().get("base_url")
        return cache_key(self.provider, self.model, base_url, request)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """The cached answer, or the model's (stored for next time)."""
        key = self.key(request)
        found = self.cache.get(key)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        response = await self.inner.complete(request)
        await asyncio.to_thread(self.cache.put, key, response)  # the atomic write fsyncs: keep it off the loop
        return response

    def forget(self, request: ChatRequest) -> None:
        """Drop the cached reply to ``request`` (a reply that failed validation must not be replayed on retry)."""
        self.cache.path(self.key(request)).unlink(missing_ok=True)

    def describe(self) -> dict[str, Any]:
        """The wrapped model's description (the cache does not change answers)."""
        return self.inner.describe()


def cached(model: ChatModel, cache: RequestCache) -> CachedChatModel:
    """Wrap ``model`` so that repeated requests are answered from ``cache``."""
    return CachedChatModel(model, cache)


_UNSET = "unset"
_request_cache: RequestCache | str | None = _UNSET


def set_request_cache(cache: RequestCache | str | Path | None) -> None:
    """Set the cache :func:`chat_model_from_spec` wraps models in: a cache, a directory, or ``None`` for none.

    Until set, it is ``$VOXEVAL_CACHE/requests`` (resolved when a model is built).
    """
    global _request_cache
    _request_cache = cache if cache is None or isinstance(cache, RequestCache) else RequestCache(cache)


def request_cache() -> RequestCache | None:
    """The cache new models from spec strings use, or ``None`` when caching is off."""
    if isinstance(_request_cache, str):
        return RequestCache(cache_dir("requests"))
    return _request_cache


@contextmanager
def request_cache_off(off: bool = True) -> Iterator[None]:
    """Within the block, models built from spec strings answer without the request cache (when ``off``).

    The setting is restored exactly afterwards (including "not set yet": the default directory stays lazy)."""
    global _request_cache
    previous = _request_cache
    if off:
        _request_cache = None
    try:
        yield
    finally:
        _request_cache = previous
