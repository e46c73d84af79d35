"""Retries: the providers' own wait signals, exponential backoff with full jitter, and the retry loop."""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from voxeval.llm._types import ProviderError

T = TypeVar("T")
log = logging.getLogger("voxeval.llm")

_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?)s\s*")
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


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


def _retry_info_delay(body: bytes) -> float | None:
    # Gemini: {"error": {"details": [{"@type": "…google.rpc.RetryInfo", "retryDelay": "37s"}]}}.
    try:
        parsed: Any = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and detail.get("@type") == _RETRY_INFO:
            match = _DURATION.fullmatch(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def parse_retry_delay(headers: Mapping[str, str], body: bytes = b"") -> float | None:
    """The wait a provider asks for: ``retry-after-ms`` (OpenAI), ``Retry-After``, or Gemini's ``retryDelay``."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    seconds = parse_retry_after(headers.get("retry-after"))
    return seconds if seconds is not None else _retry_info_delay(body)


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
    """Longest server-requested wait honoured; longer ones are clipped to this, with a logged notice."""

    def delay(self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to sleep before retry number ``attempt`` (0-based); a server-requested wait wins over backoff."""
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
            wait = policy.delay(attempt, error.retry_after, rng)
            if error.retry_after is not None and error.retry_after > policy.max_retry_after:
                log.warning(
                    "voxeval: the provider asked to wait %.0f s before retrying (HTTP %s); waiting %.0f s instead "
                    "(the longest wait honoured), retry %d of %d",
                    error.retry_after,
                    error.status,
                    wait,
                    attempt + 1,
                    policy.max_retries,
                )
            await sleep(wait)
            attempt += 1
