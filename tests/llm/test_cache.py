"""The request cache: keys, hits, misses, corrupt entries."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from voxeval.llm import (
    AudioInput,
    CachedChatModel,
    ChatMessage,
    ChatRequest,
    ChatResponse,
    RequestCache,
    Usage,
    cache_key,
    cached,
    request_cache,
)
from voxeval.llm import _cache as cache_module

REQUEST = ChatRequest(messages=(ChatMessage("system", "S"), ChatMessage("user", "U", AudioInput(b"RIFF1"))))
RESPONSE = ChatResponse("answer", b"RIFFout", "m-2025", Usage(10, 3), "stop")


class CountingModel:
    provider = "fake"
    model = "m"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        return dataclasses.replace(RESPONSE, text=f"answer {self.calls}")

    def describe(self) -> dict[str, Any]:
        return {"provider": "fake", "model": "m", "base_url": "http://h/v1", "parameters": {}}


def test_round_trip(tmp_path: Path) -> None:
    cache = RequestCache(tmp_path)
    assert cache.get("ab" * 32) is None
    cache.put("ab" * 32, RESPONSE)
    assert cache.get("ab" * 32) == RESPONSE
    assert cache.path("ab" * 32) == tmp_path / "ab" / f"{'ab' * 32}.json"


def test_hit_and_miss_are_counted(tmp_path: Path) -> None:
    inner = CountingModel()
    model = cached(inner, RequestCache(tmp_path))
    other = dataclasses.replace(REQUEST, temperature=0.5)

    async def main() -> list[str]:
        return [(await model.complete(r)).text for r in (REQUEST, REQUEST, other, REQUEST)]

    assert asyncio.run(main()) == ["answer 1", "answer 1", "answer 2", "answer 1"]
    assert (model.hits, model.misses, inner.calls) == (2, 2, 2)
    assert model.describe() == inner.describe() and (model.provider, model.model) == ("fake", "m")


def test_a_new_wrapper_on_the_same_directory_hits(tmp_path: Path) -> None:
    asyncio.run(cached(CountingModel(), RequestCache(tmp_path)).complete(REQUEST))
    again = cached(CountingModel(), RequestCache(tmp_path))
    assert asyncio.run(again.complete(REQUEST)).text == "answer 1" and again.hits == 1


def test_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    cache = RequestCache(tmp_path)
    model = cached(CountingModel(), cache)
    key = model.key(REQUEST)
    for corrupt in ('{"format": 1, "key": "', "[]", json.dumps({"format": 1, "key": key, "response": {"text": 1}})):
        cache.path(key).parent.mkdir(parents=True, exist_ok=True)
        cache.path(key).write_text(corrupt)
        assert cache.get(key) is None
    assert asyncio.run(model.complete(REQUEST)).text == "answer 1" and model.misses == 1
    assert cache.get(key) == dataclasses.replace(RESPONSE, text="answer 1")


def test_an_entry_stored_under_another_key_is_not_served(tmp_path: Path) -> None:
    cache = RequestCache(tmp_path)
    cache.put("a" * 64, RESPONSE)
    cache.path("b" * 64).parent.mkdir(parents=True, exist_ok=True)
    cache.path("b" * 64).write_bytes(cache.path("a" * 64).read_bytes())
    assert cache.get("b" * 64) is None


def key_of(**changes: Any) -> str:
    identity = {"provider": "openai", "model": "gpt-4o", "base_url": "https://api.openai.com/v1", "request": REQUEST}
    identity.update(changes)
    return cache_key(identity["provider"], identity["model"], identity["base_url"], identity["request"])


def test_key_depends_on_everything_that_determines_the_answer() -> None:
    base = key_of()
    variants = [
        key_of(provider="openai-compat"),
        key_of(model="gpt-4o-mini"),
        key_of(base_url="http://localhost:8000/v1"),
        key_of(request=dataclasses.replace(REQUEST, temperature=0.1)),
        key_of(request=dataclasses.replace(REQUEST, max_tokens=5)),
        key_of(request=dataclasses.replace(REQUEST, json_output=True)),
        key_of(request=dataclasses.replace(REQUEST, audio_output=True)),
        key_of(request=dataclasses.replace(REQUEST, voice="verse")),
        key_of(request=dataclasses.replace(REQUEST, seed=1)),
        key_of(request=ChatRequest(messages=(ChatMessage("system", "S!"), REQUEST.messages[1]))),
        key_of(request=ChatRequest(messages=(REQUEST.messages[0], ChatMessage("user", "U", AudioInput(b"RIFF2"))))),
        key_of(
            request=ChatRequest(
                messages=(REQUEST.messages[0], ChatMessage("user", "U", AudioInput(b"RIFF1", "audio/mpeg")))
            )
        ),
    ]
    assert base == key_of() and len({base, *variants}) == len(variants) + 1


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_different_audio_bytes_give_different_keys(a: bytes, b: bytes) -> None:
    def request(data: bytes) -> ChatRequest:
        return ChatRequest(messages=(ChatMessage("user", audio=AudioInput(data)),))

    assert (cache_key("p", "m", None, request(a)) == cache_key("p", "m", None, request(b))) == (a == b)


def test_default_request_cache_is_under_voxeval_cache(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setattr(cache_module, "_request_cache", cache_module._UNSET)
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "root"))
    cache = request_cache()
    assert cache is not None and cache.directory == tmp_path / "root" / "requests"
    assert isinstance(cached(CountingModel(), cache), CachedChatModel)
