"""OpenAI chat completions (``openai``) and any OpenAI-compatible server (``openai-compat``: vLLM, llama.cpp…)."""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any

from voxeval.errors import ConfigError
from voxeval.llm._provider import ChatModel, ProviderOptions, api_key, providers
from voxeval.llm._types import ChatMessage, ChatRequest, ChatResponse, ProviderError, Usage
from voxeval.llm.chat._profiles import PROFILES, ModelProfile, profile_for
from voxeval.llm.chat._remote import RemoteChatModel

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Default base URL of the ``openai`` provider."""
OPENAI_BASE_URL_ENV = "OPENAI_BASE_URL"
"""Variable overriding the ``openai`` provider's default base URL (a base URL in the spec wins)."""
OPENAI_KEY_ENV = "OPENAI_API_KEY"
"""Default key variable of the ``openai`` provider."""
COMPAT_KEY_ENV = "VOXEVAL_COMPAT_API_KEY"
"""Default key variable of the ``openai-compat`` provider (optional: many local servers need no key)."""
DEFAULT_VOICE = "alloy"
"""Voice used for audio output when the request names none."""

COMPAT_PROFILE: ModelProfile = PROFILES["openai-compat"][0][1]
"""The profile of OpenAI-compatible servers: the request's temperature, ``max_tokens``."""

_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/vnd.wave": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}


def _audio_format(mime: str) -> str:
    try:
        return _AUDIO_FORMATS[mime.lower()]
    except KeyError:
        raise ConfigError(f"OpenAI audio input must be WAV or MP3, got {mime!r}") from None


def _message(message: ChatMessage) -> dict[str, Any]:
    if message.audio is None:
        return {"role": message.role, "content": message.text}
    parts: list[dict[str, Any]] = []
    if message.text is not None:
        parts.append({"type": "text", "text": message.text})
    data = base64.b64encode(message.audio.data).decode("ascii")
    parts.append({"type": "input_audio", "input_audio": {"data": data, "format": _audio_format(message.audio.mime)}})
    return {"role": message.role, "content": parts}


def openai_chat_payload(model: str, request: ChatRequest, profile: ModelProfile = COMPAT_PROFILE) -> dict[str, Any]:
    """The ``/chat/completions`` JSON body for ``request`` under ``profile`` (pure).

    Text-only messages use string content; a message with audio uses content parts, text first. The profile
    decides whether a temperature is sent, the name of the output cap (``max_completion_tokens`` on
    api.openai.com, ``max_tokens`` on compatible servers) and the reasoning effort.
    """
    payload: dict[str, Any] = {"model": model, "messages": [_message(m) for m in request.messages]}
    temperature = profile.sent_temperature(request.temperature)
    if temperature is not None:
        payload["temperature"] = temperature
    cap = profile.output_cap(request.max_tokens)
    if cap is not None:
        payload[profile.max_tokens_field] = cap
    if profile.reasoning_effort is not None:
        payload["reasoning_effort"] = profile.reasoning_effort
    if request.seed is not None:
        payload["seed"] = request.seed
    if request.json_output:
        payload["response_format"] = {"type": "json_object"}
    if request.audio_output:
        payload["modalities"] = ["text", "audio"]
        payload["audio"] = {"voice": request.voice or DEFAULT_VOICE, "format": "wav"}
    return payload


def _content_text(content: Any, body: dict[str, Any]) -> str | None:
    """The text of ``message.content``: a string, ``null`` (no text), or content parts with string texts.

    Any other shape (``{"text": "x"}``, a number, a part whose text is not a string) is not an empty reply but a
    broken response: ``bad_response``, retried, then a failure that is excluded, never scored as silence.
    """
    if content is None or isinstance(content, str):
        return content
    # Some compatible servers answer with content parts.
    if isinstance(content, list) and all(isinstance(p, dict) and isinstance(p.get("text", ""), str) for p in content):
        texts: list[str] = [p["text"] for p in content if "text" in p]
        return "".join(texts) if texts else None
    raise ProviderError("bad_response", f"message content of an unknown shape: {json.dumps(body)[:2000]}")


def _audio(message: dict[str, Any], body: dict[str, Any]) -> tuple[bytes | None, str | None]:
    audio = message.get("audio")
    if not isinstance(audio, dict):
        return None, None
    transcript = _str(audio.get("transcript"))
    try:
        data = base64.b64decode(audio.get("data") or "", validate=True) or None
    except (binascii.Error, TypeError, ValueError):
        raise ProviderError("undecodable", f"undecodable base64 audio in response: {json.dumps(body)[:2000]}") from None
    return data, transcript


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _outcome_error(choice: dict[str, Any], message: dict[str, Any], body: dict[str, Any]) -> ProviderError | None:
    finish = choice.get("finish_reason")
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        return ProviderError("refused", f"model refused: {refusal}")
    if finish == "content_filter":
        return ProviderError("refused", "stopped by the content filter (finish_reason content_filter)")
    if finish == "length":
        details = _obj(_obj(body.get("usage")).get("completion_tokens_details"))
        spent = _int(_obj(body.get("usage")).get("completion_tokens"))
        return ProviderError(
            "truncated",
            f"the token budget ran out before any text (finish_reason length, {spent} completion tokens, "
            f"{_int(details.get('reasoning_tokens'))} of them reasoning); raise it with ?max_tokens=N",
        )
    return None


def parse_openai_chat(body: dict[str, Any]) -> ChatResponse:
    """A ``/chat/completions`` JSON answer as a :class:`ChatResponse` (pure).

    With audio output the text is ``message.content``, or the audio transcript when ``content`` is null. Null or
    empty content is an empty reply (text ``""``). A refusal or content filter raises ``refused``, a budget spent
    before any text ``truncated``, replacement characters in the text ``undecodable`` (none retried); a body
    without choices is a retryable ``bad_response``.
    """
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderError("bad_response", f"no choices in response: {json.dumps(body)[:2000]}")
    choice = choices[0]
    message = choice.get("message")
    message = {} if message is None else message  # `"message": null` says nothing: an empty reply
    if not isinstance(message, dict) or not isinstance(message.get("audio", {}), (dict, type(None))):
        raise ProviderError("bad_response", f"a message of an unknown shape: {json.dumps(body)[:2000]}")
    audio, transcript = _audio(message, body)
    text = _content_text(message.get("content"), body) or transcript or ""
    error = _outcome_error(choice, message, body)
    if error is not None and (error.kind == "refused" or (not text.strip() and audio is None)):
        raise error
    if "\ufffd" in text:
        raise ProviderError("undecodable", "the reply text holds U+FFFD replacement characters (broken encoding)")
    usage = _obj(body.get("usage"))
    return ChatResponse(
        text=text,
        audio=audio,
        model_version=_str(body.get("model")),
        usage=Usage.checked({k: usage.get(k) for k in ("prompt_tokens", "completion_tokens")}),
        finish_reason=_str(choice.get("finish_reason")),
    )


def _openai_model(provider: str, model: str, base_url: str, key: str, options: ProviderOptions) -> RemoteChatModel:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    profile = profile_for(provider, model, options.profile_overrides(), f"{provider}:{model}")
    return RemoteChatModel(
        provider=provider,
        model=model,
        base_url=base_url,
        url=f"{base_url}/chat/completions",
        headers=headers,
        build=lambda request: openai_chat_payload(model, request, profile),
        parse=parse_openai_chat,
        options=options,
        profile=profile,
        secret=key,
    )


@providers.register("openai")
def make_openai(model: str, base_url: str | None, options: ProviderOptions) -> ChatModel:
    """``openai:MODEL[@BASE_URL]``: key from ``$OPENAI_API_KEY`` (or ``key_env``); base URL from the spec, else
    ``$OPENAI_BASE_URL`` (as the official SDK reads it), else api.openai.com."""
    key = api_key([options.key_env or OPENAI_KEY_ENV], "openai")
    base = base_url or os.environ.get(OPENAI_BASE_URL_ENV, "").strip().rstrip("/") or OPENAI_BASE_URL
    return _openai_model("openai", model, base, key, options)


@providers.register("openai-compat")
def make_openai_compat(model: str, base_url: str | None, options: ProviderOptions) -> ChatModel:
    """``openai-compat:MODEL@BASE_URL[,BASE_URL…]``: key optional, from ``$VOXEVAL_COMPAT_API_KEY`` or ``key_env``.

    A ``key_env`` given explicitly must be set; the default variable may be absent (no Authorization header).
    Several base URLs are replicas of one served model (e.g. ``vllm serve`` on several hosts): requests are
    spread over them, with the options (``concurrency``, ``rps``) applying to each replica.
    """
    if base_url is None:
        raise ConfigError(f"openai-compat:{model} needs a base URL: openai-compat:MODEL@http://HOST:PORT/v1")
    key = api_key([options.key_env or COMPAT_KEY_ENV], "openai-compat", required=options.key_env is not None)
    urls = base_url.split(",")
    if len(urls) == 1:
        return _openai_model("openai-compat", model, base_url, key, options)
    from voxeval.llm.chat._replicas import ReplicaSet

    return ReplicaSet([_openai_model("openai-compat", model, url, key, options) for url in urls])
