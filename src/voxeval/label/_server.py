"""The labelling app's HTTP server (stdlib ``http.server``): token on every request, files only from the root.

Routes: ``/`` (the page), ``/static/<asset>``, ``/api/state``, ``POST /api/submit``, ``/media/<path>`` (audio an
item names, resolved inside the served root; symlinks that lead out are refused). Every response forbids inline
scripts (CSP), so even a field that reached the page as HTML could not run; the page also renders every field as
text.

Bounds: a connection that sends nothing for :data:`IDLE_TIMEOUT` seconds, or has not finished within
:data:`REQUEST_DEADLINE`, is closed; at most :data:`MAX_CONNECTIONS` are served at once (more get ``503`` at once),
so half-sent requests cannot hold threads and descriptors until the labeller is locked out. A request whose
``Host`` is not a loopback name or the bound address is refused before the token is looked at. One server per
labeller: it holds ``human/<task>/.<labeller>.lock`` while it runs.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import mimetypes
import secrets
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from voxeval.label._study import Study
from voxeval.label._submit import SubmissionError, check_submission
from voxeval.run._lock import RunLock

ASSETS = {"app.js": "text/javascript", "app.css": "text/css", "da.html": "text/html", "style.html": "text/html"}
"""Files of ``voxeval/label/static`` the server may send."""
MAX_BODY = 64 * 1024
"""Largest submission accepted (bytes)."""
IDLE_TIMEOUT = 15.0
"""Seconds a connection may stay silent while a request is read or a response written."""
REQUEST_DEADLINE = 60.0
"""Seconds a connection may last in all (a client trickling one byte at a time is cut here)."""
MAX_CONNECTIONS = 32
"""Connections served at once; one more is answered ``503`` and closed."""
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
"""Host names every server accepts, besides the address it is bound to."""
_BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def asset(name: str) -> bytes:
    """A packaged page asset."""
    return resources.files("voxeval.label").joinpath("static", name).read_bytes()


class LabelServer(ThreadingHTTPServer):
    """A server for one study; ``token`` must be on every request's query string."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], study: Study, *, token: str | None = None, show_system: bool = False):
        folder, name = study.path.parent, f".{study.labeller}.lock"
        self.lock = RunLock(folder, name, instead="label under another --labeller", root=study.root)
        self.lock.__enter__()  # before the socket: a second server for this labeller is refused, nothing written
        try:
            super().__init__(address, _Handler)
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        self.study, self.show_system = study, show_system
        self.token = token or secrets.token_urlsafe(24)
        self.media = {p for i in study.items for p in (i.reply_audio, i.input_audio) if p}
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        host = address[0]
        self.hosts = LOOPBACK | {host.lower().strip("[]")} if host not in ("", "0.0.0.0", "::") else None
        """Accepted ``Host`` names (``None``: bound to every address, any name of this machine is accepted)."""

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve in a thread if a slot is free, else answer ``503`` at once."""
        if not self.slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve one connection, cut at :data:`REQUEST_DEADLINE` whatever it sends; then free its slot."""
        deadline = threading.Timer(REQUEST_DEADLINE, _cut, (request,))
        deadline.daemon = True
        deadline.start()
        try:
            super().process_request_thread(request, client_address)
        finally:
            deadline.cancel()
            self.slots.release()

    def server_close(self) -> None:
        """Close the socket and release the labeller's lock."""
        super().server_close()
        self.lock.__exit__(None, None, None)

    def allowed_host(self, header: str | None) -> bool:
        """Whether a request's ``Host`` header names this server (DNS rebinding sends a foreign name)."""
        if self.hosts is None:
            return True
        name, port = split_host(header or "")
        return name in self.hosts and port in ("", str(self.server_address[1]))

    @property
    def url(self) -> str:
        """The address to open, token included."""
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{host}:{port}/?token={self.token}"

    def media_path(self, relative: str) -> Path | None:
        """The file for ``/media/<relative>``, or ``None`` when no item names it or it resolves outside the root."""
        if relative not in self.media:
            return None
        root = self.study.root.resolve()
        try:
            path = (root / relative).resolve()
            if not path.is_relative_to(root) or not path.is_file():
                return None
        except (OSError, ValueError):  # ValueError: a NUL byte (``ok.wav%00.txt``) is no file name
            return None
        return path

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line on stderr for a request that failed unexpectedly (the default prints a traceback)."""
        import sys

        kind, exc = sys.exc_info()[:2]
        if kind is not None and not issubclass(kind, (ConnectionError, TimeoutError)):
            print(f"voxeval label: a request failed: {kind.__name__}: {exc}", file=sys.stderr)


def split_host(header: str) -> tuple[str, str]:
    """``(name, port)`` of a ``Host`` header, lower-cased, IPv6 brackets removed; ``("", "")`` when malformed.

    >>> split_host("LocalHost:8080"), split_host("[::1]:80"), split_host("127.0.0.1")
    (('localhost', '8080'), ('::1', '80'), ('127.0.0.1', ''))
    """
    text = header.strip().lower()
    if text.startswith("["):
        name, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ("" if not rest else "?")
    else:
        name, _, port = text.partition(":")
    return (name, port) if name and (port == "" or port.isdigit()) else ("", "")


def _cut(request: socket.socket) -> None:
    """End a connection that outlived its deadline (its thread then fails its read and finishes)."""
    with contextlib.suppress(OSError):
        request.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    server: LabelServer
    timeout = IDLE_TIMEOUT

    def log_message(self, format: str, *args: Any) -> None:
        pass  # requests carry the token in their URL: not echoed to the terminal

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind if not kind.startswith("text/") else kind + "; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"))

    def _authorised(self) -> tuple[bool, str]:
        if not self.server.allowed_host(self.headers.get("Host")):
            self._json(HTTPStatus.MISDIRECTED_REQUEST, {"error": "unknown Host: open the URL voxeval label printed"})
            return False, ""
        url = urlsplit(self.path)
        given = parse_qs(url.query).get("token", [""])[0]
        ok = hmac.compare_digest(given.encode(), self.server.token.encode())
        if not ok:
            self._json(HTTPStatus.FORBIDDEN, {"error": "missing or wrong token: open the URL voxeval label printed"})
        return ok, url.path

    def do_GET(self) -> None:
        ok, path = self._authorised()
        if not ok:
            return
        study = self.server.study
        if path == "/":
            # the page's own assets need the token too (it is URL-safe base64: nothing to escape)
            page = asset(f"{study.task}.html").replace(b'.css"', b".css?token=" + self.server.token.encode() + b'"')
            page = page.replace(b'.js"', b".js?token=" + self.server.token.encode() + b'"')
            self._send(HTTPStatus.OK, page, "text/html")
        elif path.startswith("/static/") and path[8:] in ASSETS:
            self._send(HTTPStatus.OK, asset(path[8:]), ASSETS[path[8:]])
        elif path == "/api/state":
            self._json(HTTPStatus.OK, study.state(show_system=self.server.show_system))
        elif path.startswith("/media/") and (file := self.server.media_path(unquote(path[7:]))) is not None:
            kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            self._send(HTTPStatus.OK, file.read_bytes(), kind)
        else:
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self) -> None:
        ok, path = self._authorised()
        if not ok:
            return
        if path != "/api/submit":
            self._json(HTTPStatus.NOT_FOUND, {"error": "not found"})
            return
        try:
            size = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            size = -1
        if not 0 < size <= MAX_BODY:
            self._json(HTTPStatus.BAD_REQUEST, {"field": "body", "error": f"body must be 1-{MAX_BODY} bytes"})
            return
        try:
            raw = json.loads(self.rfile.read(size))
            sub = check_submission(raw, self.server.study.task, self.server.study.by_key)
        except (ValueError, UnicodeDecodeError) as exc:
            field = exc.field if isinstance(exc, SubmissionError) else "body"
            message = exc.message if isinstance(exc, SubmissionError) else "not valid JSON"
            self._json(HTTPStatus.BAD_REQUEST, {"field": field, "error": message})
            return
        result = self.server.study.submit(sub)
        self._json(HTTPStatus.OK, {**result, "state": self.server.study.state(show_system=self.server.show_system)})
