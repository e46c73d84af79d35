"""A chat model behind an HTTP API: limits, retries and the POST, shared by the OpenAI and Gemini providers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from voxeval.llm._http import RetryPolicy, post_json, with_retries
from voxeval.llm._limits import Limiter
from voxeval.llm._provider import ProviderOptions
from voxeval.llm._types import ChatRequest, ChatResponse

PayloadBuilder = Callable[[ChatRequest], dict[str, Any]]
"""Request → JSON payload (a pure function)."""
ResponseParser = Callable[[dict[str, Any]], ChatResponse]
"""JSON body → response; raises ``ProviderError("bad_response")`` when unusable."""


class RemoteChatModel:
    """One model at one endpoint. ``policy`` and ``sleep`` are public so tests can shorten the backoff."""

    def __init__(
        self,
        *,
        provider: str,
        model: str,
        base_url: str,
        url: str,
        headers: Mapping[str, str],
        build: PayloadBuilder,
        parse: ResponseParser,
        options: ProviderOptions,
        secret: str = "",
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.options = options
        self.policy = RetryPolicy(max_retries=options.max_retries)
        self.sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
        self.limiter = Limiter(options.concurrency, options.rps)
        self._url = url
        self._headers = dict(headers)
        self._build = build
        self._parse = parse
        self._secrets = (secret,) if secret else ()

    async def _attempt(self, payload: dict[str, Any]) -> ChatResponse:
        async with self.limiter:
            body = await post_json(
                self._url, payload, headers=self._headers, timeout=self.options.timeout, secrets=self._secrets
            )
        return self._parse(body)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request``, retrying transient failures with backoff (the limiter is not held while waiting)."""
        payload = self._build(request)
        return await with_retries(lambda: self._attempt(payload), self.policy, self.sleep)

    def describe(self) -> dict[str, Any]:
        """Provider, model, base URL and options; never the key."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "parameters": self.options.parameters(),
        }

    def __repr__(self) -> str:
        return f"RemoteChatModel({self.provider}:{self.model}@{self.base_url})"
