"""A scenario driven against a ``realtime:`` / ``live:`` system's session model: the wire of its protocol, its
concurrency limit, and the whole scenario retried on a transient failure within the model's attempt budget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voxeval.duplex import Clip, Scenario
from voxeval.errors import ConfigError
from voxeval.llm._http import redact_error
from voxeval.llm._retry import with_retries
from voxeval.llm._types import ProviderError
from voxeval.llm.stream._driver import Take, stream_scenario
from voxeval.llm.stream._options import StreamSettings, TurnDetection
from voxeval.llm.stream._wire import GeminiWire, OpenAIWire, Wire


def wire_for(model: Any, detection: TurnDetection) -> Wire:
    """The wire of a :class:`~voxeval.llm.SessionModel` 's protocol (OpenAI Realtime or Gemini Live)."""
    protocol = model.protocol
    where = protocol.url().split("?", 1)[0]
    if protocol.provider == "openai-realtime":
        return OpenAIWire(protocol.realtime.voice, detection, where)
    if protocol.provider == "gemini-live":
        return GeminiWire(protocol.model, protocol.live.voice, detection, where)
    raise ConfigError(f"a duplex session needs a realtime:openai: or live:gemini: system, not {protocol.provider}")


async def drive(
    model: Any,
    scenario: Scenario,
    clips: Sequence[Clip],
    detection: TurnDetection,
    settings: StreamSettings,
    instructions: str,
) -> Take:
    """Stream ``scenario`` into a fresh session of ``model``; a dropped socket (any retryable
    :class:`ProviderError`) reruns the whole scenario in a new session, up to the model's retry budget. Each attempt
    starts from nothing, so a take never mixes two sessions. Raises the last error, key redacted."""
    attempts = 0

    async def attempt() -> Take:
        nonlocal attempts
        async with model.limiter:
            attempts += 1
            model.attempts += 1
            protocol = model.protocol
            return await stream_scenario(
                scenario,
                clips,
                wire_for(model, detection),
                url=protocol.url(),
                headers=protocol.headers(),
                timeouts=model.options.timeouts,
                settings=settings,
                instructions=instructions,
            )

    try:
        take = await with_retries(attempt, model.policy, model.sleep)
    except ProviderError as error:
        raise redact_error(error, model._secrets) from None
    take.attempts = attempts
    return take
