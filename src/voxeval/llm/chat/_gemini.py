"""Google Gemini through the REST ``generateContent`` endpoint (``gemini``)."""

from __future__ import annotations

import base64
import json
from typing import Any

from voxeval.errors import ConfigError
from voxeval.llm._provider import ChatModel, ProviderOptions, api_key, providers
from voxeval.llm._types import ChatMessage, ChatRequest, ChatResponse, ProviderError, Usage
from voxeval.llm.chat._profiles import ModelProfile, profile_for
from voxeval.llm.chat._remote import RemoteChatModel

GEMINI_HOST = "https://generativelanguage.googleapis.com"
"""The public Gemini API host."""
GEMINI_API_VERSION = "v1beta"
"""Default API version (``?api_version=`` changes it)."""
GEMINI_BASE_URL = f"{GEMINI_HOST}/{GEMINI_API_VERSION}"
"""Default base URL of the ``gemini`` provider."""
LEGACY_PROFILE = ModelProfile("request-temperature", True, "request", "maxOutputTokens")
"""A profile that sends the request's temperature and cap as asked (the default of :func:`gemini_payload`)."""
GEMINI_KEY_ENVS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
"""Key variables tried in order when ``key_env`` is not given."""

_BLOCKED = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE"})


def _parts(message: ChatMessage) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if message.text is not None:
        parts.append({"text": message.text})
    if message.audio is not None:
        data = base64.b64encode(message.audio.data).decode("ascii")
        parts.append({"inline_data": {"mime_type": message.audio.mime, "data": data}})
    return parts


def _generation_config(request: ChatRequest, profile: ModelProfile) -> dict[str, Any]:
    config: dict[str, Any] = {}
    temperature = profile.sent_temperature(request.temperature)
    if temperature is not None:
        config["temperature"] = temperature
    cap = profile.output_cap(request.max_tokens)
    if cap is not None:
        config["maxOutputTokens"] = cap
    if request.json_output:
        config["responseMimeType"] = "application/json"
    if request.seed is not None:
        config["seed"] = request.seed
    if profile.thinking_level is not None:
        config["thinkingConfig"] = {"thinkingLevel": profile.thinking_level.upper()}  # the enum name, as the SDK
    elif profile.thinking_budget is not None:
        config["thinkingConfig"] = {"thinkingBudget": profile.thinking_budget}
    return config


def gemini_payload(request: ChatRequest, profile: ModelProfile = LEGACY_PROFILE) -> dict[str, Any]:
    """The ``generateContent`` JSON body for ``request`` under ``profile`` (pure).

    System messages become ``systemInstruction``; assistant turns have role ``model``. The profile decides the
    temperature sent and the thinking configuration (Gemini 3: ``thinkingLevel``, 2.5: ``thinkingBudget``).
    Gemini's audio output (raw PCM from separate TTS models) is not supported: asking for it is a ConfigError.
    """
    if request.audio_output:
        raise ConfigError("the gemini provider does not support audio output; use a TTS engine for speech")
    config = _generation_config(request, profile)
    payload: dict[str, Any] = {
        "contents": [
            {"role": "model" if m.role == "assistant" else "user", "parts": _parts(m)}
            for m in request.messages
            if m.role != "system"
        ],
        "generationConfig": config,
    }
    system = [part for m in request.messages if m.role == "system" for part in _parts(m)]
    if system:
        payload["systemInstruction"] = {"role": "user", "parts": system}  # the role the official SDK sends
    return payload


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(metadata: dict[str, Any]) -> Usage:
    # Thinking tokens are generated (and billed) too: the third count is added to the output.
    return Usage.checked(
        {k: metadata.get(k) for k in ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount")}
    )


def _outcome_error(body: dict[str, Any], finish: str | None, text: str) -> ProviderError | None:
    blocked = _obj(body.get("promptFeedback")).get("blockReason")
    if blocked or finish in _BLOCKED:
        return ProviderError("refused", f"blocked by the provider ({blocked or finish})")
    if finish == "MAX_TOKENS" and not text.strip():
        thoughts = _int(_obj(body.get("usageMetadata")).get("thoughtsTokenCount"))
        return ProviderError(
            "truncated",
            f"the token budget ran out before any text (finishReason MAX_TOKENS, {thoughts} thinking tokens); "
            "raise it with ?max_tokens=N",
        )
    return None


def _texts(candidate: dict[str, Any], body: dict[str, Any]) -> list[str]:
    """The non-thought texts of a candidate. No content or no parts is no text; content, parts or a part's text
    of another shape is a broken response (``bad_response``, retried), never an empty reply."""
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if (content is not None and not isinstance(content, dict)) or not isinstance(parts, (list, type(None))):
        raise ProviderError("bad_response", f"candidate content of an unknown shape: {json.dumps(body)[:2000]}")
    for p in parts or []:
        if not isinstance(p, dict) or not isinstance(p.get("text", ""), str):
            raise ProviderError("bad_response", f"a content part of an unknown shape: {json.dumps(body)[:2000]}")
    return [p["text"] for p in parts or [] if "text" in p and not p.get("thought")]


def parse_gemini(body: dict[str, Any]) -> ChatResponse:
    """A ``generateContent`` JSON answer as a :class:`ChatResponse` (pure); thought parts are left out.

    A candidate without text is an empty reply (text ``""``). A blocked prompt or answer raises ``refused``, a
    budget spent before any text (``MAX_TOKENS``, no parts) ``truncated``, replacement characters
    ``undecodable`` (none retried); no candidate at all is a retryable ``bad_response``.
    """
    candidates = body.get("candidates")
    candidate = _obj(candidates[0]) if isinstance(candidates, list) and candidates else {}
    text = "".join(_texts(candidate, body))
    finish = candidate.get("finishReason") if isinstance(candidate.get("finishReason"), str) else None
    error = _outcome_error(body, finish, text)
    if error is not None:
        raise error
    if not candidate:
        raise ProviderError("bad_response", f"no candidates in response: {json.dumps(body)[:2000]}")
    if "\ufffd" in text:
        raise ProviderError("undecodable", "the reply text holds U+FFFD replacement characters (broken encoding)")
    version = body.get("modelVersion")
    return ChatResponse(
        text=text,
        audio=None,
        model_version=version if isinstance(version, str) else None,
        usage=_usage(_obj(body.get("usageMetadata"))),
        finish_reason=finish,
    )


def gemini_base_url(base_url: str | None, options: ProviderOptions) -> str:
    """The API base URL: the spec's, else the public endpoint at ``api_version`` (default ``v1beta``)."""
    if base_url is not None:
        if options.api_version is not None:
            raise ConfigError("option api_version applies to the default Gemini endpoint; put the version in the URL")
        return base_url
    return f"{GEMINI_HOST}/{options.api_version or GEMINI_API_VERSION}"


@providers.register("gemini")
def make_gemini(model: str, base_url: str | None, options: ProviderOptions) -> ChatModel:
    """``gemini:MODEL[@BASE_URL]``: key from ``$GEMINI_API_KEY`` or ``$GOOGLE_API_KEY`` (or ``key_env``)."""
    key = api_key([options.key_env] if options.key_env else list(GEMINI_KEY_ENVS), "gemini")
    base = gemini_base_url(base_url, options)
    name = model.removeprefix("models/")
    profile = profile_for("gemini", name, options.profile_overrides(), f"gemini:{model}")
    return RemoteChatModel(
        provider="gemini",
        model=name,
        base_url=base,
        url=f"{base}/models/{name}:generateContent",
        headers={"x-goog-api-key": key},
        build=lambda request: gemini_payload(request, profile),
        parse=parse_gemini,
        options=options,
        profile=profile,
        secret=key,
    )
