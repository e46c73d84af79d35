"""Response bodies in the providers' shapes."""

from __future__ import annotations

import base64
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
