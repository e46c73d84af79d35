"""Spec strings of WebSocket session models: ``openai:MODEL[@WS_URL][?k=v&…]`` and ``gemini:…`` (after the
``realtime:`` / ``live:`` system prefix), parsed purely and built into :class:`SessionModel` s.

>>> parse_session_spec("openai:gpt-realtime-2@ws://127.0.0.1:9/v1/realtime?voice=cedar").url
'ws://127.0.0.1:9/v1/realtime'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from voxeval.errors import ConfigError
from voxeval.llm._cache import request_cache
from voxeval.llm._provider import api_key
from voxeval.llm._spec import convert_option, number_option, refuse_credentials
from voxeval.llm.chat._gemini import GEMINI_KEY_ENVS
from voxeval.llm.chat._openai import OPENAI_KEY_ENV
from voxeval.llm.sessions._live_gemini import LIVE_URL, GeminiLive, LiveSettings
from voxeval.llm.sessions._realtime_openai import REALTIME_URL, OpenAIRealtime, RealtimeSettings
from voxeval.llm.sessions._session import SessionModel, SessionOptions
from voxeval.llm.sessions._ws import SessionTimeouts

_WS_AT = re.compile(r"@(?=wss?://)")
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_API_VERSION = re.compile(r"v\d+(alpha|beta)?\d*")
_COMMON = ("key_env", "timeout", "connect_timeout", "idle_timeout", "concurrency", "rps", "max_retries")
OPTIONS: dict[str, tuple[str, ...]] = {
    "openai": (*_COMMON, "voice", "output", "max_tokens", "chunk_ms"),
    "gemini": (*_COMMON, "voice", "output", "max_tokens", "chunk_ms", "temperature", "api_version"),
}
"""Options each provider's session spec accepts."""


@dataclass(frozen=True)
class SessionSpec:
    """A parsed session spec string."""

    provider: str
    """``openai`` (Realtime) or ``gemini`` (Live)."""
    model: str
    """Model name."""
    url: str | None
    """WebSocket endpoint (``ws://`` or ``wss://``); ``None`` for the provider's."""
    options: dict[str, Any] = field(default_factory=dict)
    """Typed ``?k=v`` options given."""


def convert_session_option(key: str, value: str) -> Any:
    """One option's typed value; a bad one raises :class:`ConfigError` saying what is expected."""
    if key in ("timeout", "rps", "concurrency", "max_tokens", "max_retries", "temperature", "key_env"):
        return convert_option(key, value)  # the same options and checks as HTTP model specs
    if key in ("connect_timeout", "idle_timeout"):
        number = number_option(key, value, float, 0.0)
        if number == 0:
            raise ConfigError(f"option {key}={value!r}: must be positive")
        return number
    if key == "chunk_ms":
        number = number_option(key, value, int, 10)
        if number > 1000:
            raise ConfigError(f"option chunk_ms={value!r}: at most 1000")
        return number
    if key == "output":
        if value not in ("audio", "text"):
            raise ConfigError(f"option output={value!r}: expected audio or text")
        return value
    patterns = {"voice": _NAME, "api_version": _API_VERSION}
    if not patterns[key].fullmatch(value):
        raise ConfigError(f"option {key}={value!r}: not a valid {key.replace('_', ' ')}")
    return value


def parse_session_spec(spec: str) -> SessionSpec:
    """Split ``PROVIDER:MODEL[@WS_URL][?k=v&…]`` and check every part (no I/O, no environment)."""
    provider, sep, rest = spec.strip().partition(":")
    if not sep or provider not in OPTIONS:
        raise ConfigError(f"session spec {spec!r}: expected openai:MODEL or gemini:MODEL")
    rest, has_query, query = rest.partition("?")
    model, *url = _WS_AT.split(rest, maxsplit=1)
    endpoint = url[0].rstrip("/") if url else None
    if endpoint is not None:  # first: no other error may echo a password
        refuse_credentials(spec, endpoint, OPENAI_KEY_ENV if provider == "openai" else GEMINI_KEY_ENVS[0])
    options: dict[str, Any] = {}
    for item in query.split("&") if has_query else ():
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise ConfigError(f"session spec {spec!r}: option {item!r} is not of the form key=value")
        if key not in OPTIONS[provider]:
            raise ConfigError(f"session spec {spec!r}: unknown option {key!r}; known: {', '.join(OPTIONS[provider])}")
        if key in options:
            raise ConfigError(f"session spec {spec!r}: option {key!r} given twice")
        options[key] = convert_session_option(key, value)
    if not model or any(c.isspace() for c in model):
        raise ConfigError(f"session spec {spec!r}: the model name is empty or contains spaces")
    if not url and "@" in model:
        raise ConfigError(f"session spec {spec!r}: the URL after '@' must start with ws:// or wss://")
    if endpoint is not None and (endpoint.count("://") != 1 or any(c.isspace() for c in endpoint)):
        raise ConfigError(f"session spec {spec!r}: malformed WebSocket URL {endpoint!r}")
    return SessionSpec(provider, model, endpoint, options)


def session_model_from_spec(spec: str) -> SessionModel:
    """A ready :class:`SessionModel` (key from the environment, the process-wide request cache)."""
    parsed = parse_session_spec(spec)
    o = parsed.options
    names = (
        [o["key_env"]]
        if "key_env" in o
        else ([OPENAI_KEY_ENV] if parsed.provider == "openai" else list(GEMINI_KEY_ENVS))
    )
    key = api_key(names, f"{parsed.provider} ({'realtime' if parsed.provider == 'openai' else 'live'})")
    common = {k: o[k] for k in ("voice", "output", "max_tokens", "chunk_ms") if k in o}
    protocol: OpenAIRealtime | GeminiLive
    if parsed.provider == "openai":
        endpoint = parsed.url or REALTIME_URL
        protocol = OpenAIRealtime(parsed.model, endpoint, key, RealtimeSettings(**common))
    else:
        endpoint = parsed.url or LIVE_URL.format(version=o.get("api_version", "v1beta"))
        extra = {"temperature": o["temperature"]} if "temperature" in o else {}
        protocol = GeminiLive(parsed.model, endpoint, key, LiveSettings(**common, **extra))
    timeouts = SessionTimeouts(o.get("connect_timeout", 10.0), o.get("idle_timeout", 30.0), o.get("timeout", 120.0))
    options = SessionOptions(o.get("concurrency", 4), o.get("rps"), o.get("max_retries", 4), timeouts)
    described = {"key_env": o.get("key_env")}
    return SessionModel(protocol, options, base_url=endpoint, secret=key, cache=request_cache(), described=described)
