"""Issue 31 group 1: an API key echoed into any field of a response never reaches a file or the terminal.

Every string of a decoded answer passes one redaction (:meth:`voxeval.llm.HttpReply.json_object`), so the key
echoed into ``model``, ids, finish reasons, usage, error bodies or headers is gone before a parser, the request
cache, a reply row, an annotation or a judgement sees it. docs/reliability.md lists each case.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.test_providers import ASK, KEY, fast, key_fragments
from voxeval.cli import main
from voxeval.llm import GeminiFiles, UploadedFile, _cache, chat_model_from_spec, parse_model_spec, set_request_cache
from voxeval.llm._cache import RequestCache, cached
from voxeval.report import _plots as plots
from voxeval.testing.mockserver import MockServer

STEPS = json.dumps({"steps": [{"act": "Answer", "importance": 1.0}]})


def sent_key(headers: dict[str, str]) -> str:
    """The key the client sent, as the server saw it (what a hostile server echoes back)."""
    return headers.get("authorization", "").removeprefix("Bearer ") or headers.get("x-goog-api-key", "")


def openai_echo(key: str, content: str) -> dict[str, Any]:
    """An OpenAI chat answer with the key in every field a server controls besides the text."""
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": key, key: key}
    message = {"role": "assistant", "content": content, "refusal": None}
    choice = {"index": 0, "message": message, "finish_reason": f"stop {key}", "logprobs": key}
    return {"id": f"chatcmpl-{key}", "object": key, "model": f"m-{key}", "system_fingerprint": key,
            "choices": [choice], "usage": usage}  # fmt: skip


def gemini_echo(key: str, content: str) -> dict[str, Any]:
    """A Gemini answer with the key in every field a server controls besides the text."""
    candidate = {"content": {"role": "model", "parts": [{"text": content}]}, "finishReason": f"STOP {key}",
                 "finishMessage": key, "safetyRatings": [{"category": key}]}  # fmt: skip
    usage = {"promptTokenCount": 3, "candidatesTokenCount": 2, "trafficType": key}
    return {"candidates": [candidate], "modelVersion": f"g-{key}", "responseId": key, "usageMetadata": usage}


class EchoServer(MockServer):
    """Answers every call with the caller's key echoed into headers, metadata and (every other call) an error.

    Each request's first attempt is a 503 whose body and headers hold the key (``Retry-After: 0``, so the retry is
    immediate); the retry is a 200 with the key in every metadata field. Annotator calls (``response_format``)
    get valid act JSON; other calls reply with ``text`` followed by the key.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: set[tuple[str, bytes]] = set()
        self.lock = threading.Lock()
        self.paths: list[str] = []

    def handle(self, request: Any, raw: bytes) -> None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        key = sent_key(headers)
        with self.lock:
            first = (request.path, raw) not in self.seen
            self.seen.add((request.path, raw))
            self.paths.append(request.path)
        echo = {"x-request-id": key, "openai-model": key, "x-goog-echo": key}
        if first:
            body = {"error": {"message": f"overloaded for key {key}", "code": 503, "status": key, "key": key}}
            request._send(503, json.dumps(body).encode(), extra={"Retry-After": "0", **echo})
            return
        payload = json.loads(raw or b"{}")
        content = STEPS if "response_format" in payload else f"reply text {key}"
        body = gemini_echo(key, content) if ":generateContent" in request.path else openai_echo(key, content)
        request._send(200, json.dumps(body).encode(), extra=echo)


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "cache"))
    saved = _cache._request_cache
    set_request_cache(None)
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "VOXEVAL_COMPAT_API_KEY"):
        monkeypatch.setenv(name, KEY)
    yield
    _cache._request_cache = saved


def every_file(*roots: Path) -> str:
    return "".join(p.read_text(errors="replace") for root in roots for p in root.rglob("*") if p.is_file())


def test_a_run_against_a_key_echoing_server_leaves_the_key_in_no_file_and_not_on_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Done-when scan: openai:, openai-compat: and gemini: systems, an llm: annotator, the request cache and
    the report, against a server echoing the key into headers, model, ids, usage, finish reasons and error bodies.

    The report's figures are drawn but not rendered to PNG (7 of the test's 11 s; they hold no text from answers).
    """
    monkeypatch.setattr(plots, "_png", lambda fig: plots._plt().close(fig) or b"png")
    set_request_cache(tmp_path / "cache" / "requests")
    with EchoServer() as srv:
        systems = [
            f"openai:gpt-audio-mini@{srv.openai_base_url}?max_retries=3",
            f"openai-compat:m@{srv.openai_base_url}?max_retries=3",
            f"gemini:gemini-3.5-flash@{srv.gemini_base_url}?max_retries=3",
        ]
        annotator = f"llm:openai-compat:annot@{srv.openai_base_url}?max_retries=3"
        out = tmp_path / "run"
        args = ["run", "--dataset", "ja-assistant", "--limit", "2", "--annotator", annotator, "--out", str(out)]
        assert main([*args, *itertools.chain(*(("--system", s) for s in systems)), "--quiet"]) == 0
        asked, distinct = len(srv.paths), len(srv.seen)
    terminal = capsys.readouterr()
    # 6 system calls and at least 2 distinct annotator calls (equal replies may share one), each a 503 first
    assert distinct >= 3 * 2 + 2 and asked >= 2 * distinct
    written = every_file(out, tmp_path / "cache")
    replies = [json.loads(line) for line in (out / "replies.jsonl").read_text().splitlines()]
    assert {r["status"] for r in replies} == {"ok"} and len(replies) == 6
    assert all(r["text"] == "reply text ***" for r in replies)
    assert {r["meta"]["model_version"] for r in replies} == {"m-***", "g-***"}
    assert (out / "report.html").is_file() and (out / "report.md").is_file()
    assert list((tmp_path / "cache" / "requests").rglob("*.json"))  # the cache was written, and scanned
    assert key_fragments(written) == []
    assert key_fragments(terminal.out + terminal.err) == []


@pytest.mark.parametrize(
    ("provider", "field"),
    [
        ("openai", "model_version"),
        ("openai", "finish_reason"),
        ("openai-compat", "model_version"),
        ("openai-compat", "finish_reason"),
        ("gemini", "model_version"),
        ("gemini", "finish_reason"),
    ],
)
def test_every_field_read_from_a_response_is_redacted_and_so_is_its_cache_entry(
    tmp_path: Path, provider: str, field: str
) -> None:
    def answer(srv: EchoServer) -> str:
        base = srv.gemini_base_url if provider == "gemini" else srv.openai_base_url
        model = "gemini-3.5-flash" if provider == "gemini" else "m"
        return f"{provider}:{model}@{base}?max_retries=2"

    with EchoServer() as srv:
        remote = fast(answer(srv))
        model = cached(remote, RequestCache(tmp_path / "requests"))
        response = asyncio.run(model.complete(ASK))
        again = asyncio.run(model.complete(ASK))
    assert model.hits == 1 and again == response
    value = getattr(response, field)
    assert isinstance(value, str) and "***" in value and key_fragments(value) == []
    assert key_fragments(every_file(tmp_path / "requests")) == []


def test_gemini_files_generate_redacts_the_text_and_the_metadata() -> None:
    """The Files API path (a large reply judged by ``lalm:gemini:…``) reads answers through the same boundary."""
    with EchoServer() as srv:
        files = GeminiFiles(parse_model_spec(f"gemini:gemini-3.5-flash@{srv.gemini_base_url}?max_retries=2"))

        async def no_wait(seconds: float) -> None:
            return None

        files.sleep = no_wait
        uploaded = UploadedFile("files/x", f"{srv.gemini_base_url}/files/x", "audio/wav", "ACTIVE")
        response = asyncio.run(files.generate(ASK, uploaded))
    assert response.text == "reply text ***"
    assert key_fragments(json.dumps([response.text, response.model_version, response.finish_reason])) == []


def test_a_model_built_from_a_spec_for_the_llm_annotator_redacts_its_metadata() -> None:
    """``llm:`` annotators and ``lalm:`` judges build their model from a spec: the same boundary applies."""
    with EchoServer() as srv:
        model = chat_model_from_spec(f"openai-compat:annot@{srv.openai_base_url}?max_retries=2")
        response = asyncio.run(model.complete(ASK))
    assert response.model_version == "m-***"
