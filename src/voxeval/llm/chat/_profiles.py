"""Model profiles: which sampling and budget parameters each provider's model families accept, in one table.

A request says what the caller wants (``temperature=0`` for a judge, ``max_tokens=512``); the profile decides what
is actually sent, so a model that rejects a parameter never receives it. GPT-5-family and o-series models accept
only the default temperature and spend part of their token budget on reasoning; Gemini 3 is meant to run at
temperature 1.0 with a thinking level; Gemini 2.5 takes a thinking budget. A model the table does not know gets the
provider's documented defaults (no temperature, no reasoning parameter) and a logged warning, never a guess that
fails every call. Spec options (``?temperature=…&reasoning_effort=…&thinking_budget=…&max_tokens=…``) override.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

from voxeval.errors import ConfigError

log = logging.getLogger("voxeval.llm")

Temperature = Literal["request"] | float | None
"""``"request"``: send the request's temperature; a number: send that; ``None``: send none (provider default)."""

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
"""Values of OpenAI's ``reasoning_effort`` (and Gemini 3's ``thinkingLevel``: minimal, low, medium, high)."""


@dataclass(frozen=True)
class ModelProfile:
    """What to send to one model family; :func:`profile_for` resolves it with the spec's overrides."""

    family: str
    """Name of the family in the table (``gpt-5``, ``o-series``, ``gemini-3``…; ``unknown`` when not listed)."""
    known: bool
    """Whether the model matched a row of the table."""
    temperature: Temperature
    """Temperature policy."""
    max_tokens_field: str
    """Name of the output cap field: ``max_completion_tokens``, ``max_tokens`` or ``maxOutputTokens``."""
    reasoning_headroom: int = 0
    """Tokens added to a request's ``max_tokens`` for hidden reasoning (counted in the same budget)."""
    reasoning_effort: str | None = None
    """OpenAI ``reasoning_effort`` sent; ``None`` sends none."""
    thinking_level: str | None = None
    """Gemini 3 ``thinkingConfig.thinkingLevel`` sent; ``None`` sends none."""
    thinking_budget: int | None = None
    """Gemini 2.5 ``thinkingConfig.thinkingBudget`` sent; ``None`` sends none."""
    max_tokens: int | None = None
    """A fixed output cap from the spec (``?max_tokens=``), replacing the request's cap plus headroom."""

    def output_cap(self, requested: int | None) -> int | None:
        """The output cap to send for a request asking for ``requested`` tokens (``None``: send none)."""
        if self.max_tokens is not None:
            return self.max_tokens
        return None if requested is None else requested + self.reasoning_headroom

    def sent_temperature(self, requested: float) -> float | None:
        """The temperature to send for a request asking for ``requested`` (``None``: send none)."""
        return requested if self.temperature == "request" else self.temperature

    def describe(self) -> dict[str, Any]:
        """The profile for ``config.json``: what is sent in place of what the caller asks."""
        return dataclasses.asdict(self)


_P, _MCT, _MOT = ModelProfile, "max_completion_tokens", "maxOutputTokens"
_DATE = r"(-\d{4}-\d{2}-\d{2})?"
_OPENAI_ROWS: tuple[tuple[str, ModelProfile], ...] = (
    (r"gpt-[56](\.\d+)?-chat.*", _P("gpt-5-chat", True, None, _MCT)),
    (r"gpt-[56](\.\d+)?-pro.*", _P("gpt-5-pro", True, None, _MCT, 16384)),
    (r"gpt-5(-mini|-nano)?" + _DATE, _P("gpt-5", True, None, _MCT, 4096, "minimal")),
    (r"gpt-(5\.\d+|6)([.-].*)?", _P("gpt-5.x", True, None, _MCT, 8192, "low")),
    (r"o[1-9](-mini|-pro)?" + _DATE, _P("o-series", True, None, _MCT, 8192, "low")),
    (r"(gpt-audio|gpt-4o(-mini)?-audio).*", _P("gpt-audio", True, "request", _MCT)),
    (r"(gpt-4|gpt-3\.5|chatgpt-4o).*", _P("gpt-4", True, "request", _MCT)),
)
_GEMINI_ROWS: tuple[tuple[str, ModelProfile], ...] = (
    (r"gemini-[3-9].*", _P("gemini-3", True, 1.0, _MOT, 8192, thinking_level="low")),
    (r"gemini-2\.5-pro.*", _P("gemini-2.5-pro", True, "request", _MOT, 8192, thinking_budget=128)),
    (r"gemini-2\.5-flash.*", _P("gemini-2.5-flash", True, "request", _MOT, thinking_budget=0)),
    (r"gemini-(1\.5|2\.0)-.*", _P("gemini-2.0", True, "request", _MOT)),
)
PROFILES: dict[str, tuple[tuple[str, ModelProfile], ...]] = {
    "openai": _OPENAI_ROWS,
    "gemini": _GEMINI_ROWS,
    "openai-compat": ((r".*", ModelProfile("openai-compatible", True, "request", "max_tokens")),),
}
"""Per provider, ``(model regex, profile)`` rows; the first full match wins."""

_UNKNOWN: dict[str, ModelProfile] = {
    "openai": ModelProfile("unknown", False, None, "max_completion_tokens"),
    "gemini": ModelProfile("unknown", False, None, "maxOutputTokens"),
}


def lookup_profile(provider: str, model: str) -> ModelProfile:
    """The table's profile for ``model`` (pure); a model no row matches gets the provider's defaults."""
    name = model.removeprefix("models/")
    for pattern, profile in PROFILES.get(provider, ()):
        if re.fullmatch(pattern, name):
            return profile
    if provider not in _UNKNOWN:
        raise ConfigError(f"no model profiles for provider {provider!r}")
    return _UNKNOWN[provider]


def _overridden(provider: str, profile: ModelProfile, overrides: dict[str, Any]) -> ModelProfile:
    changes: dict[str, Any] = {}
    if overrides.get("temperature") is not None:
        changes["temperature"] = overrides["temperature"]
    if overrides.get("max_tokens") is not None:
        changes["max_tokens"] = overrides["max_tokens"]
    effort = overrides.get("reasoning_effort")
    if effort is not None:
        key = "thinking_level" if provider == "gemini" else "reasoning_effort"
        changes[key] = None if effort == "default" else effort
        if provider == "gemini":
            changes["thinking_budget"] = None
    budget = overrides.get("thinking_budget")
    if budget is not None:
        if provider != "gemini":
            raise ConfigError(f"option thinking_budget applies to gemini models, not {provider}")
        changes.update(thinking_budget=budget, thinking_level=None)
    return dataclasses.replace(profile, **changes)


def profile_for(provider: str, model: str, overrides: dict[str, Any], spec: str) -> ModelProfile:
    """The profile for ``model`` with the spec's overrides; logs a warning for a model the table does not know."""
    profile = lookup_profile(provider, model)
    if not profile.known:
        log.warning(
            "voxeval: %s: model %r is not in the model profile table; sending %s's documented defaults "
            "(no temperature, no reasoning parameter); override with ?temperature=…&reasoning_effort=…",
            spec,
            model,
            provider,
        )
    return _overridden(provider, profile, overrides)
