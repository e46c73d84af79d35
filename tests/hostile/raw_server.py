"""A mock provider on 127.0.0.1 that answers every request with a body the test writes (groups 13 and 14)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from voxeval.llm import RemoteChatModel, chat_model_from_spec
from voxeval.testing.mockserver import MockServer


class BodyServer(MockServer):
    """Answers every request with 200 and ``body()`` as JSON (a fresh body per request)."""

    def __init__(self, body: Callable[[], dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.body = body
        self.calls = 0

    def handle(self, request: Any, raw: bytes) -> None:
        self.calls += 1
        request._send(200, json.dumps(self.body()).encode("utf-8"), "application/json", {})


def openai_body(message: Any = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """An OpenAI chat completion with ``message`` (default: the text "fine") and ``usage``."""
    message = {"role": "assistant", "content": "fine"} if message is None else message
    body: dict[str, Any] = {"model": "m", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return {**body, "usage": usage} if usage is not None else body


def gemini_body(content: Any = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Gemini ``generateContent`` answer with ``content`` (default: the text "fine") and ``usageMetadata``."""
    content = {"role": "model", "parts": [{"text": "fine"}]} if content is None else content
    body: dict[str, Any] = {"candidates": [{"content": content, "finishReason": "STOP"}], "modelVersion": "g"}
    return {**body, "usageMetadata": usage} if usage is not None else body


def no_wait_model(spec: str) -> RemoteChatModel:
    """The model of ``spec`` with its retry waits skipped."""
    from voxeval.llm._cache import request_cache_off

    with request_cache_off():  # the bare model: a test wraps it in a cache of its own when it wants one
        model = chat_model_from_spec(spec)
    assert isinstance(model, RemoteChatModel)

    async def no_wait(seconds: float) -> None:
        return None

    model.sleep = no_wait
    return model
