"""Response bodies in the providers' shapes."""

from __future__ import annotations

import base64
import re
import time
from typing import Any

from voxeval.testing.mockserver._wav import sine_wav


def _tokens(text: str) -> int:
    return max(1, len(text.split()))


def prompt_text(request: dict[str, Any]) -> str:
    """All text in an OpenAI or Gemini request body (for token counts and the default responder)."""
    texts: list[str] = []
    for message in request.get("messages", []) if isinstance(request.get("messages"), list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    for content in request.get("contents", []) if isinstance(request.get("contents"), list) else []:
        parts = content.get("parts", []) if isinstance(content, dict) else []
        texts.extend(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
    return "\n".join(texts)


def wants_audio(request: dict[str, Any]) -> bool:
    """Whether an OpenAI chat request asks for a spoken reply."""
    modalities = request.get("modalities")
    return isinstance(modalities, list) and "audio" in modalities


def openai_chat_body(request: dict[str, Any], text: str, number: int) -> dict[str, Any]:
    """A ``chat.completion`` object answering ``text`` (as audio + transcript when audio was asked for)."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if wants_audio(request):
        audio = sine_wav(0.2) if text else None
        message["content"] = None
        if audio is not None:
            message["audio"] = {
                "id": f"audio_mock_{number}",
                "data": base64.b64encode(audio).decode("ascii"),
                "transcript": text,
                "expires_at": int(time.time()) + 3600,
            }
    prompt, completion = _tokens(prompt_text(request)), _tokens(text)
    return {
        "id": f"chatcmpl-mock-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request.get("model", "mock-model")),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def gemini_body(request: dict[str, Any], text: str, model: str) -> dict[str, Any]:
    """A ``GenerateContentResponse`` answering ``text``."""
    prompt, completion = _tokens(prompt_text(request)), _tokens(text)
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
        },
        "modelVersion": model,
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    """An error object in the shape both providers use (``error.message``)."""
    return {"error": {"code": status, "message": message, "type": "mock_error"}}


_REASONING_MODEL = re.compile(r"(gpt-[56](\.\d+)?(?!-chat)(-.*)?|o[1-9](-.*)?)")


def openai_param_error(body: dict[str, Any]) -> dict[str, Any] | None:
    """The 400 OpenAI answers when a reasoning model (GPT-5 family, o-series) gets a parameter it rejects."""
    model = str(body.get("model", ""))
    if not _REASONING_MODEL.fullmatch(model) or "-chat" in model:
        return None
    if "temperature" in body and body["temperature"] != 1:
        value = body["temperature"]
        message = (
            f"Unsupported value: 'temperature' does not support {value} with this model. "
            "Only the default (1) value is supported."
        )
        return _openai_error(message, "temperature", "unsupported_value")
    if "max_tokens" in body:
        message = (
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
        )
        return _openai_error(message, "max_tokens", "unsupported_parameter")
    return None


def _openai_error(message: str, param: str | None, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def model_not_found_body(endpoint: str, model: str) -> dict[str, Any]:
    """A 404 for a retired or unknown model, in each provider's shape."""
    if endpoint == "gemini":
        message = f"models/{model} is not found for API version v1beta, or is not supported for generateContent."
        return {"error": {"code": 404, "message": message, "status": "NOT_FOUND"}}
    message = f"The model `{model}` does not exist or you do not have access to it."
    return _openai_error(message, None, "model_not_found")


def gemini_rate_limit_body(retry_delay: float | None) -> dict[str, Any]:
    """Gemini's 429: the wait rides in a ``google.rpc.RetryInfo`` detail, not in a header."""
    details: list[dict[str, Any]] = [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []}]
    if retry_delay is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_delay:g}s"})
    message = "You exceeded your current quota, please check your plan and billing details."
    return {"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED", "details": details}}
