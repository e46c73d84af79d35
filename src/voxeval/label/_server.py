"""The labelling app's HTTP server (stdlib ``http.server``): token on every request, files only from the root.

Routes: ``/`` (the page), ``/static/<asset>``, ``/api/state``, ``POST /api/submit``, ``/media/<path>`` (audio an
item names, resolved inside the served root; symlinks that lead out are refused). Every response forbids inline
scripts (CSP), so even a field that reached the page as HTML could not run; the page also renders every field as
text.
"""

from __future__ import annotations

import hmac
import json
import mimetypes
import secrets
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from voxeval.label._study import Study
from voxeval.label._submit import SubmissionError, check_submission

ASSETS = {"app.js": "text/javascript", "app.css": "text/css", "da.html": "text/html", "style.html": "text/html"}
"""Files of ``voxeval/label/static`` the server may send."""
MAX_BODY = 64 * 1024
"""Largest submission accepted (bytes)."""
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
        super().__init__(address, _Handler)
        self.study, self.show_system = study, show_system
        self.token = token or secrets.token_urlsafe(24)
        self.media = {p for i in study.items for p in (i.reply_audio, i.input_audio) if p}

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
        path = (root / relative).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
        return path


class _Handler(BaseHTTPRequestHandler):
    server: LabelServer

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
