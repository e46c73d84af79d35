"""The streaming driver of full-duplex sessions (issue 42): a scenario spoken at real-time pace into a
``realtime:openai:`` or ``live:gemini:`` session with the server's own turn detection on, every event recorded on
the client's clock (docs/duplex.md)."""

from voxeval.llm.stream._drive import drive, wire_for
from voxeval.llm.stream._driver import Take, model_seconds, stream_scenario
from voxeval.llm.stream._options import (
    GEMINI_KEYS,
    OPENAI_KEYS,
    StreamSettings,
    TurnDetection,
    turn_detection,
)
from voxeval.llm.stream._wire import GeminiWire, OpenAIWire, Wire, to_rate

__all__ = [
    "GEMINI_KEYS",
    "OPENAI_KEYS",
    "GeminiWire",
    "OpenAIWire",
    "StreamSettings",
    "Take",
    "TurnDetection",
    "Wire",
    "drive",
    "model_seconds",
    "stream_scenario",
    "to_rate",
    "turn_detection",
    "wire_for",
]
