"""Model spec strings: ``PROVIDER:MODEL[@BASE_URL][?key=value&…]`` parsed (purely) and built into models.

Examples: ``openai:gpt-5.4-mini``, ``gemini:gemini-3.8-flash?rps=2``,
``openai-compat:Qwen/Qwen2-Audio-7B-Instruct@http://localhost:8000/v1?key_env=VLLM_KEY&concurrency=16``,
``llamacpp:qwen2.5-1.5b``. The model name may itself contain ``:`` or ``@`` (``qwen2.5:1.5b``); the base URL
starts at the first ``@`` followed by ``http://`` or ``https://``, and the options at the first ``?``.
``openai-compat`` may name several replicas of one served model, comma-separated:
``openai-compat:MODEL@http://h1:8000/v1,http://h2:8000/v1?concurrency=16`` (``concurrency`` is per replica).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

from voxeval.errors import ConfigError
from voxeval.llm._cache import cached, request_cache
from voxeval.llm._provider import ChatModel, ProviderOptions, providers
from voxeval.llm.chat._gemini import GEMINI_KEY_ENVS
from voxeval.llm.chat._openai import COMPAT_KEY_ENV, OPENAI_KEY_ENV
from voxeval.llm.chat._profiles import REASONING_EFFORTS

_PROVIDER = re.compile(r"[a-z][a-z0-9_-]*")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BASE_AT = re.compile(r"@(?=https?://)")
_API_VERSION = re.compile(r"v\d+(alpha|beta)?\d*")
_OPTION_NAMES = tuple(f.name for f in dataclasses.fields(ProviderOptions))


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec string."""

    provider: str
    """Registry name of the provider."""
    model: str
    """Model name passed to the provider."""
    base_url: str | None
    """API base URL without a trailing ``/`` (several, comma-separated, for replicas); ``None`` for the default."""
    options: ProviderOptions
    """Typed ``?k=v`` options (defaults for those not given)."""


def number_option(key: str, value: Any, kind: type, minimum: float) -> Any:
    """An option's number of ``kind``, at least ``minimum``; else a :class:`ConfigError` saying what is expected."""
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"option {key}={value!r}: expected {'an integer' if kind is int else 'a number'}") from None
    if isinstance(value, float) and kind is int and value != number:
        raise ConfigError(f"option {key}={value!r}: expected an integer")
    if not math.isfinite(number) or number < minimum:
        raise ConfigError(f"option {key}={value!r}: must be at least {minimum:g}")
    return number


def convert_option(key: str, value: Any) -> Any:
    """Validate one option (string from a spec, or a typed override) and return its typed value."""
    if key == "key_env":
        if not isinstance(value, str) or not _ENV_NAME.fullmatch(value):
            raise ConfigError(f"option key_env={value!r}: expected an environment variable name")
        return value
    if key in ("timeout", "rps"):
        number = number_option(key, value, float, 0.0)
        if number == 0:
            raise ConfigError(f"option {key}={value!r}: must be positive")
        return number
    if key in ("concurrency", "max_tokens"):
        return number_option(key, value, int, 1)
    if key == "max_retries":
        return number_option(key, value, int, 0)
    if key == "temperature":
        return number_option(key, value, float, 0.0)
    if key == "thinking_budget":
        return number_option(key, value, int, -1)
    if key == "reasoning_effort":
        if value not in (*REASONING_EFFORTS, "default"):
            known = ", ".join((*REASONING_EFFORTS, "default"))
            raise ConfigError(f"option reasoning_effort={value!r}: expected one of {known}")
        return value
    if key == "api_version":
        if not isinstance(value, str) or not _API_VERSION.fullmatch(value):
            raise ConfigError(f"option api_version={value!r}: expected a version like v1beta or v1")
        return value
    raise ConfigError(f"unknown option {key!r}; known: {', '.join(_OPTION_NAMES)}")


def _parse_options(query: str, spec: str) -> ProviderOptions:
    values: dict[str, Any] = {}
    for item in query.split("&"):
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise ConfigError(f"model spec {spec!r}: option {item!r} is not of the form key=value")
        if key in values:
            raise ConfigError(f"model spec {spec!r}: option {key!r} given twice")
        values[key] = convert_option(key, value)
    return ProviderOptions(**values)


def parse_model_spec(spec: str) -> ModelSpec:
    """Split a spec string into its parts, validating the syntax and option values (no I/O, no env)."""
    provider, sep, rest = spec.strip().partition(":")
    if not sep or not _PROVIDER.fullmatch(provider):
        raise ConfigError(f"model spec {spec!r}: expected PROVIDER:MODEL, e.g. gemini:gemini-3.8-flash")
    rest, has_query, query = rest.partition("?")
    parts = _BASE_AT.split(rest, maxsplit=1)
    for url in parts[1].split(",") if len(parts) > 1 else ():  # first: no other error may echo a password
        refuse_credentials(spec, url, _KEY_ENVS.get(provider))
    options = _parse_options(query, spec) if has_query else ProviderOptions()
    model = parts[0]
    base_url = parts[1].rstrip("/") if len(parts) > 1 else None
    if not model or any(c.isspace() for c in model):
        raise ConfigError(f"model spec {spec!r}: the model name is empty or contains spaces")
    tail = model.rpartition("@")[2] if "@" in model else "-"
    if base_url is None and (not tail or ":" in tail or "/" in tail):
        raise ConfigError(f"model spec {spec!r}: the base URL after '@' must start with http:// or https://")
    if base_url is not None:
        base_url = _base_urls(spec, provider, base_url)
    return ModelSpec(provider, model, base_url, options)


def refuse_credentials(spec: str, url: str, key_env: str | None) -> None:
    """Refuse a URL holding ``user[:password]@``: it would be written into ``config.json``, every reply row and the
    reports, and sent beside the key. The error shows the spec with the credentials masked and names the
    environment variable the key belongs in.

    >>> refuse_credentials("openai:m@ws://u:pw@h/v1", "ws://u:pw@h/v1", "OPENAI_API_KEY")
    Traceback (most recent call last):
    voxeval.errors.ConfigError: spec 'openai:m@ws://***@h/v1': the URL holds credentials ... variable OPENAI_API_KEY ...
    """
    netloc = url.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    userinfo, at, _ = netloc.rpartition("@")
    if not at:
        return
    where = (
        f"the environment variable {key_env} (or name another with ?key_env=NAME)"
        if key_env
        else ("an environment variable named with ?key_env=NAME")
    )
    masked = spec.replace(userinfo + "@", "***@")
    raise ConfigError(
        f"spec {masked!r}: the URL holds credentials (user:password@), which would be written into the run's files; "
        f"put the key in {where}"
    )


_KEY_ENVS = {"openai": OPENAI_KEY_ENV, "openai-compat": COMPAT_KEY_ENV, "gemini": GEMINI_KEY_ENVS[0]}
"""The variable each provider reads its key from by default (named by :func:`refuse_credentials`)."""


def _base_urls(spec: str, provider: str, given: str) -> str:
    """One base URL, or (``openai-compat``) several comma-separated replicas, each checked, without trailing ``/``.

    >>> _base_urls("s", "openai-compat", "http://a:8000/v1/,http://b:8000/v1")
    'http://a:8000/v1,http://b:8000/v1'
    """
    urls = [u.rstrip("/") for u in given.split(",")]
    if len(urls) > 1 and provider != "openai-compat":
        raise ConfigError(f"model spec {spec!r}: several base URLs (replicas) are supported by openai-compat only")
    for url in urls:
        if not url.startswith(("http://", "https://")) or url.count("://") != 1 or any(c.isspace() for c in url):
            raise ConfigError(f"model spec {spec!r}: malformed base URL {url!r}")
    if len(set(urls)) != len(urls):
        raise ConfigError(f"model spec {spec!r}: a replica's base URL is given twice")
    return ",".join(urls)


def chat_model_from_spec(spec: str, **overrides: Any) -> ChatModel:
    """Build a ready model from a spec string; ``overrides`` replace its options (``concurrency=8``…).

    The model answers through the process-wide request cache (see :func:`set_request_cache`), if any.
    Unknown providers or options, and a missing API key, raise :class:`ConfigError`.
    """
    parsed = parse_model_spec(spec)
    options = dataclasses.replace(parsed.options, **{k: convert_option(k, v) for k, v in overrides.items()})
    model = providers.get(parsed.provider)(parsed.model, parsed.base_url, options)
    cache = request_cache()
    return model if cache is None else cached(model, cache)
