"""Capture the requests the official SDKs (``openai``, ``google-genai``) send, on a local server; no network.

``python -m tests.llm.sdk_capture`` rewrites ``tests/llm/fixtures/sdk/*.json`` from the installed SDKs; the
fixtures hold the method, path, the headers that matter and the JSON body (or the byte count of a raw upload).
``tests/llm/test_sdk_fixtures.py`` compares voxeval's payloads with them field by field, and re-captures when the
SDKs are installed to prove the stored files are what those SDKs send.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "sdk"
KEY = "sk-capture-key"
SYSTEM = "あなたは親切な日本語音声対話アシスタントです。"
USER = "音声を聞いて答えてください。"
WAV = (
    b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\xc0]\x00\x00\x80\xbb\x00\x00\x02\x00\x10\x00"
    b"data\x00\x00\x00\x00"
)
KEPT_HEADERS = (
    "content-type",
    "x-goog-upload-protocol",
    "x-goog-upload-command",
    "x-goog-upload-offset",
    "x-goog-upload-header-content-type",
    "x-goog-upload-header-content-length",
)


class _Capture(ThreadingHTTPServer):
    daemon_threads = True
    records: list[dict[str, Any]]


class _Handler(BaseHTTPRequestHandler):
    server: _Capture
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _handle(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = {"raw_bytes": len(raw)}
        kept = {k: headers[k] for k in KEPT_HEADERS if k in headers}
        path = self.path.split("?", 1)[0]
        self.server.records.append({"method": self.command, "path": path, "headers": kept, "json": body})
        host = f"http://127.0.0.1:{self.server.server_address[1]}"
        file = {"name": "files/f1", "uri": f"{host}/v1beta/files/f1", "mimeType": "audio/wav", "state": "ACTIVE"}
        if path.endswith("/chat/completions"):
            message = {"role": "assistant", "content": "ok", "refusal": None}
            if isinstance(body, dict) and "audio" in (body.get("modalities") or []):
                audio = {"id": "a1", "expires_at": 0, "data": base64.b64encode(WAV).decode(), "transcript": "ok"}
                message = {"role": "assistant", "content": None, "refusal": None, "audio": audio}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            self._answer(
                200, {"id": "c1", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}
            )
        elif ":generateContent" in path:
            candidate = {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}
            self._answer(200, {"candidates": [candidate], "modelVersion": "m"})
        elif path.startswith("/upload/") and headers.get("x-goog-upload-command") == "start":
            self._answer(200, {}, {"X-Goog-Upload-URL": f"{host}/upload/v1beta/files?upload_id=u1"})
        elif path.startswith("/upload/"):
            self._answer(200, {"file": file}, {"X-Goog-Upload-Status": "final"})
        elif path.endswith("/files/f1"):
            self._answer(200, {} if self.command == "DELETE" else file)
        else:
            self._answer(404, {"error": {"message": f"no route {path}"}})

    do_POST = do_GET = do_DELETE = _handle


@contextmanager
def capture_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``(base URL, records)`` of a capture server on 127.0.0.1 for the block's duration."""
    server = _Capture(("127.0.0.1", 0), _Handler)
    server.records = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.records
    finally:
        server.shutdown()
        server.server_close()


def _openai_client(base: str) -> Any:
    import openai

    return openai.OpenAI(api_key=KEY, base_url=f"{base}/v1", max_retries=0)


def _audio_messages() -> list[dict[str, Any]]:
    data = base64.b64encode(WAV).decode()
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": USER},
                {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}},
            ],
        },
    ]


def openai_audio_input(base: str) -> None:
    """gpt-audio-mini hearing audio: text reply, the judge's temperature 0 and an output cap."""
    _openai_client(base).chat.completions.create(
        model="gpt-audio-mini",
        messages=_audio_messages(),
        temperature=0.0,
        max_completion_tokens=512,  # type: ignore[arg-type]
    )


def openai_audio_output(base: str) -> None:
    """gpt-audio-mini hearing audio and answering with speech (WAV, voice alloy)."""
    _openai_client(base).chat.completions.create(
        model="gpt-audio-mini",
        messages=_audio_messages(),  # type: ignore[arg-type]
        modalities=["text", "audio"],
        audio={"voice": "alloy", "format": "wav"},
        temperature=0.0,
    )


def openai_reasoning_text(base: str) -> None:
    """gpt-5-nano as an annotator: no temperature, max_completion_tokens, reasoning effort, JSON output."""
    _openai_client(base).chat.completions.create(
        model="gpt-5-nano",
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}],
        max_completion_tokens=512 + 4096,
        reasoning_effort="minimal",
        response_format={"type": "json_object"},
    )


def vllm_audio_input(base: str) -> None:
    """An OpenAI-compatible server (vLLM serving Qwen2.5-Omni): ``max_tokens`` and the request's temperature."""
    _openai_client(base).chat.completions.create(
        model="Qwen/Qwen2.5-Omni-7B",
        messages=_audio_messages(),  # type: ignore[arg-type]
        temperature=0.0,
        max_tokens=256,
    )


def _genai_client(base: str) -> Any:
    from google import genai
    from google.genai import types

    return genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=base, api_version="v1beta"))


def gemini_inline_audio(base: str) -> None:
    """gemini-3.5-flash hearing inline audio, with a system instruction and the Gemini 3 profile."""
    from google.genai import types

    client = _genai_client(base)  # held: a client garbage-collected mid-call closes its connection pool
    client.models.generate_content(
        model="gemini-3.5-flash",
        contents=[
            types.Content(
                role="user",
                parts=[types.Part.from_text(text=USER), types.Part.from_bytes(data=WAV, mime_type="audio/wav")],
            )
        ],
        config=types.GenerateContentConfig(
            system_instruction=SYSTEM,
            temperature=1.0,
            max_output_tokens=512 + 8192,
            thinking_config=types.ThinkingConfig(thinking_level="low"),  # type: ignore[arg-type]
        ),
    )


def gemini_files_audio(base: str) -> None:
    """gemini-2.5-pro judging uploaded audio: resumable upload, generateContent with a file part, delete."""
    from google.genai import types

    client = _genai_client(base)
    uploaded = client.files.upload(
        file=io.BytesIO(WAV), config=types.UploadFileConfig(mime_type="audio/wav", display_name="voxeval-r1")
    )
    client.models.generate_content(
        model="gemini-2.5-pro",
        contents=[
            types.Content(
                role="user",
                parts=[
                    types.Part.from_text(text=USER),
                    types.Part.from_uri(file_uri=uploaded.uri or "", mime_type="audio/wav"),
                ],
            )
        ],
        config=types.GenerateContentConfig(
            temperature=0.0, max_output_tokens=512 + 8192, thinking_config=types.ThinkingConfig(thinking_budget=128)
        ),
    )
    client.files.delete(name=uploaded.name or "")


CASES: dict[str, Callable[[str], None]] = {
    "openai_audio_input": openai_audio_input,
    "openai_audio_output": openai_audio_output,
    "openai_reasoning_text": openai_reasoning_text,
    "vllm_audio_input": vllm_audio_input,
    "gemini_inline_audio": gemini_inline_audio,
    "gemini_files_audio": gemini_files_audio,
}
"""Each case drives one SDK call (or a sequence) against the capture server."""


def capture(case: str) -> list[dict[str, Any]]:
    """The requests the SDK sends for ``case``; the server's port is replaced by ``PORT``."""
    with capture_server() as (base, records):
        CASES[case](base)
        port = base.rsplit(":", 1)[1]
    return json.loads(json.dumps(records).replace(port, "PORT"))


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        text = json.dumps(capture(case), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
        (FIXTURES / f"{case}.json").write_text(text, encoding="utf-8")
        print(f"wrote {FIXTURES / case}.json")


if __name__ == "__main__":
    main()
