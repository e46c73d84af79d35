"""Google Gemini through the REST ``generateContent`` endpoint (``gemini``)."""

from __future__ import annotations

import base64
import json
from typing import Any

from voxeval.errors import ConfigError
from voxeval.llm._http import excerpt
from voxeval.llm._provider import ChatModel, ProviderOptions, api_key, providers
from voxeval.llm._remote import RemoteChatModel
from voxeval.llm._types import ChatMessage, ChatRequest, ChatResponse, ProviderError, Usage

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
"""Default base URL of the ``gemini`` provider."""
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


def gemini_payload(request: ChatRequest) -> dict[str, Any]:
    """The ``generateContent`` JSON body for ``request`` (pure).

    System messages become ``systemInstruction``; assistant turns have role ``model``.
    Gemini's audio output (raw PCM from separate TTS models) is not supported: asking for it is a ConfigError.
    """
    if request.audio_output:
        raise ConfigError("the gemini provider does not support audio output; use a TTS engine for speech")
    config: dict[str, Any] = {"temperature": request.temperature}
    if request.max_tokens is not None:
        config["maxOutputTokens"] = request.max_tokens
    if request.json_output:
        config["responseMimeType"] = "application/json"
    if request.seed is not None:
        config["seed"] = request.seed
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
        payload["systemInstruction"] = {"parts": system}
    return payload


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(metadata: dict[str, Any]) -> Usage:
    output = _int(metadata.get("candidatesTokenCount"))
    thoughts = _int(metadata.get("thoughtsTokenCount"))
    if output is not None and thoughts is not None:
        output += thoughts  # thinking tokens are generated (and billed) too
    return Usage(_int(metadata.get("promptTokenCount")), output)


def parse_gemini(body: dict[str, Any]) -> ChatResponse:
    """A ``generateContent`` JSON answer as a :class:`ChatResponse` (pure); thought parts are left out.

    No usable text raises ``ProviderError("bad_response")`` with an excerpt of the body; a blocked prompt or
    answer is not retryable.
    """
    candidates = body.get("candidates")
    candidate = _obj(candidates[0]) if isinstance(candidates, list) and candidates else {}
    parts = _obj(candidate.get("content")).get("parts")
    texts = [
        p["text"]
        for p in (parts if isinstance(parts, list) else [])
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    ]
    text = "".join(texts)
    finish = candidate.get("finishReason") if isinstance(candidate.get("finishReason"), str) else None
    if not text.strip():
        blocked = _obj(body.get("promptFeedback")).get("blockReason") or (finish if finish in _BLOCKED else None)
        if blocked:
            raise ProviderError("bad_response", f"blocked by the provider ({blocked})", retryable=False)
        raise ProviderError("bad_response", f"no text in response: {excerpt(json.dumps(body))}")
    version = body.get("modelVersion")
    return ChatResponse(
        text=text,
        audio=None,
        model_version=version if isinstance(version, str) else None,
        usage=_usage(_obj(body.get("usageMetadata"))),
        finish_reason=finish,
    )


@providers.register("gemini")
def make_gemini(model: str, base_url: str | None, options: ProviderOptions) -> ChatModel:
    """``gemini:MODEL[@BASE_URL]``: key from ``$GEMINI_API_KEY`` or ``$GOOGLE_API_KEY`` (or ``key_env``)."""
    key = api_key([options.key_env] if options.key_env else list(GEMINI_KEY_ENVS), "gemini")
    base = base_url or GEMINI_BASE_URL
    name = model.removeprefix("models/")
    return RemoteChatModel(
        provider="gemini",
        model=name,
        base_url=base,
        url=f"{base}/models/{name}:generateContent",
        headers={"x-goog-api-key": key},
        build=gemini_payload,
        parse=parse_gemini,
        options=options,
        secret=key,
    )
