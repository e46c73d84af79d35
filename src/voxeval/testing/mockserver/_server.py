"""A threaded HTTP server on 127.0.0.1 that mimics OpenAI and Gemini endpoints, with scripted faults."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from voxeval.testing.mockserver._faults import Fault, FaultPicker, FaultPlan
from voxeval.testing.mockserver._replies import (
    error_body,
    gemini_body,
    gemini_rate_limit_body,
    model_not_found_body,
    openai_chat_body,
    openai_param_error,
    prompt_text,
)
from voxeval.testing.mockserver._wav import sine_wav

Responder = Callable[[str, dict[str, Any]], str]
"""``(endpoint, request_json) -> reply text``; endpoint is ``chat``, ``speech`` or ``gemini``."""

MAX_BODY_BYTES = 64 << 20
"""Largest request body read."""
_SECRET_HEADERS = ("authorization", "x-goog-api-key")
_GEMINI_PATH = re.compile(r"/v1beta/models/([^/:]+):generateContent")


def echo_responder(endpoint: str, request: dict[str, Any]) -> str:
    """The default responder: ``echo: <last prompt line>``."""
    lines = prompt_text(request).strip().splitlines()
    return f"echo: {lines[-1] if lines else ''}"


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    number: int
    """1-based arrival number across all endpoints."""
    endpoint: str
    """``chat``, ``speech``, ``gemini`` or ``unknown``."""
    path: str
    """Request path."""
    json: Any
    """Parsed body (``None`` when it was not JSON)."""
    headers: dict[str, str]
    """Headers with lower-case names; credential values replaced by ``<redacted>``."""
    auth_present: bool
    """Whether an ``Authorization`` or ``x-goog-api-key`` header came with the request."""
    fault: str | None
    """Kind of fault injected, if any."""
    peer_port: int = 0
    """Client's TCP port: requests sharing one came over one kept-alive connection."""


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs: clients may reuse a connection

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without NODELAY, Nagle + delayed ACK add ~40 ms each.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read the records instead
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json", extra: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, obj: Any, extra: dict | None = None) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"), extra=extra)

    def do_GET(self) -> None:
        self._send_json(405, error_body(405, "use POST"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self.close_connection = True  # the body is left unread: this connection cannot carry another request
            self._send_json(413, error_body(413, "body too large"))
            return
        raw = self.rfile.read(length)
        self.server.mock.handle(self, raw)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The default listen backlog (5) drops connections when many clients connect at once; the kernel then
    # retransmits the SYN after ~1 s, which would show up as fake latency in concurrency benchmarks.
    request_queue_size = 1024
    mock: MockServer


class MockServer:
    """``with MockServer(handler) as srv:`` serves ``srv.base_url`` until the block ends (loopback only).

    Endpoints: ``POST /v1/chat/completions`` (OpenAI, with audio output), ``POST /v1/audio/speech`` (WAV
    bytes), ``POST /v1beta/models/{model}:generateContent`` (Gemini). ``faults`` scripts failures;
    ``require_key`` makes a wrong or missing key a 401 (OpenAI) / 400 (Gemini) whose message echoes the key
    sent, to check that clients redact it. Like the real APIs, GPT-5-family and o-series models reject a
    temperature other than 1 and ``max_tokens`` (400), models in ``retired`` answer 404, and Gemini's 429 carries
    its wait as ``RetryInfo.retryDelay`` in the body. The server stops itself after ``max_lifetime`` seconds.
    """

    def __init__(
        self,
        handler: Responder | None = None,
        *,
        faults: FaultPlan | None = None,
        require_key: str | None = None,
        retired: frozenset[str] = frozenset(),
        max_lifetime: float = 300.0,
    ) -> None:
        self.retired = retired
        self.responder = handler or echo_responder
        self.faults = FaultPicker(faults or FaultPlan())
        self.require_key = require_key
        self.max_lifetime = max_lifetime
        self._records: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Timer | None = None

    # lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> MockServer:
        """Bind an ephemeral port on 127.0.0.1 and serve in a daemon thread."""
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.mock = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._watchdog = threading.Timer(self.max_lifetime, self.stop)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def stop(self) -> None:
        """Stop serving, release hung handlers and close the socket (idempotent)."""
        self._stopping.set()
        if self._watchdog is not None:
            self._watchdog.cancel()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        if self._httpd is None:
            raise RuntimeError("the mock server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for OpenAI-style clients (``…/v1``)."""
        return self.base_url + "/v1"

    @property
    def gemini_base_url(self) -> str:
        """Base URL for Gemini clients (``…/v1beta``)."""
        return self.base_url + "/v1beta"

    # records ---------------------------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._records)

    def count(self, endpoint: str | None = None) -> int:
        """Number of requests so far, to one endpoint or all."""
        with self._lock:
            return sum(1 for r in self._records if endpoint is None or r.endpoint == endpoint)

    def _record(
        self, endpoint: str, path: str, body: Any, headers: dict[str, str], port: int = 0
    ) -> tuple[int, Fault | None]:
        shown = {k: ("<redacted>" if k in _SECRET_HEADERS else v) for k, v in headers.items()}
        present = any(k in headers for k in _SECRET_HEADERS)
        with self._lock:
            number = len(self._records) + 1
            fault = self.faults.pick(number)
            kind = fault.kind if fault else None
            self._records.append(RecordedRequest(number, endpoint, path, body, shown, present, kind, port))
        return number, fault

    # handling --------------------------------------------------------------------------------------------
    def handle(self, request: _Handler, raw: bytes) -> None:
        """Route, record, inject the fault, answer (called on a handler thread)."""
        path = request.path.split("?", 1)[0]
        match = _GEMINI_PATH.fullmatch(path)
        endpoint = {"/v1/chat/completions": "chat", "/v1/audio/speech": "speech"}.get(path)
        endpoint = "gemini" if match else endpoint or "unknown"
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in request.headers.items()}
        number, fault = self._record(endpoint, path, body, headers, request.client_address[1])
        if endpoint == "unknown":
            request._send_json(404, error_body(404, f"no such endpoint {path}"))
        elif not isinstance(body, dict):
            request._send_json(400, error_body(400, "request body is not a JSON object"))
        elif not self._authorised(request, endpoint, headers) or self._model_refused(
            request, endpoint, body, match.group(1) if match else ""
        ):
            return
        elif fault is None or not self._apply_fault(request, fault, endpoint):
            self._reply(request, endpoint, body, number, match.group(1) if match else "", fault)

    def _authorised(self, request: _Handler, endpoint: str, headers: dict[str, str]) -> bool:
        if self.require_key is None:
            return True
        if endpoint == "gemini":
            given = headers.get("x-goog-api-key", "")
            if given != self.require_key:
                request._send_json(400, error_body(400, f"API key not valid: {given}. Please pass a valid API key."))
                return False
            return True
        given = headers.get("authorization", "").removeprefix("Bearer ")
        if given != self.require_key:
            request._send_json(401, error_body(401, f"Incorrect API key provided: {given}."))
            return False
        return True

    def _model_refused(self, request: _Handler, endpoint: str, body: dict[str, Any], gemini_model: str) -> bool:
        model = gemini_model if endpoint == "gemini" else str(body.get("model", ""))
        if model in self.retired:
            request._send_json(404, model_not_found_body(endpoint, model))
            return True
        refusal = openai_param_error(body) if endpoint == "chat" else None
        if refusal is not None:
            request._send_json(400, refusal)
            return True
        return False

    def _apply_fault(self, request: _Handler, fault: Fault, endpoint: str = "chat") -> bool:
        """Act out ``fault``; ``True`` when the request is finished, ``False`` to go on with a normal reply."""
        retry = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else None
        if fault.kind == "latency":
            self._stopping.wait(fault.seconds)
            return False
        if fault.kind == "rate_limit" and endpoint == "gemini":
            request._send_json(429, gemini_rate_limit_body(fault.retry_after))
        elif fault.kind == "rate_limit":
            request._send_json(429, error_body(429, "Rate limit reached (mock)"), retry)
        elif fault.kind == "server_error":
            request._send_json(500, error_body(500, "internal error (mock)"))
        elif fault.kind == "unavailable":
            request._send_json(503, error_body(503, "overloaded (mock)"), retry)
        elif fault.kind in ("hang", "drop"):
            if fault.kind == "hang":
                self._stopping.wait(fault.seconds)
            request.close_connection = True  # closed unanswered: the client sees a disconnect
        elif fault.kind == "invalid_json":
            request._send(200, b"<html><body>502 Bad Gateway</body></html>")
        else:
            return False  # truncated / empty shape the normal reply
        return True

    def _reply(
        self, request: _Handler, endpoint: str, body: dict[str, Any], number: int, model: str, fault: Fault | None
    ) -> None:
        empty = fault is not None and fault.kind == "empty"
        if endpoint == "speech":
            text = str(body.get("input", ""))
            request._send(200, b"" if empty else sine_wav(min(2.0, 0.05 * len(text))), "audio/wav")
            return
        try:
            text = "" if empty else self.responder(endpoint, body)
        except Exception as exc:  # a broken test responder: answer 500 so the test sees it
            request._send_json(500, error_body(500, f"responder failed: {exc!r}"))
            return
        reply = openai_chat_body(body, text, number) if endpoint == "chat" else gemini_body(body, text, model)
        data = json.dumps(reply).encode("utf-8")
        if fault is not None and fault.kind == "truncated":
            data = data[: len(data) // 2]
        request._send(200, data)
