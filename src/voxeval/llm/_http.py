"""HTTP for providers: one JSON POST with every failure classified, and a generic retry loop."""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from voxeval.llm._types import ProviderError

T = TypeVar("T")

_SSL_CONTEXT: ssl.SSLContext | None = None


def excerpt(text: str, limit: int = 200) -> str:
    """A short one-line excerpt of a body for error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date); ``None`` if absent or bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter for retryable :class:`ProviderError` s."""

    max_retries: int = 4
    """Retries after the first attempt."""
    base_delay: float = 0.5
    """Backoff ceiling of the first retry, in seconds; doubles each retry."""
    max_delay: float = 20.0
    """Largest backoff ceiling, in seconds."""
    jitter: bool = True
    """Full jitter: sleep a uniform random fraction of the ceiling (spreads out synchronized clients)."""
    max_retry_after: float = 120.0
    """Longest server-requested ``Retry-After`` honoured; longer ones are clipped to this."""

    def delay(self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to sleep before retry number ``attempt`` (0-based); a ``Retry-After`` wins over backoff."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        ceiling = min(self.max_delay, self.base_delay * (2**attempt))
        return (rng or random).uniform(0.0, ceiling) if self.jitter else ceiling


async def with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> T:
    """Await ``call()`` until it succeeds, retrying retryable ``ProviderError`` s per ``policy``.

    Non-retryable errors are raised at once; after ``max_retries`` retries the last error is raised.
    """
    attempt = 0
    while True:
        try:
            return await call()
        except ProviderError as error:
            if not error.retryable or attempt >= policy.max_retries:
                raise
            await sleep(policy.delay(attempt, error.retry_after, rng))
            attempt += 1


def _ssl_context() -> ssl.SSLContext:
    # Loading the CA bundle costs tens of milliseconds: do it once, not per request.
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
        error = body.get("error", body) if isinstance(body, dict) else body
        detail = error.get("message", error) if isinstance(error, dict) else error
        text = detail if isinstance(detail, str) else json.dumps(detail)
    except (ValueError, AttributeError):
        text = response.text
    return excerpt(text)


def classify_status(response: httpx.Response, where: str, secrets: Sequence[str]) -> ProviderError:
    """The :class:`ProviderError` for a non-2xx response."""
    status = response.status_code
    message = redact(f"HTTP {status} from {where}: {_error_message(response)}", secrets)
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if status == 429:
        return ProviderError("rate_limit", message, status=status, retry_after=retry_after)
    if status == 408:
        return ProviderError("timeout", message, status=status)
    if status >= 500:
        return ProviderError("server", message, status=status, retry_after=retry_after if status == 503 else None)
    return ProviderError("client", message, status=status)


def decode_json(text: str, where: str, secrets: Sequence[str] = ()) -> dict[str, Any]:
    """A 2xx body as a JSON object; truncated or invalid JSON is a retryable ``bad_response``."""
    try:
        body = json.loads(text)
    except ValueError:
        raise ProviderError("bad_response", redact(f"invalid JSON from {where}: {excerpt(text)!r}", secrets)) from None
    if not isinstance(body, dict):
        raise ProviderError("bad_response", redact(f"expected a JSON object from {where}: {excerpt(text)!r}", secrets))
    return body


async def post_json(
    url: str,
    payload: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    timeout: float,
    secrets: Sequence[str] = (),
) -> dict[str, Any]:
    """POST ``payload`` as JSON and return the JSON object answered, or raise a classified ``ProviderError``.

    ``timeout`` bounds the whole attempt (connect, send, wait, read). Messages are redacted of ``secrets``.
    """
    where = url.split("?", 1)[0]
    try:
        async with asyncio.timeout(timeout), httpx.AsyncClient(timeout=timeout, verify=_ssl_context()) as client:
            response = await client.post(url, json=payload, headers=dict(headers))
    except (TimeoutError, httpx.TimeoutException):
        raise ProviderError("timeout", f"no answer from {where} within {timeout:g} s") from None
    except httpx.DecodingError as exc:
        raise ProviderError("bad_response", f"undecodable body from {where}: {excerpt(str(exc))}") from None
    except httpx.TransportError as exc:
        detail = redact(excerpt(str(exc) or type(exc).__name__), secrets)
        raise ProviderError("connection", f"connection to {where} failed: {detail}") from None
    if not response.is_success:
        raise classify_status(response, where, secrets)
    return decode_json(response.text, where, secrets)
