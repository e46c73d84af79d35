"""voxeval's own speech detection on the model channel: the Silero VAD that faster-whisper bundles.

Limits (docs/duplex.md): Silero is trained on speech, so laughter, breaths and music may or may not count; speech
padded with less than :data:`MIN_SILENCE_MS` of silence is one stretch; the model runs on 16 kHz, so times are
good to a 32 ms window (its frame), not to a sample.
"""

from __future__ import annotations

import numpy as np

from voxeval.duplex._events import Span
from voxeval.errors import MissingDependencyError

VAD_RATE = 16_000
"""Rate Silero VAD runs at."""
MIN_SILENCE_MS = 300
"""Silence that ends a stretch of speech (as :data:`~voxeval.duplex.MERGE_GAP_S` for the server's audio)."""
MIN_SPEECH_MS = 100
"""Shorter blips are not speech."""
THRESHOLD = 0.5
"""Silero's speech probability threshold (its default)."""


def vad_settings() -> dict[str, object]:
    """What determines the spans (recorded beside the figures)."""
    return {
        "vad": "silero (faster-whisper)",
        "threshold": THRESHOLD,
        "min_silence_ms": MIN_SILENCE_MS,
        "min_speech_ms": MIN_SPEECH_MS,
    }


def speech_spans(pcm: np.ndarray, rate: int, *, offset_s: float = 0.0) -> list[Span]:
    """Where Silero VAD hears speech in mono ``pcm`` (int16, or float in [-1, 1]) at ``rate``, in seconds from
    ``offset_s``. Silence (all zeros, or empty) gives no spans."""
    try:
        from faster_whisper.vad import VadOptions, get_speech_timestamps
    except ImportError:
        raise MissingDependencyError("speech detection on the model channel", "asr", "faster-whisper") from None
    from voxeval.speech.audio import Audio, resample

    samples = np.asarray(pcm)
    if samples.ndim != 1:
        raise ValueError(f"speech_spans needs mono audio, got shape {samples.shape}")
    if samples.size == 0 or not np.any(samples):
        return []  # nothing to hear; Silero is not asked about digital silence
    floats = samples.astype(np.float32) / 32768.0 if samples.dtype.kind == "i" else samples.astype(np.float32)
    audio = resample(Audio(floats, rate), VAD_RATE).samples
    options = VadOptions(
        threshold=THRESHOLD,
        min_silence_duration_ms=MIN_SILENCE_MS,
        min_speech_duration_ms=MIN_SPEECH_MS,
        speech_pad_ms=0,
    )
    return [
        Span(offset_s + c["start"] / VAD_RATE, offset_s + c["end"] / VAD_RATE)
        for c in get_speech_timestamps(audio, options)
    ]
