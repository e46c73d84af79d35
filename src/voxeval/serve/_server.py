"""The WebSocket server: handshake checks (path, key, session limit), one :class:`RealtimeSession` per connection;
run in the foreground until SIGINT / SIGTERM (``voxeval serve``) or on a background thread (tests, embedding)."""

from __future__ import annotations

import asyncio
import hmac
import signal
import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

from voxeval.serve._runner import SystemRunner
from voxeval.serve._session import RealtimeSession, ServeOptions

PATH = "/v1/realtime"
"""The path served (as OpenAI's endpoint); the model goes in ``?model=`` and is only reported back."""
MAX_MESSAGE_BYTES = 16 << 20
"""Largest client message: 15 MiB of audio per append is the API's limit; a longer message closes the socket (1009)."""
MAX_SESSIONS = 16
"""Sessions served at once by default; more are refused with HTTP 503."""


class RealtimeServer:
    """Serves ``runner``'s system over the OpenAI Realtime protocol at ``ws://HOST:PORT/v1/realtime``.

    ``key``: the bearer every handshake must carry (``Authorization: Bearer KEY``), or ``None`` for none.
    """

    def __init__(
        self,
        runner: SystemRunner,
        options: ServeOptions,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        key: str | None = None,
        max_sessions: int = MAX_SESSIONS,
    ) -> None:
        self.runner, self.options, self.host, self.port = runner, options, host, port
        self._key, self._max_sessions = key, max_sessions
        self._sessions = 0
        self._opened = 0
        self._server: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The endpoint a client connects to (put it after ``@`` in a ``realtime:openai:`` spec)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"ws://{host}:{self.port}{PATH}"

    async def start(self) -> None:
        """Listen (``port`` 0: a free one, then known as ``self.port``)."""
        try:
            from websockets.asyncio.server import serve
        except ImportError:
            from voxeval.errors import MissingDependencyError

            raise MissingDependencyError("voxeval serve", "realtime", "websockets") from None
        self._server = await serve(
            self._handle,
            self.host,
            self.port,
            process_request=self._check,
            max_size=MAX_MESSAGE_BYTES,
            compression=None,
        )
        self.port = int(next(iter(self._server.sockets)).getsockname()[1])
        await asyncio.to_thread(self._load_vad)

    def _load_vad(self) -> None:
        """Load Silero before the first session needs it (0.25 s that would otherwise stall the socket loop once)."""
        from voxeval.errors import MissingDependencyError
        from voxeval.serve._vad import SileroStream

        try:
            SileroStream()
        except MissingDependencyError as exc:
            self.options.log(f"voxeval serve: {exc}; only sessions with turn_detection null can be served")

    async def stop(self) -> None:
        """Close every session (code 1001) and stop listening."""
        self._server.close()
        await self._server.wait_closed()

    def _check(self, connection: Any, request: Any) -> Any:
        if urlsplit(request.path).path.rstrip("/") != PATH:
            return connection.respond(404, f"not found: the Realtime endpoint is {PATH}\n")
        if self._key is not None:
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {self._key}".encode()):
                return connection.respond(401, "invalid or missing API key\n")
        if self._sessions >= self._max_sessions:
            return connection.respond(503, f"busy: {self._max_sessions} sessions already open\n")
        return None

    async def _handle(self, connection: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        self._sessions += 1
        self._opened += 1
        model = parse_qs(urlsplit(connection.request.path).query).get("model", [""])[0]
        try:
            await RealtimeSession(connection, self.runner, self.options, self._opened, model).run()
        except ConnectionClosed:
            pass  # the client went away: its session ends with it
        finally:
            self._sessions -= 1

    async def serve_until_signal(self) -> None:
        """Serve until SIGINT or SIGTERM, then close every session and return."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
            await self.stop()

    def __enter__(self) -> RealtimeServer:
        """Serve on a background thread (its own event loop)."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="voxeval-serve")
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.start(), self._loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._thread is not None
        asyncio.run_coroutine_threadsafe(self.stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
