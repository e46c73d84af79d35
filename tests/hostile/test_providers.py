"""Hostile providers on 127.0.0.1: keys echoed back, foreign upload hosts, compression bombs, broken encodings,
empty content and absurd Retry-After values. docs/reliability.md lists each case with this test's id."""

from __future__ import annotations

import asyncio
import json
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from voxeval.cli import main
from voxeval.llm import (
    ChatMessage,
    ChatRequest,
    GeminiFiles,
    ProviderError,
    RemoteChatModel,
    _cache,
    chat_model_from_spec,
    parse_model_spec,
    set_request_cache,
)
from voxeval.systems import Turn, system_from_spec
from voxeval.testing.mockserver import Fault, FaultPlan, MockServer, sine_wav

KEY = "sk-proj-" + "A1b2C3d4E5" * 7 + "Zz"  # 80 characters, like a real project key
ASK = ChatRequest(messages=(ChatMessage("user", "hi"),), max_tokens=16)
Answer = tuple[int, dict[str, str], bytes]


class RawServer(MockServer):
    """The mock answering every request with ``answer(path, headers)``: status, headers and raw body bytes."""

    def __init__(self, answer: Callable[[str, dict[str, str]], Answer], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answer = answer
        self.paths: list[str] = []

    def handle(self, request: Any, raw: bytes) -> None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.paths.append(request.path)
        status, extra, body = self.answer(request.path, headers)
        content_type = extra.pop("Content-Type", "application/json")
        request._send(status, body, content_type, extra)


def fast(spec: str) -> RemoteChatModel:
    model = chat_model_from_spec(spec)
    assert isinstance(model, RemoteChatModel)

    async def no_wait(seconds: float) -> None:
        return None

    model.sleep = no_wait
    return model


def key_fragments(text: str, size: int = 8) -> list[str]:
    return [KEY[i : i + size] for i in range(len(KEY) - size + 1) if KEY[i : i + size] in text]


def chat_body(content: Any) -> bytes:
    message = {"role": "assistant", "content": content}
    return json.dumps(
        {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}, ensure_ascii=False
    ).encode()


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "cache"))
    saved = _cache._request_cache
    set_request_cache(None)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("HOSTILE_KEY", KEY)
    yield
    _cache._request_cache = saved


def test_401_echoing_the_key_late_in_the_message_leaves_no_fragment_in_any_run_file(tmp_path: Path) -> None:
    message = "x" * 109 + f" Incorrect API key provided: {KEY}. You can find your API key at the dashboard."
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}})
    with RawServer(lambda path, headers: (401, {}, body.encode())) as srv:
        spec = f"openai-compat:m@{srv.openai_base_url}?key_env=HOSTILE_KEY&max_retries=0"
        out = tmp_path / "run"
        args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--system", spec, "--annotator", "gold"]
        main([*args, "--out", str(out), "--quiet", "--no-cache"])
    written = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert "HTTP 401" in written  # the failure is recorded…
    assert key_fragments(written) == []  # …without any 8-character piece of the key


def test_gemini_200_without_text_whose_body_holds_the_key_is_redacted() -> None:
    body = json.dumps({"promptFeedback": {}, "debug": {"request_key": KEY}}).encode()
    with RawServer(lambda path, headers: (200, {}, body)) as srv, pytest.raises(ProviderError) as info:
        asyncio.run(fast(f"gemini:gemini-3.5-flash@{srv.gemini_base_url}?max_retries=1").complete(ASK))
    assert "no candidates" in str(info.value) and key_fragments(str(info.value)) == []


def test_reply_text_echoing_the_key_is_redacted() -> None:
    with RawServer(lambda path, headers: (200, {}, chat_body(f"your key is {KEY}"))) as srv:
        response = asyncio.run(fast(f"openai:gpt-audio-mini@{srv.openai_base_url}").complete(ASK))
    assert response.text == "your key is ***"


def test_gemini_files_never_sends_key_or_audio_to_a_foreign_upload_host() -> None:
    with MockServer() as foreign:
        target = f"{foreign.base_url}/upload?upload_id=stolen"
        answer: Answer = (200, {"X-Goog-Upload-URL": target}, b"{}")
        with RawServer(lambda path, headers: answer) as api:
            files = GeminiFiles(parse_model_spec(f"gemini:gemini-3.5-flash@{api.gemini_base_url}?max_retries=0"))
            with pytest.raises(ProviderError, match="refused to send the key or audio") as info:
                asyncio.run(files.upload(sine_wav(0.1), "audio/wav", "x"))
            assert api.paths == ["/upload/v1beta/files"]
        assert foreign.count() == 0
    assert not info.value.retryable


def _gzip_bomb(inflated: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = b"\0" * (1 << 20)
    parts = [packer.compress(zeros) for _ in range(inflated >> 20)]
    return b"".join(parts) + packer.flush()


def test_gzip_bomb_is_refused_with_flat_memory() -> None:
    bomb = _gzip_bomb(500 << 20)
    assert len(bomb) < 600_000
    with RawServer(lambda path, headers: (200, {"Content-Encoding": "gzip"}, bomb)) as srv:
        model = fast(f"openai-compat:m@{srv.openai_base_url}?max_retries=0&timeout=60")
        tracemalloc.start()
        try:
            with pytest.raises(ProviderError, match="inflates to more than") as info:
                asyncio.run(model.complete(ASK))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 100 << 20, f"peak {peak >> 20} MiB while refusing a 500 MiB bomb"
    assert not info.value.retryable


def test_oversized_plain_body_is_refused_on_the_wire() -> None:
    huge = chat_body("x" * (40 << 20))
    with RawServer(lambda path, headers: (200, {}, huge)) as srv, pytest.raises(ProviderError, match="refused"):
        asyncio.run(fast(f"openai-compat:m@{srv.openai_base_url}?max_retries=0").complete(ASK))


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", chat_body("こんにちは").replace("こんにちは".encode(), "こんにちは".encode("shift_jis"))),
        ("application/json; charset=iso-8859-1", chat_body("こんにちは")),
    ],
    ids=["shift-jis-bytes", "declared-latin-1"],
)
def test_undecodable_content_is_a_distinct_outcome_never_mojibake(content_type: str, body: bytes) -> None:
    with RawServer(lambda path, headers: (200, {"Content-Type": content_type}, body)) as srv:
        with pytest.raises(ProviderError) as info:
            asyncio.run(fast(f"openai-compat:m@{srv.openai_base_url}?max_retries=3").complete(ASK))
        assert len(srv.paths) == 1  # recorded once, not retried
    assert info.value.kind == "undecodable"


@pytest.mark.parametrize("content", [None, ""], ids=["null", "empty-string"])
def test_null_or_empty_content_is_an_empty_reply(content: Any) -> None:
    with RawServer(lambda path, headers: (200, {}, chat_body(content))) as srv:
        system = system_from_spec(f"openai-compat:m@{srv.openai_base_url}")
        reply = asyncio.run(system.respond(Turn("id", sine_wav(0.1), "S", "U", "ref")))
        assert len(srv.paths) == 1
    assert reply.text == ""


def test_retry_after_999999_is_clipped_with_a_logged_notice(caplog: pytest.LogCaptureFixture) -> None:
    waits: list[float] = []
    with MockServer(faults=FaultPlan.sequence(Fault("rate_limit", retry_after=999999))) as srv:
        model = fast(f"openai-compat:m@{srv.openai_base_url}")

        async def record(seconds: float) -> None:
            waits.append(seconds)

        model.sleep = record
        with caplog.at_level("WARNING", logger="voxeval.llm"):
            asyncio.run(model.complete(ASK))
    assert waits == [120.0]
    assert "asked to wait 999999 s" in caplog.text
