"""Large audio to Gemini through the Files API: pure builders, the calls, and the judge end to end on the mock."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from voxeval.judge import LalmJudge, StyleItem
from voxeval.llm import ChatMessage, ChatRequest, ProviderError, _cache, parse_model_spec, set_request_cache
from voxeval.llm.chat._gemini_files import (
    GeminiFiles,
    UploadedFile,
    gemini_file_payload,
    gemini_upload_url,
    parse_uploaded_file,
    upload_finalize_headers,
    upload_start_headers,
)
from voxeval.testing.mockserver import MockServer, sine_wav

KEY = "test-gemini-key"
FILE = UploadedFile("files/f1", "https://generativelanguage.googleapis.com/v1beta/files/f1", "audio/wav", "ACTIVE")


@pytest.fixture(autouse=True)
def gemini_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setenv("VOXEVAL_CACHE", str(tmp_path / "cache"))
    saved = _cache._request_cache
    set_request_cache(None)
    yield
    _cache._request_cache = saved


def test_upload_url_is_under_upload() -> None:
    assert gemini_upload_url("https://generativelanguage.googleapis.com/v1beta") == (
        "https://generativelanguage.googleapis.com/upload/v1beta/files"
    )
    assert gemini_upload_url("http://127.0.0.1:8080/v1beta/") == "http://127.0.0.1:8080/upload/v1beta/files"


def test_upload_headers() -> None:
    assert upload_start_headers(1234, "audio/mpeg") == {
        "X-Goog-Upload-Protocol": "resumable",
        "X-Goog-Upload-Command": "start",
        "X-Goog-Upload-Header-Content-Length": "1234",
        "X-Goog-Upload-Header-Content-Type": "audio/mpeg",
        "Content-Type": "application/json",
    }
    assert upload_finalize_headers(1234) == {
        "Content-Length": "1234",
        "X-Goog-Upload-Protocol": "resumable",
        "X-Goog-Upload-Offset": "0",
        "X-Goog-Upload-Command": "upload, finalize",
    }


def test_file_payload_puts_the_file_after_the_prompt() -> None:
    request = ChatRequest(messages=(ChatMessage("user", text="PROMPT"),), temperature=0.0, seed=3)
    assert gemini_file_payload(request, FILE) == {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "PROMPT"},
                    {"file_data": {"mime_type": "audio/wav", "file_uri": FILE.uri}},
                ],
            }
        ],
        "generationConfig": {"temperature": 0.0, "seed": 3},
    }


def test_parse_uploaded_file() -> None:
    body = {"file": {"name": "files/f1", "uri": FILE.uri, "mimeType": "audio/wav", "state": "ACTIVE", "sizeBytes": "9"}}
    assert parse_uploaded_file(body) == FILE
    assert parse_uploaded_file(body["file"]) == FILE
    with pytest.raises(ProviderError, match="no file name"):
        parse_uploaded_file({"file": {"name": "files/f1"}})


class FakeSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def files_client(handler: Any) -> GeminiFiles:
    spec = parse_model_spec("gemini:gemini-2.5-pro@http://files.test/v1beta?max_retries=1")
    files = GeminiFiles(spec, transport=httpx.MockTransport(handler))
    files.sleep = FakeSleep()
    return files


def test_upload_polls_until_active_and_delete_sends_delete() -> None:
    seen: list[tuple[str, str, dict[str, str], bytes]] = []
    states = iter(["PROCESSING", "ACTIVE"])

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, str(request.url), dict(request.headers), request.content))
        file = {"name": "files/abc", "uri": "http://files.test/v1beta/files/abc", "mimeType": "audio/wav"}
        if request.headers.get("x-goog-upload-command") == "start":
            return httpx.Response(200, json={}, headers={"X-Goog-Upload-URL": "http://files.test/up?id=1"})
        if request.method == "POST":
            return httpx.Response(200, json={"file": {**file, "state": "PROCESSING"}})
        if request.method == "GET":
            return httpx.Response(200, json={**file, "state": next(states)})
        return httpx.Response(200, json={})

    files = files_client(handler)

    async def scenario() -> UploadedFile:
        uploaded = await files.upload(b"AUDIO", "audio/wav", "voxeval-r1")
        await files.delete(uploaded)
        return uploaded

    uploaded = asyncio.run(scenario())
    assert uploaded.state == "ACTIVE" and uploaded.name == "files/abc"
    assert [(m, u) for m, u, _, _ in seen] == [
        ("POST", "http://files.test/upload/v1beta/files"),
        ("POST", "http://files.test/up?id=1"),
        ("GET", "http://files.test/v1beta/files/abc"),
        ("GET", "http://files.test/v1beta/files/abc"),
        ("DELETE", "http://files.test/v1beta/files/abc"),
    ]
    assert json.loads(seen[0][3]) == {"file": {"display_name": "voxeval-r1", "mime_type": "audio/wav", "size_bytes": 5}}
    assert seen[1][3] == b"AUDIO" and seen[1][2]["x-goog-upload-command"] == "upload, finalize"
    assert all(headers["x-goog-api-key"] == KEY for _, _, headers, _ in seen)
    assert files.sleep.delays == [files.poll_seconds, files.poll_seconds]  # type: ignore[attr-defined]


def test_failed_processing_and_errors_are_provider_errors_without_the_key() -> None:
    def failed(request: httpx.Request) -> httpx.Response:
        if request.headers.get("x-goog-upload-command") == "start":
            return httpx.Response(200, json={}, headers={"X-Goog-Upload-URL": "http://files.test/up"})
        return httpx.Response(200, json={"file": {"name": "files/x", "uri": "u", "state": "FAILED"}})

    with pytest.raises(ProviderError, match="FAILED"):
        asyncio.run(files_client(failed).upload(b"A", "audio/wav", "x"))

    def forbidden(request: httpx.Request) -> httpx.Response:
        return httpx.Response(403, json={"error": {"message": f"key {KEY} not allowed"}})

    with pytest.raises(ProviderError) as info:
        asyncio.run(files_client(forbidden).delete(FILE))
    assert info.value.kind == "client" and KEY not in str(info.value)


class FilesMockServer(MockServer):
    """The mock with the Files API upload endpoints, added through its public ``handle`` hook."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.uploads: list[tuple[str, dict[str, str], bytes]] = []

    def handle(self, request: Any, raw: bytes) -> None:
        if not request.path.startswith("/upload/"):
            super().handle(request, raw)
            return
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.uploads.append((request.path, headers, raw))
        extra: dict[str, str] = {}
        if headers.get("x-goog-upload-command") == "start":
            body: dict[str, Any] = {}
            extra["X-Goog-Upload-URL"] = f"{self.base_url}/upload/v1beta/files?upload_id=u1"
        else:
            mime = self.uploads[0][1].get("x-goog-upload-header-content-type", "")
            body = {"file": {"name": "files/f1", "uri": f"{self.gemini_base_url}/files/f1", "mimeType": mime}}
            body["file"]["state"] = "ACTIVE"
        data = json.dumps(body).encode()
        request.send_response(200)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(data)


def test_large_audio_goes_through_the_files_api_end_to_end() -> None:
    audio = sine_wav(0.2)
    item = StyleItem("r1", "acoustic_attributes/pitch", "Say it in a deep voice", language="en", model_name="m")
    with FilesMockServer(lambda endpoint, body: "Final score: [[5]]") as srv:
        judge = LalmJudge(f"gemini:gemini-2.5-pro@{srv.gemini_base_url}?max_retries=0", inline_max_bytes=1000)
        result = asyncio.run(judge.judge(item, audio))
        (generate,) = srv.requests
        file_uri = f"{srv.gemini_base_url}/files/f1"
    assert result.status == "ok" and result.score == 5 and result.meta["audio_transport"] == "gemini_files"
    (start_path, start, _), (_, finalize, sent) = srv.uploads
    assert start_path == "/upload/v1beta/files" and start["x-goog-api-key"] == KEY
    assert start["x-goog-upload-header-content-length"] == str(len(audio))
    assert sent == audio and finalize["x-goog-upload-command"] == "upload, finalize"
    parts = generate.json["contents"][0]["parts"]
    assert parts[0]["text"].endswith("# Speech Response Generated by the Model")
    assert parts[1] == {"file_data": {"mime_type": "audio/wav", "file_uri": file_uri}}
    # The mock has no DELETE route (501): the judgement stands, the upload expires on its own.


def test_small_audio_stays_inline() -> None:
    item = StyleItem("r1", "acoustic_attributes/pitch", "Say it in a deep voice", language="en")
    with FilesMockServer(lambda endpoint, body: "Final score: [[5]]") as srv:
        judge = LalmJudge(f"gemini:gemini-2.5-pro@{srv.gemini_base_url}?max_retries=0")
        result = asyncio.run(judge.judge(item, sine_wav(0.2)))
        assert srv.uploads == [] and "inline_data" in srv.requests[0].json["contents"][0]["parts"][1]
    assert result.meta["audio_transport"] == "inline"


def test_failed_upload_is_a_failed_judgement() -> None:
    item = StyleItem("r1", "acoustic_attributes/pitch", "Say it in a deep voice", language="en")
    with MockServer(lambda endpoint, body: "Final score: [[5]]") as srv:  # no upload route: 404
        judge = LalmJudge(f"gemini:gemini-2.5-pro@{srv.gemini_base_url}?max_retries=0", inline_max_bytes=10)
        result = asyncio.run(judge.judge(item, sine_wav(0.2)))
        assert srv.count("gemini") == 0
    assert result.status == "failed" and result.score is None and result.reason.startswith("audio upload")
    assert "HTTP 404" in result.reason
