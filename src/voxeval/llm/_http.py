"""HTTP for providers: a pooled client with capped, strictly decoded responses, every failure classified.

One :class:`HttpClient` per provider instance keeps connections alive between requests (a client per event loop:
httpx connections belong to the loop that opened them). Bodies are read as a stream and refused past
:class:`ResponseLimits` on the wire and after inflating, with the inflation done here in bounded steps so a
compression bomb never sits in memory. Error messages keep the whole detail: the provider boundary redacts secrets
and only then shortens them (see :func:`redact_error`).
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from voxeval.llm._retry import parse_retry_delay
from voxeval.llm._types import ProviderError

_SSL_CONTEXT: ssl.SSLContext | None = None
_CHUNK = 1 << 16
MESSAGE_LIMIT = 300
"""Characters of an error message kept after redaction."""


def excerpt(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A short one-line excerpt of ``text``; call it only on text already redacted."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret (also JSON-escaped) replaced by ``***``."""
    for secret in secrets:
        if secret:
            for form in {secret, json.dumps(secret)[1:-1]}:
                text = text.replace(form, "***")
    return text


def redact_json(value: Any, secrets: Sequence[str]) -> Any:
    """A decoded JSON value with every secret redacted from every string in it, object keys included.

    >>> redact_json({"model": "m-KEY", "usage": {"n": 1}, "KEY": ["xKEYx"]}, ["KEY"])
    {'model': 'm-***', 'usage': {'n': 1}, '***': ['x***x']}
    """
    if not any(secrets):
        return value
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(str(k), secrets): redact_json(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_json(v, secrets) for v in value]
    return value


def redact_error(error: ProviderError, secrets: Sequence[str], prefix: str = "") -> ProviderError:
    """``error`` redacted of ``secrets`` first, then shortened: the one way text leaves a provider call."""
    message = excerpt(redact(prefix + error.message, secrets))
    return ProviderError(
        error.kind, message, status=error.status, retry_after=error.retry_after, retryable=error.retryable
    )


@dataclass(frozen=True)
class ResponseLimits:
    """Caps on one response body."""

    max_wire_bytes: int = 32 << 20
    """Bytes read from the connection (compressed)."""
    max_bytes: int = 32 << 20
    """Bytes after inflating gzip or deflate."""


@dataclass(frozen=True)
class HttpReply:
    """A response read in full within the limits."""

    status: int
    """HTTP status code."""
    headers: httpx.Headers
    """Response headers."""
    body: bytes
    """The body, inflated."""
    secrets: tuple[str, ...] = ()
    """Secrets of the request (its API key): redacted from every string of the decoded body."""

    def json_object(self, where: str) -> dict[str, Any]:
        """The body as a JSON object (strict UTF-8; see :func:`decode_json`), every string in it redacted of
        :attr:`secrets`: the one boundary every field read from a response passes (text, model, ids, reasons)."""
        body = decode_json(decode_text(self.body, self.headers.get("content-type", ""), where), where)
        try:
            redacted: dict[str, Any] = redact_json(body, self.secrets)
        except RecursionError:
            raise ProviderError("bad_response", f"JSON from {where} is nested too deeply to read") from None
        return redacted


def _ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle costs tens of milliseconds: do it once, not per client.
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


def _inflater(encoding: str, where: str) -> Any:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip", "deflate"):
        return zlib.decompressobj(47 if encoding != "deflate" else 15)
    raise ProviderError("bad_response", f"unsupported Content-Encoding {encoding!r} from {where}")


async def read_capped(response: httpx.Response, limits: ResponseLimits, where: str) -> bytes:
    """The body of a streamed ``response``, inflated in bounded steps; past a limit raises ``bad_response``."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.max_wire_bytes:
        raise _too_large(where, f"declares {int(declared)} bytes", limits.max_wire_bytes)
    if response.is_stream_consumed:  # a response built in memory (test transports): already read and decoded
        if len(response.content) > limits.max_bytes:
            raise _too_large(where, "sent more than", limits.max_bytes)
        return response.content
    inflater = _inflater(response.headers.get("content-encoding", ""), where)
    body, wire = bytearray(), 0
    async for chunk in response.aiter_raw(_CHUNK):
        wire += len(chunk)
        if wire > limits.max_wire_bytes:
            raise _too_large(where, "sent more than", limits.max_wire_bytes)
        if inflater is None:
            body += chunk
        else:
            while chunk:
                room = limits.max_bytes - len(body) + 1
                body += inflater.decompress(chunk, min(room, _CHUNK))
                chunk = inflater.unconsumed_tail
                if len(body) > limits.max_bytes:
                    raise _too_large(where, "inflates to more than", limits.max_bytes)
        if len(body) > limits.max_bytes:
            raise _too_large(where, "sent more than", limits.max_bytes)
    if inflater is not None:
        body += inflater.flush()
        if len(body) > limits.max_bytes:
            raise _too_large(where, "inflates to more than", limits.max_bytes)
    return bytes(body)


def _too_large(where: str, what: str, limit: int) -> ProviderError:
    return ProviderError("bad_response", f"response from {where} {what} {limit} bytes: refused", retryable=False)


_UTF8_NAMES = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})


def decode_text(body: bytes, content_type: str, where: str) -> str:
    """``body`` as strict UTF-8 (JSON's only encoding); invalid bytes or another declared charset with non-ASCII
    bytes raise ``ProviderError("undecodable")`` instead of storing replacement characters or mojibake."""
    charset = ""
    for param in content_type.split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    if charset and charset not in _UTF8_NAMES and not body.isascii():
        message = f"body from {where} declares charset {charset!r}, not UTF-8"
        raise ProviderError("undecodable", message, retryable=False)
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ProviderError(
            "undecodable", f"body from {where} is not valid UTF-8 (byte {exc.start})", retryable=False
        ) from None


def _error_detail(body: bytes) -> str:
    text = body.decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return text
    error = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    detail = error.get("message", error) if isinstance(error, dict) else error
    return detail if isinstance(detail, str) else json.dumps(detail)


def classify_status(status: int, headers: Mapping[str, str], body: bytes, where: str) -> ProviderError:
    """The :class:`ProviderError` for a non-2xx answer; the retry delay from ``Retry-After``, ``retry-after-ms``
    or Gemini's ``RetryInfo.retryDelay``. The message holds the whole detail (the caller redacts)."""
    message = f"HTTP {status} from {where}: {_error_detail(body)}"
    if 300 <= status < 400:  # never followed: the key would go with the request to wherever it points
        message = f"HTTP {status} from {where}: a redirect, not followed (put the final URL in the spec)"
    delay = parse_retry_delay(headers, body)
    if status == 429:
        return ProviderError("rate_limit", message, status=status, retry_after=delay)
    if status == 408:
        return ProviderError("timeout", message, status=status)
    if status >= 500:
        return ProviderError("server", message, status=status, retry_after=delay if status == 503 else None)
    return ProviderError("client", message, status=status)


def decode_json(text: str, where: str) -> dict[str, Any]:
    """A 2xx body as a JSON object; truncated or invalid JSON is a retryable ``bad_response``."""
    try:
        body = json.loads(text)
    except RecursionError:
        raise ProviderError("bad_response", f"JSON from {where} is nested too deeply to read") from None
    except ValueError:
        raise ProviderError("bad_response", f"invalid JSON from {where}: {text[:2000]!r}") from None
    if not isinstance(body, dict):
        raise ProviderError("bad_response", f"expected a JSON object from {where}: {text[:2000]!r}")
    return body


SHARD_CONNECTIONS = 4
"""Connections per pooled httpx client: httpcore scans its whole pool for every request (quadratic in the pool
size), so a wide provider gets several small pools, each request going to the least busy one. Measured in the reply
stage at width 64 (benchmarks/bench_providers.py): one pool of 64 costs 15 ms client CPU per request, pools of 8
2.9 ms, pools of 4 2.2 ms, pools of 2 2.3 ms."""


class HttpClient:
    """Pooled keep-alive HTTP for one provider instance; ``transport`` lets tests answer without a server.

    ``connections`` keep-alive connections in ``ceil(connections / SHARD_CONNECTIONS)`` httpx clients, built on
    first use in each event loop (httpx connections belong to the loop that opened them).
    """

    def __init__(
        self,
        *,
        timeout: float,
        connections: int,
        limits: ResponseLimits = ResponseLimits(),
        transport: httpx.AsyncBaseTransport | None = None,
        secrets: Sequence[str] = (),
    ) -> None:
        self.timeout = timeout
        self.secrets = tuple(s for s in secrets if s)
        """API keys sent with requests: redacted from every decoded answer (:meth:`HttpReply.json_object`)."""
        self.connections = connections
        self.limits = limits
        self._transport = transport
        self._loop: asyncio.AbstractEventLoop | None = None
        self._shards: list[httpx.AsyncClient] = []
        self._busy: list[int] = []
        self.clients_made = 0
        """How many httpx clients were built (one set per event loop; tests check reuse)."""

    def _new_client(self, size: int) -> httpx.AsyncClient:
        pool = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        # Headers and body leave in separate writes: without TCP_NODELAY, Nagle's algorithm can hold the body
        # until the peer's delayed ACK on a kept-alive connection.
        transport = self._transport or httpx.AsyncHTTPTransport(
            verify=_ssl_context(), limits=pool, socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        )
        self.clients_made += 1
        return httpx.AsyncClient(timeout=self.timeout, limits=pool, transport=transport)

    def _pick(self) -> int:
        loop = asyncio.get_running_loop()
        if not self._shards or self._loop is not loop or any(c.is_closed for c in self._shards):
            count = -(-self.connections // SHARD_CONNECTIONS)
            sizes = [len(range(i, self.connections, count)) for i in range(count)]
            self._loop, self._shards, self._busy = loop, [self._new_client(n) for n in sizes], [0] * count
        return min(range(len(self._busy)), key=self._busy.__getitem__)

    async def request(self, method: str, url: str, *, headers: Mapping[str, str], **kwargs: Any) -> HttpReply:
        """Send one request and read the answer within the limits; a non-2xx answer raises its ``ProviderError``.

        ``timeout`` bounds the whole attempt (connect, send, wait, read).
        """
        where = url.split("?", 1)[0]
        sent = {"Accept-Encoding": "gzip, deflate", **headers}
        shard = self._pick()
        client = self._shards[shard]
        self._busy[shard] += 1
        try:
            async with asyncio.timeout(self.timeout), client.stream(method, url, headers=sent, **kwargs) as response:
                body = await read_capped(response, self.limits, where)
        except (TimeoutError, httpx.TimeoutException):
            raise ProviderError("timeout", f"no answer from {where} within {self.timeout:g} s") from None
        except zlib.error as exc:
            raise ProviderError("bad_response", f"undecodable compressed body from {where}: {exc}") from None
        except httpx.TransportError as exc:
            raise ProviderError("connection", f"connection to {where} failed: {exc or type(exc).__name__}") from None
        finally:
            if self._shards and self._shards[shard] is client:
                self._busy[shard] -= 1
        if not 200 <= response.status_code < 300:
            raise classify_status(response.status_code, response.headers, body, where)
        return HttpReply(response.status_code, response.headers, body, self.secrets)

    async def post_json(self, url: str, payload: Mapping[str, Any], *, headers: Mapping[str, str]) -> dict[str, Any]:
        """POST ``payload`` as JSON and return the JSON object answered, or raise a classified ``ProviderError``."""
        reply = await self.request("POST", url, headers=headers, json=payload)
        return reply.json_object(url.split("?", 1)[0])

    async def aclose(self) -> None:
        """Close the pooled clients of the running loop, if any."""
        if self._loop is asyncio.get_running_loop():
            for client in self._shards:
                await client.aclose()
        self._shards, self._busy = [], []
