"""The session's stereo recording: user audio as sent (left) and model audio as played (right) on one timeline.

Pure: arrays in, arrays (or WAV bytes) out. The driver keeps the PCM of every frame it sent and every chunk it
received, in event order, and hands them over with the events when the session ends.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

import numpy as np

from voxeval.duplex._events import Event, ModelAudioReceived, UserAudioSent
from voxeval.duplex._timeline import playout

RECORDING_RATE = 24_000
"""Sample rate of the recording, Hz (the input format's; realtime APIs send and take 24 kHz PCM)."""
SPEECH_LEVEL = 33
"""|sample| at or above which a clip's sample counts as sound (about -60 dBFS) in :func:`speech_bounds`."""


def _pcm(chunk: bytes | np.ndarray) -> np.ndarray:
    return np.frombuffer(chunk, dtype="<i2") if isinstance(chunk, bytes) else np.asarray(chunk, dtype="<i2")


def _check_lengths(
    kind: str, events: Sequence[UserAudioSent | ModelAudioReceived], chunks: list[np.ndarray], rate: int
) -> None:
    if len(events) != len(chunks):
        raise ValueError(f"{len(events)} {kind} events but {len(chunks)} PCM chunks")
    for k, (event, pcm) in enumerate(zip(events, chunks, strict=True)):
        if abs(pcm.size - event.duration_s * rate) > 1:
            raise ValueError(f"{kind} chunk {k}: {pcm.size} samples, but its event says {event.duration_s} s")


def _place(channel: np.ndarray, start_s: float, pcm: np.ndarray, rate: int) -> None:
    start = round(start_s * rate)
    end = min(channel.size, start + pcm.size)
    channel[start:end] += pcm[: end - start]


def stereo_recording(
    events: Sequence[Event],
    user: Sequence[bytes | np.ndarray],
    model: Sequence[bytes | np.ndarray],
    rate: int = RECORDING_RATE,
) -> np.ndarray:
    """An ``(n, 2)`` int16 array: each user frame at the time it was sent (left), each model chunk where it plays
    (right, :func:`~voxeval.duplex.playout`: queued back to back, cut by a flush). ``n`` covers every event and
    every sample placed. ``user`` / ``model`` hold the PCM (16-bit mono at ``rate``) of the user-audio and
    model-audio events, in event order; a count or length that does not match its event is a ``ValueError``.
    Overlapping user frames (sent faster than real time) are mixed, clipped to 16 bits."""
    sent = [e for e in events if isinstance(e, UserAudioSent)]
    received = [e for e in events if isinstance(e, ModelAudioReceived)]
    user_pcm, model_pcm = [_pcm(c) for c in user], [_pcm(c) for c in model]
    _check_lengths("user audio", sent, user_pcm, rate)
    _check_lengths("model audio", received, model_pcm, rate)
    played = playout(events)
    ends = [e.t for e in events] + [e.t + p.size / rate for e, p in zip(sent, user_pcm, strict=True)]
    ends += [p.span.start + model_pcm[p.chunk].size / rate for p in played]
    n = math.ceil(max(ends, default=0.0) * rate) + 1
    mix = np.zeros((2, n), dtype=np.int32)
    for event, pcm in zip(sent, user_pcm, strict=True):
        _place(mix[0], event.t, pcm, rate)
    for p in played:
        pcm = model_pcm[p.chunk]
        if p.span.duration < pcm.size / rate - 0.5 / rate:  # cut by a flush: only what played before it
            pcm = pcm[: round(p.span.duration * rate)]
        _place(mix[1], p.span.start, pcm, rate)
    return np.clip(mix, -32768, 32767).astype("<i2").T.copy()


def encode_stereo_wav(frames: np.ndarray, rate: int = RECORDING_RATE) -> bytes:
    """A canonical 44-byte-header 16-bit PCM WAV of ``(n, 2)`` int16 frames."""
    data = np.ascontiguousarray(frames, dtype="<i2")
    if data.ndim != 2 or data.shape[1] != 2:
        raise ValueError(f"a stereo recording is (n, 2), got shape {data.shape}")
    body = data.tobytes()
    fmt = struct.pack("<HHIIHH", 1, 2, rate, rate * 4, 4, 16)
    return (
        b"RIFF"
        + struct.pack("<I", 36 + len(body))
        + b"WAVEfmt "
        + struct.pack("<I", 16)
        + fmt
        + b"data"
        + struct.pack("<I", len(body))
        + body
    )


def speech_bounds(pcm: bytes | np.ndarray, rate: int = RECORDING_RATE) -> tuple[float, float] | None:
    """Seconds from a clip's start to its first and past its last sample of sound (≥ :data:`SPEECH_LEVEL`):
    where its speech starts and ends, for the scenario markers. ``None`` for a silent clip.

    >>> speech_bounds(np.array([0, 0, 500, -400, 0], dtype="<i2"), rate=10)
    (0.2, 0.4)
    """
    loud = np.flatnonzero(np.abs(_pcm(pcm).astype(np.int32)) >= SPEECH_LEVEL)
    if loud.size == 0:
        return None
    return float(loud[0] / rate), float((loud[-1] + 1) / rate)
