"""Replies that fail validation are evicted from the request cache, so a retry asks the model again."""

from __future__ import annotations

import asyncio

import pytest

from voxeval.llm import ChatMessage, ChatRequest, RequestCache, cached, chat_model_from_spec
from voxeval.structured import StructuredOutputFailed, complete_validated, extract_json_object
from voxeval.testing.mockserver import MockServer


def test_invalid_reply_is_not_replayed_from_cache(tmp_path) -> None:
    replies = iter(["not json", "still not json", '{"ok": 1}'])
    with MockServer(lambda endpoint, request: next(replies)) as srv:
        model = cached(chat_model_from_spec(f"openai-compat:m@{srv.openai_base_url}"), RequestCache(tmp_path))
        request = ChatRequest(messages=(ChatMessage("user", text="hi"),), json_output=True)
        with pytest.raises(StructuredOutputFailed):
            asyncio.run(complete_validated(model, request, extract_json_object, attempts=1))
        # The retry goes to the server (a cached bad reply would fail again without a request).
        with pytest.raises(StructuredOutputFailed):
            asyncio.run(complete_validated(model, request, extract_json_object, attempts=1))
        value, *_ = asyncio.run(complete_validated(model, request, extract_json_object, attempts=1))
        assert value == {"ok": 1} and srv.count() == 3
        # A valid reply is cached as usual.
        asyncio.run(complete_validated(model, request, extract_json_object, attempts=1))
        assert srv.count() == 3
