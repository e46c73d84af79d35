"""A chat model behind an HTTP API: limits, retries, the pooled client and the one redaction boundary."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from voxeval.llm._http import HttpClient, redact, redact_error
from voxeval.llm._limits import Limiter
from voxeval.llm._provider import ProviderOptions
from voxeval.llm._retry import RetryPolicy, with_retries
from voxeval.llm._types import ChatRequest, ChatResponse, ProviderError
from voxeval.llm.chat._profiles import ModelProfile

PayloadBuilder = Callable[[ChatRequest], dict[str, Any]]
"""Request → JSON payload (a pure function)."""
ResponseParser = Callable[[dict[str, Any]], ChatResponse]
"""JSON body → response; raises ``ProviderError`` when unusable."""


class RemoteChatModel:
    """One model at one endpoint. ``policy`` and ``sleep`` are public so tests can shorten the backoff.

    Every error message and reply text leaving :meth:`complete` is redacted of the key before it is shortened.
    """

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
        profile: ModelProfile,
        secret: str = "",
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.options = options
        self.profile = profile
        self.policy = RetryPolicy(max_retries=options.max_retries)
        self.sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
        self.limiter = Limiter(options.concurrency, options.rps)
        self._secrets = (secret,) if secret else ()
        self.http = HttpClient(timeout=options.timeout, connections=options.concurrency, secrets=self._secrets)
        self._url = url
        self._headers = dict(headers)
        self._build = build
        self._parse = parse

    @property
    def spec(self) -> str:
        """The spec string naming this model (without options)."""
        return f"{self.provider}:{self.model}@{self.base_url}"

    async def _attempt(self, payload: dict[str, Any]) -> ChatResponse:
        async with self.limiter:
            body = await self.http.post_json(self._url, payload, headers=self._headers)
        return self._parse(body)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request``, retrying transient failures with backoff (the limiter is not held while waiting)."""
        payload = self._build(request)
        try:
            response = await with_retries(lambda: self._attempt(payload), self.policy, self.sleep)
        except ProviderError as error:
            prefix = f"model not found or retired: {self.model} ({self.spec}): " if error.status == 404 else ""
            raise redact_error(error, self._secrets, prefix) from None
        if not self._secrets:
            return response
        return dataclasses.replace(response, text=redact(response.text, self._secrets))

    def describe(self) -> dict[str, Any]:
        """Provider, model, base URL, options and the model profile (what is sent); never the key."""
        return {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "parameters": self.options.parameters(),
            "profile": self.profile.describe(),
        }

    def __repr__(self) -> str:
        return f"RemoteChatModel({self.provider}:{self.model}@{self.base_url})"
