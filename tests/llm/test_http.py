"""The pooled HTTP client: kept-alive connections, small pools for wide providers, strict decoding."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator

import httpx
import pytest

from voxeval.llm import ChatMessage, ChatRequest, HttpClient, ProviderError, RemoteChatModel, chat_model_from_spec
from voxeval.llm._http import SHARD_CONNECTIONS, ResponseLimits, decode_text, read_capped
from voxeval.testing.mockserver import MockServer

ASK = ChatRequest(messages=(ChatMessage("user", "hi"),))


def test_sequential_requests_share_one_kept_alive_connection() -> None:
    with MockServer() as srv:
        model = chat_model_from_spec(f"openai-compat:m@{srv.openai_base_url}?concurrency=4")
        assert isinstance(model, RemoteChatModel)

        async def many() -> None:
            for _ in range(10):
                await model.complete(ASK)

        asyncio.run(many())
        ports = {r.peer_port for r in srv.requests}
    assert len(ports) == 1 and model.http.clients_made == 1


def test_concurrent_requests_use_at_most_width_connections() -> None:
    with MockServer() as srv:
        model = chat_model_from_spec(f"openai-compat:m@{srv.openai_base_url}?concurrency=20")
        assert isinstance(model, RemoteChatModel)

        async def wide() -> None:
            for _ in range(3):
                await asyncio.gather(*(model.complete(ASK) for _ in range(20)))

        asyncio.run(wide())
        ports = {r.peer_port for r in srv.requests}
    assert len(ports) <= 20 and srv.count() == 60
    assert model.http.clients_made == -(-20 // SHARD_CONNECTIONS)  # three small pools, not one of 20


def test_a_new_event_loop_gets_a_new_pool() -> None:
    with MockServer() as srv:
        model = chat_model_from_spec(f"openai-compat:m@{srv.openai_base_url}")
        assert isinstance(model, RemoteChatModel)
        asyncio.run(model.complete(ASK))
        asyncio.run(model.complete(ASK))
    assert model.http.clients_made == 2


def test_deflate_and_gzip_bodies_are_inflated_within_the_limit() -> None:
    body = b'{"ok": true}'
    for wbits, encoding in ((15, "deflate"), (31, "gzip")):
        packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
        packed = packer.compress(body) + packer.flush()

        def answer(request: httpx.Request, packed: bytes = packed, encoding: str = encoding) -> httpx.Response:
            return httpx.Response(200, content=packed, headers={"Content-Encoding": encoding})

        client = HttpClient(timeout=5, connections=1, transport=httpx.MockTransport(answer))
        assert asyncio.run(client.post_json("http://h/x", {}, headers={})) == {"ok": True}


def test_a_declared_oversized_length_is_refused_before_reading() -> None:
    chunks_read = []

    async def body() -> AsyncIterator[bytes]:
        chunks_read.append(1)
        yield b"{}"

    response = httpx.Response(200, headers={"Content-Length": str(1 << 40)}, content=body())
    with pytest.raises(ProviderError, match="declares 1099511627776 bytes") as info:
        asyncio.run(read_capped(response, ResponseLimits(), "u"))
    assert chunks_read == [] and not info.value.retryable


def test_a_streamed_body_past_the_limit_is_refused() -> None:
    async def body() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b"x" * 1000

    response = httpx.Response(200, content=body())
    with pytest.raises(ProviderError, match="sent more than 50000 bytes"):
        asyncio.run(read_capped(response, ResponseLimits(max_wire_bytes=50_000, max_bytes=50_000), "u"))


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("application/json", "é".encode(), "é"),
        ("application/json; charset=utf-8", b"\xef\xbb\xbf{}", "{}"),
        ("application/json; charset=iso-8859-1", b"{}", "{}"),  # ASCII is the same in every charset
    ],
)
def test_decode_text_accepts_utf8_only(content_type: str, body: bytes, expected: str) -> None:
    assert decode_text(body, content_type, "u") == expected
