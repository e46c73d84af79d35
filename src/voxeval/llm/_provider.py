"""The provider extension point: the ``ChatModel`` protocol, its options and the registry of factories."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from voxeval.errors import ConfigError
from voxeval.llm._types import ChatRequest, ChatResponse
from voxeval.registry import Registry


class ChatModel(Protocol):
    """A chat model behind some provider. Implementations are safe to call concurrently."""

    provider: str
    """Registry name of the provider (``openai``, ``gemini``…)."""
    model: str
    """The model name as the provider knows it."""

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request; transient failures are retried inside, the rest raise ``ProviderError``."""
        ...

    def describe(self) -> dict[str, Any]:
        """``provider``, ``model``, ``base_url`` and ``parameters`` for run manifests; never the key."""
        ...


@dataclass(frozen=True)
class ProviderOptions:
    """The ``?k=v`` options of a spec string, typed."""

    key_env: str | None = None
    """Environment variable holding the API key; ``None`` uses the provider's default."""
    timeout: float = 60.0
    """Seconds one HTTP attempt may take in total."""
    concurrency: int = 4
    """Requests in flight at once for this model instance."""
    rps: float | None = None
    """Requests started per second at most; ``None`` for no rate limit."""
    max_retries: int = 4
    """Retries after the first attempt for transient failures."""
    temperature: float | None = None
    """Temperature sent whatever the request asks; ``None`` follows the model profile."""
    reasoning_effort: str | None = None
    """OpenAI ``reasoning_effort`` / Gemini ``thinkingLevel``; ``default`` sends none; ``None`` follows the profile."""
    thinking_budget: int | None = None
    """Gemini 2.5 ``thinkingBudget`` in tokens (``-1``: dynamic); ``None`` follows the profile."""
    max_tokens: int | None = None
    """Output cap sent (reasoning included), replacing the request's cap plus the profile's headroom."""
    api_version: str | None = None
    """Gemini API version in the default base URL (``v1beta``, ``v1``…); ``None`` for ``v1beta``."""

    def parameters(self) -> dict[str, Any]:
        """The options for ``describe()``: the key's variable name, never its value."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def profile_overrides(self) -> dict[str, Any]:
        """The options that change what is sent to the model (see ``voxeval.llm.chat._profiles``)."""
        names = ("temperature", "reasoning_effort", "thinking_budget", "max_tokens")
        return {name: getattr(self, name) for name in names}


ProviderFactory = Callable[[str, str | None, ProviderOptions], ChatModel]
"""``factory(model, base_url, options)`` builds a ready model; it reads the API key from the environment."""

providers: Registry[ProviderFactory] = Registry("LLM provider")
"""Provider factories by spec prefix (``openai``, ``openai-compat``, ``gemini``, ``llamacpp``)."""


def api_key(names: Sequence[str], provider: str, *, required: bool = True, env: Mapping[str, str] | None = None) -> str:
    """The first non-empty key among the environment variables ``names``; ``""`` when optional and absent.

    A required key that is missing is a :class:`ConfigError` naming the variable(s) to set.
    """
    source = os.environ if env is None else env
    for name in names:
        value = source.get(name, "").strip()
        if value:
            return value
    if required:
        wanted = " or ".join(names)
        raise ConfigError(f"{provider} needs an API key: set the environment variable {wanted}")
    return ""
