"""Server-side turn detection on the incoming 24 kHz PCM: Silero VAD (the one faster-whisper bundles) run in
streaming 32 ms windows, and the ``server_vad`` rule over its probabilities (pure, tested on hand-made ones).

The rule, as the API documents ``server_vad`` and as Silero's own ``get_speech_timestamps`` decides: speech starts
at the first window whose probability reaches ``threshold``; once speaking, a window below ``threshold - 0.15``
begins a silence, a window at or above ``threshold`` ends it, and ``silence_duration_ms`` of it ends the turn. A
single loud 32 ms window is enough to start speech (no minimum speech length), as the API's VAD.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voxeval.errors import MissingDependencyError
from voxeval.serve._config import REALTIME_RATE, ServerVad

VAD_RATE = 16_000
"""Rate Silero runs at."""
WINDOW = 512
"""Samples of one Silero window at 16 kHz (32 ms)."""
CONTEXT = 64
"""Samples before a window the model also hears."""
WINDOW_MS = WINDOW * 1000 / VAD_RATE
"""Milliseconds of one window."""
NEG_OFFSET = 0.15
"""Silence is a probability below ``threshold - NEG_OFFSET`` (Silero's own hysteresis)."""


@dataclass(frozen=True)
class SpeechEdge:
    """The user started or stopped speaking, in ms of all audio appended in the session."""

    kind: str
    """``started`` or ``stopped``."""
    at_ms: int
    """``started``: where the speech begins; ``stopped``: where the silence that ended it was complete."""
    speech_start_ms: int = 0
    """``stopped``: where its speech began."""


class TurnDetector:
    """The ``server_vad`` rule over one probability per window (pure; no model)."""

    def __init__(self, vad: ServerVad) -> None:
        self.vad = vad
        self.speaking = False
        self._start_ms = 0
        self._silence_ms: float | None = None

    def feed(self, probabilities: list[float], first_window: int) -> list[SpeechEdge]:
        """The edges in these windows (``first_window``: the index of the first since the session began)."""
        edges = []
        low = max(self.vad.threshold - NEG_OFFSET, 0.01)
        for i, p in enumerate(probabilities):
            start = (first_window + i) * WINDOW_MS
            if not self.speaking:
                if p >= self.vad.threshold:
                    self.speaking, self._start_ms, self._silence_ms = True, round(start), None
                    edges.append(SpeechEdge("started", self._start_ms))
                continue
            if p >= self.vad.threshold:
                self._silence_ms = None
            elif p < low and self._silence_ms is None:
                self._silence_ms = start
            end = start + WINDOW_MS
            if self._silence_ms is not None and end - self._silence_ms >= self.vad.silence_duration_ms:
                self.speaking = False
                edges.append(SpeechEdge("stopped", round(end), self._start_ms))
        return edges

    def reset(self) -> None:
        """Forget a speech in progress (the buffer was committed or cleared by the client)."""
        self.speaking, self._silence_ms = False, None


class SileroStream:
    """Speech probabilities of a stream of 24 kHz 16-bit PCM, one per 32 ms window, as it arrives.

    faster-whisper's Silero model carries an LSTM state from window to window and gives each window the 64 samples
    before it as context; both are carried here across calls, so streaming scores what scoring the whole clip at once
    would (tested). The model is driven through its ONNX session (``SileroVADModel.session``), whose ``__call__``
    starts every call from a zero state.
    """

    def __init__(self) -> None:
        try:
            import soxr
            from faster_whisper.vad import get_vad_model
        except ImportError:
            raise MissingDependencyError("server-side turn detection (Silero VAD)", "asr", "faster-whisper") from None
        self._model = get_vad_model()
        self._resampler = soxr.ResampleStream(REALTIME_RATE, VAD_RATE, 1, dtype="float32", quality="HQ")
        self._pending = np.zeros(0, dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)
        self._state = (np.zeros((1, 1, 128), dtype=np.float32), np.zeros((1, 1, 128), dtype=np.float32))
        self.windows = 0
        """Windows scored so far."""

    def feed(self, pcm: bytes) -> list[float]:
        """The probabilities of the windows ``pcm`` completes (none while a window is still filling)."""
        samples = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype="<i2").astype(np.float32) / 32768.0
        self._pending = np.concatenate([self._pending, self._resampler.resample_chunk(samples)])
        count = len(self._pending) // WINDOW
        if count == 0:
            return []
        windows, self._pending = self._pending[: count * WINDOW], self._pending[count * WINDOW :]
        rows = windows.reshape(count, WINDOW)
        contexts = np.concatenate([self._context[None, :], rows[:-1, -CONTEXT:]])
        h, c = self._state
        scores, h, c = self._model.session.run(None, {"input": np.concatenate([contexts, rows], 1), "h": h, "c": c})
        self._context, self._state = rows[-1, -CONTEXT:].copy(), (h, c)
        self.windows += count
        return [float(s) for s in np.asarray(scores).reshape(-1)]
