"""``voxeval serve``: any voxeval system behind a local server that speaks the OpenAI Realtime protocol (GA), with
server-side turn detection (Silero VAD) and barge-in; docs/serve.md says what of the protocol is served."""

from voxeval.serve._config import PCM_FORMAT, REALTIME_RATE, ClientError, ServerVad, SessionConfig, apply_update
from voxeval.serve._conversation import Item, build_turn, item_from_event
from voxeval.serve._runner import SystemRunner
from voxeval.serve._server import MAX_MESSAGE_BYTES, MAX_SESSIONS, PATH, RealtimeServer
from voxeval.serve._session import ServeOptions, pace_seconds
from voxeval.serve._vad import SileroStream, SpeechEdge, TurnDetector

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_SESSIONS",
    "PATH",
    "PCM_FORMAT",
    "REALTIME_RATE",
    "ClientError",
    "Item",
    "RealtimeServer",
    "ServeOptions",
    "ServerVad",
    "SessionConfig",
    "SileroStream",
    "SpeechEdge",
    "SystemRunner",
    "TurnDetector",
    "apply_update",
    "build_turn",
    "item_from_event",
    "pace_seconds",
]
