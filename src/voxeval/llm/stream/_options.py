"""Turn-detection options of a streamed session and the driver's own bounds, parsed purely from ``KEY=VALUE``.

Field names are the providers' own (``openai.types.realtime`` ``ServerVad`` / ``SemanticVad``;
``google.genai.types.AutomaticActivityDetection`` and ``RealtimeInputConfig.activity_handling``).

>>> turn_detection(["silence_duration_ms=400", "threshold=0.6"]).openai()["silence_duration_ms"]
400
>>> turn_detection(["end_sensitivity=low"]).gemini()["automaticActivityDetection"]["endOfSpeechSensitivity"]
'END_SENSITIVITY_LOW'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from voxeval.errors import ConfigError

VadType = Literal["server_vad", "semantic_vad"]
"""OpenAI's two turn detectors."""

OPENAI_KEYS = ("type", "threshold", "prefix_padding_ms", "silence_duration_ms", "eagerness", "interrupt_response")
"""``--turn-detection`` keys a ``realtime:openai:`` session takes."""
GEMINI_KEYS = ("start_sensitivity", "end_sensitivity", "prefix_padding_ms", "silence_duration_ms", "activity_handling")
"""``--turn-detection`` keys a ``live:gemini:`` session takes."""
_HANDLING = {"interrupts": "START_OF_ACTIVITY_INTERRUPTS", "no_interruption": "NO_INTERRUPTION"}


@dataclass(frozen=True)
class TurnDetection:
    """The session's own turn detection, switched on; ``None`` fields leave the provider's default."""

    type: VadType = "server_vad"
    """OpenAI: ``server_vad`` (silence based) or ``semantic_vad`` (a model of the user's words)."""
    threshold: float | None = None
    """OpenAI ``server_vad``: activation threshold, 0–1."""
    prefix_padding_ms: int | None = None
    """Audio kept before detected speech (both providers)."""
    silence_duration_ms: int | None = None
    """Silence that ends the user's turn (OpenAI ``server_vad``; Gemini ``silenceDurationMs``)."""
    eagerness: Literal["low", "medium", "high", "auto"] | None = None
    """OpenAI ``semantic_vad``: how eagerly it takes the turn."""
    interrupt_response: bool = True
    """OpenAI: the user's speech cancels a reply in progress (the client flushes its playback on it)."""
    start_sensitivity: Literal["high", "low"] | None = None
    """Gemini ``startOfSpeechSensitivity``."""
    end_sensitivity: Literal["high", "low"] | None = None
    """Gemini ``endOfSpeechSensitivity``."""
    activity_handling: Literal["interrupts", "no_interruption"] | None = None
    """Gemini ``activityHandling``: ``START_OF_ACTIVITY_INTERRUPTS`` or ``NO_INTERRUPTION``."""

    def openai(self) -> dict[str, Any]:
        """The ``session.audio.input.turn_detection`` object (pure)."""
        if self.type == "semantic_vad" and (self.threshold is not None or self.silence_duration_ms is not None):
            raise ConfigError("--turn-detection: threshold and silence_duration_ms apply to server_vad only")
        if self.type == "server_vad" and self.eagerness is not None:
            raise ConfigError("--turn-detection: eagerness applies to type=semantic_vad only")
        out: dict[str, Any] = {
            "type": self.type,
            "create_response": True,
            "interrupt_response": self.interrupt_response,
        }
        for name in ("threshold", "prefix_padding_ms", "silence_duration_ms", "eagerness"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def gemini(self) -> dict[str, Any]:
        """The ``setup.realtimeInputConfig`` object (pure)."""
        detection: dict[str, Any] = {"disabled": False}
        if self.start_sensitivity:
            detection["startOfSpeechSensitivity"] = f"START_SENSITIVITY_{self.start_sensitivity.upper()}"
        if self.end_sensitivity:
            detection["endOfSpeechSensitivity"] = f"END_SENSITIVITY_{self.end_sensitivity.upper()}"
        if self.prefix_padding_ms is not None:
            detection["prefixPaddingMs"] = self.prefix_padding_ms
        if self.silence_duration_ms is not None:
            detection["silenceDurationMs"] = self.silence_duration_ms
        config: dict[str, Any] = {"automaticActivityDetection": detection}
        if self.activity_handling:
            config["activityHandling"] = _HANDLING[self.activity_handling]
        return config

    def interrupts(self, provider: str) -> bool:
        """Whether the server cancels a reply when the user speaks (then the client flushes its playback)."""
        if provider == "gemini":
            return self.activity_handling != "no_interruption"
        return self.interrupt_response

    def given(self) -> dict[str, Any]:
        """The options set, for ``config.json``."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


def _value(key: str, raw: str) -> Any:
    choices = {
        "type": ("server_vad", "semantic_vad"),
        "eagerness": ("low", "medium", "high", "auto"),
        "start_sensitivity": ("high", "low"),
        "end_sensitivity": ("high", "low"),
        "activity_handling": tuple(_HANDLING),
        "interrupt_response": ("true", "false"),
    }
    if key in choices:
        if raw not in choices[key]:
            raise ConfigError(f"--turn-detection {key}={raw!r}: expected one of {', '.join(choices[key])}")
        return raw == "true" if key == "interrupt_response" else raw
    try:
        number = float(raw) if key == "threshold" else int(raw)
    except ValueError:
        raise ConfigError(f"--turn-detection {key}={raw!r}: expected a number") from None
    if key == "threshold" and not 0.0 <= number <= 1.0:
        raise ConfigError(f"--turn-detection threshold={raw!r}: must be in [0, 1]")
    if key != "threshold" and not 0 <= number <= 10_000:
        raise ConfigError(f"--turn-detection {key}={raw!r}: must be 0–10000 ms")
    return number


def turn_detection(items: Iterable[str]) -> TurnDetection:
    """``KEY=VALUE`` items (``--turn-detection``) as :class:`TurnDetection`; an unknown key, a bad value or a
    key given twice is a :class:`ConfigError`."""
    values: dict[str, Any] = {}
    known = dict.fromkeys((*OPENAI_KEYS, *GEMINI_KEYS))
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or key not in known:
            raise ConfigError(f"--turn-detection {item!r}: expected KEY=VALUE with KEY one of {', '.join(known)}")
        if key in values:
            raise ConfigError(f"--turn-detection {key} given twice")
        values[key] = _value(key, raw.strip())
    return TurnDetection(**values)


@dataclass(frozen=True)
class StreamSettings:
    """How the driver streams and when it gives up (none of these are sent to the server)."""

    frame_ms: int = 20
    """Milliseconds of user audio per frame, 20–100."""
    answer_timeout_s: float = 8.0
    """Silence streamed after the user's last word (or while waiting for a reply to anchor the next segment)
    before the session ends as ``timeout``: a session that never detects the end of the turn ends here."""
    bound_s: float = 90.0
    """Longest session; a server that keeps talking is cut here (outcome ``bound``)."""
    settle_s: float = 1.0
    """Listening kept after the final reply completed and played, so a restart is still recorded."""

    def __post_init__(self) -> None:
        if not 20 <= self.frame_ms <= 100:
            raise ConfigError(f"frames of {self.frame_ms} ms: the driver sends frames of 20–100 ms")
        if not 0 < self.answer_timeout_s < self.bound_s:
            raise ConfigError("the answer timeout must be positive and below the session bound")
        if not 0 <= self.settle_s <= 10:
            raise ConfigError(f"settle_s={self.settle_s}: must be 0–10 s")
