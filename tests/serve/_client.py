"""A raw Realtime client for the served tests: every server event it receives is checked against the ``openai``
SDK's ``RealtimeServerEvent`` types."""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import pytest

KEY = "sk-served-test"
"""The key the test server requires."""
RATE = 24_000
SERVER_EVENT: Any = pytest.importorskip("pydantic").TypeAdapter(
    pytest.importorskip("openai.types.realtime").RealtimeServerEvent
)
"""Every server event a raw client receives is validated as the SDK's ``RealtimeServerEvent`` union."""


class Client:
    """A raw Realtime client: sends events, records every server event with its arrival order."""

    def __init__(self, url: str) -> None:
        from websockets.sync.client import connect

        self.ws = connect(f"{url}?model=m", additional_headers={"Authorization": f"Bearer {KEY}"}).__enter__()
        self.events: list[dict[str, Any]] = []
        assert self.next()["type"] == "session.created"

    def send(self, event: dict[str, Any]) -> None:
        self.ws.send(json.dumps(event))

    def audio(self, pcm: np.ndarray) -> None:
        """In 100 ms appends (faster than real time: the server's VAD runs on audio time)."""
        data = pcm.astype("<i2").tobytes()
        for i in range(0, len(data), 4800):
            self.send({"type": "input_audio_buffer.append", "audio": base64.b64encode(data[i : i + 4800]).decode()})

    def next(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next server event, checked against the ``openai`` SDK's type of it (names, required fields, types)."""
        event: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        SERVER_EVENT.validate_python(event)
        self.events.append(event)
        return event

    def until(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        while (event := self.next(timeout))["type"] != kind:
            pass
        return event

    def close(self) -> None:
        self.ws.close()


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE), dtype="<i2")
