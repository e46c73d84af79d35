"""How fast a system answered: the ``latency`` record of a reply row (pure, but for reading a WAV header).

Clocks: ``time.perf_counter`` (monotonic), on the client (voxeval's process), network included. A streaming system
measures its own times from the end of its input (:class:`voxeval.systems.ReplyTiming`); for a request/response
system (``Reply.timing is None``) the reply stage times the whole ``respond`` call, so the first audio and the first
text arrive, as far as voxeval can see, when the whole response does: ``first_audio_s = first_text_s = total_s``.
"""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from voxeval.systems import ReplyTiming

TimedBy = Literal["system", "call"]
"""Who measured: the streaming ``system`` itself, or the reply stage around the whole ``call``."""

LATENCY_FIELDS = ("first_audio_s", "first_text_s", "total_s", "audio_s", "rtf")
"""The fields of a reply's ``latency`` record, in report order."""


@dataclass(frozen=True)
class Latency:
    """The ``latency`` of one reply row. ``None``: not observed (no audio, no text, no timing)."""

    first_audio_s: float | None
    """Seconds from the end of the input to the first byte of reply audio."""
    first_text_s: float | None
    """Seconds from the end of the input to the first reply text."""
    total_s: float | None
    """Seconds from the end of the input to the end of the reply."""
    audio_s: float | None
    """Duration of the reply audio, seconds."""
    rtf: float | None
    """Real-time factor: ``total_s / audio_s`` (below 1: the reply was produced faster than it plays)."""
    timed_by: TimedBy
    """``system`` (streaming timings of the system) or ``call`` (the reply stage timed the whole call)."""

    def to_json(self) -> dict[str, Any]:
        """The row's ``latency`` object (seconds rounded to the millisecond, the RTF to 4 places)."""
        raw = asdict(self)
        return {k: (round(v, 4 if k == "rtf" else 3) if isinstance(v, float) else v) for k, v in raw.items()}


def measure_latency(
    timing: ReplyTiming | None, call_s: float, *, has_text: bool, has_audio: bool, audio_s: float | None
) -> Latency:
    """The latency record of a reply: the system's own timings, else the whole call's duration.

    ``has_audio``: the reply has audio bytes (``audio_s`` is ``None`` when they cannot be decoded).

    >>> measure_latency(None, 1.5, has_text=True, has_audio=False, audio_s=None).to_json()
    {'first_audio_s': None, 'first_text_s': 1.5, 'total_s': 1.5, 'audio_s': None, 'rtf': None, 'timed_by': 'call'}
    >>> measure_latency(ReplyTiming(0.3, 0.2, 2.0), 2.1, has_text=True, has_audio=True, audio_s=4.0).rtf
    0.5
    """
    if timing is None:
        first_audio = call_s if has_audio else None
        first_text = call_s if has_text else None
        total: float | None = call_s
        by: TimedBy = "call"
    else:
        first_audio, first_text, total = (_seconds(timing, n) for n in ("first_audio_s", "first_text_s", "total_s"))
        by = "system"
    rtf = total / audio_s if total is not None and audio_s else None  # 0 s of audio has no real-time factor
    return Latency(first_audio, first_text, total, audio_s, rtf, by)


def _seconds(timing: ReplyTiming, name: str) -> float | None:
    """A system's reported time, checked: a finite number of seconds ≥ 0, or ``None`` (not observed)."""
    value = getattr(timing, name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise ValueError(f"Reply.timing.{name} must be a finite number of seconds ≥ 0 or None, got {value!r}")
    return float(value)


def audio_seconds(wav: bytes) -> float | None:
    """Duration of reply audio: PCM WAV from its header, other formats through soundfile (the ``audio`` extra).

    ``None`` when it cannot be decoded (the reply's ASR then fails with the decoder's reason, so the row says why)
    or when a non-WAV format meets an install without soundfile: the duration is then unknown, never 0.
    """
    import wave

    try:
        with wave.open(io.BytesIO(wav)) as handle:
            rate = handle.getframerate()
            return handle.getnframes() / rate if rate else None
    except (wave.Error, EOFError):
        pass  # not PCM WAV (float WAV, FLAC, MP3, …)
    try:
        import soundfile
    except ImportError:
        return None
    try:
        info = soundfile.info(io.BytesIO(wav))
    except (RuntimeError, TypeError, ValueError):
        return None
    return float(info.frames) / float(info.samplerate) if info.samplerate else None
