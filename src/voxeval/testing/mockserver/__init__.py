"""A fault-injecting mock of the OpenAI and Gemini HTTP APIs on 127.0.0.1, for offline end-to-end tests.

>>> from voxeval.testing.mockserver import MockServer
>>> with MockServer(lambda endpoint, body: "hello") as srv:
...     srv.base_url.startswith("http://127.0.0.1:")
True
"""

from voxeval.testing.mockserver._faults import MAX_FAULT_SECONDS, Fault, FaultKind, FaultPlan
from voxeval.testing.mockserver._server import MockServer, RecordedRequest, Responder, echo_responder
from voxeval.testing.mockserver._wav import silence_wav, sine_wav

__all__ = [
    "MAX_FAULT_SECONDS",
    "Fault",
    "FaultKind",
    "FaultPlan",
    "MockServer",
    "RecordedRequest",
    "Responder",
    "echo_responder",
    "silence_wav",
    "sine_wav",
]
