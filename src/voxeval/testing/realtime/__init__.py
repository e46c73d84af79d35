"""A mock of the OpenAI Realtime and Gemini Live WebSocket APIs on 127.0.0.1, with deterministic faults.

>>> from voxeval.testing.realtime import RealtimeMockServer
>>> with RealtimeMockServer() as srv:
...     srv.openai_url.startswith("ws://127.0.0.1:")
True
"""

from voxeval.testing.realtime._faults import FAULTS, SessionFault, SessionFaultPlan
from voxeval.testing.realtime._hostile import Hostility
from voxeval.testing.realtime._protocols import OUTPUT_RATE, MockReply, MockSaid, MockTurn, Pacing
from voxeval.testing.realtime._server import (
    GEMINI_PATH,
    OPENAI_PATH,
    RealtimeMockServer,
    RecordedSession,
    Responder,
    default_responder,
    tone,
)

__all__ = [
    "FAULTS",
    "GEMINI_PATH",
    "OPENAI_PATH",
    "OUTPUT_RATE",
    "Hostility",
    "MockReply",
    "MockSaid",
    "MockTurn",
    "Pacing",
    "RealtimeMockServer",
    "RecordedSession",
    "Responder",
    "SessionFault",
    "SessionFaultPlan",
    "default_responder",
    "tone",
]
