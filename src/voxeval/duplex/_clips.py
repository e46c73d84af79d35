"""A segment's audio and when to send it: the one place the plan's speech-onset times become send times.

:func:`send_start` and :func:`speech_markers` are pure; :func:`render_clip` is the edge that reads input audio or
synthesises text (the driver passes in how).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from voxeval.duplex._events import UserSpeech
from voxeval.duplex._recording import RECORDING_RATE, speech_bounds
from voxeval.duplex._scenario import InputAudio, Segment
from voxeval.errors import InputError, Location


@dataclass(frozen=True)
class Clip:
    """A segment's audio, ready to stream."""

    pcm: bytes
    """16-bit little-endian mono PCM at :data:`~voxeval.duplex.RECORDING_RATE`."""
    onset_s: float
    """Where its speech starts, seconds from the clip's start."""
    offset_s: float
    """Where its speech ends."""

    @property
    def duration_s(self) -> float:
        """Length of the clip."""
        return len(self.pcm) / 2 / RECORDING_RATE


def send_start(
    segment: Segment, clip: Clip, *, previous_offset: float | None, reply_onset: float | None, not_before: float
) -> float | None:
    """When to send the clip's first sample so that its speech starts ``segment.send.offset_s`` after the anchor,
    but never before ``not_before`` (the end of the previous clip: frames are never mixed). ``None`` while the
    anchor has not happened (no reply yet: the segment waits, and is never sent if no reply comes).

    >>> from voxeval.duplex import SendAt, SpokenText
    >>> tail = Segment("request_tail", SpokenText("教えて", "ja"), SendAt("previous_offset", 1.5))
    >>> send_start(tail, Clip(b"", 0.12, 0.9), previous_offset=2.0, reply_onset=None, not_before=2.12)
    3.38
    """
    anchors = {"start": 0.0, "previous_offset": previous_offset, "reply_onset": reply_onset}
    anchor = anchors[segment.send.anchor]
    if anchor is None:
        return None
    return round(max(not_before, anchor + segment.send.offset_s - clip.onset_s), 6)


def speech_markers(index: int, start: float, clip: Clip) -> tuple[UserSpeech, UserSpeech]:
    """The planned onset and offset markers of segment ``index`` whose clip is sent from ``start``."""
    return UserSpeech(start + clip.onset_s, "onset", index), UserSpeech(start + clip.offset_s, "offset", index)


def _clip(pcm: np.ndarray, what: str) -> Clip:
    bounds = speech_bounds(pcm, RECORDING_RATE)
    if bounds is None:
        raise InputError(Location(field=what), "the clip is silent: no speech to send")
    return Clip(pcm.astype("<i2").tobytes(), *bounds)


def render_clip(segment: Segment, input_wav: Callable[[InputAudio], bytes], engine_for: Callable[[str], Any]) -> Clip:
    """The segment's audio: the sample's input audio (``input_wav``: its WAV bytes, e.g. from ``inputs.jsonl``),
    or the text synthesised by ``engine_for(language)`` (a :class:`~voxeval.speech.tts.TTSEngine`) into the input
    format. A silent clip is an :class:`InputError`, never sent as nothing."""
    from voxeval.speech.audio import decode_audio, input_format_pcm, quantize_int16
    from voxeval.speech.tts import VoiceStyle

    audio = segment.audio
    if isinstance(audio, InputAudio):
        what = f"{audio.dataset}/{audio.sample_id}"
        loaded = decode_audio(input_wav(audio), Location(field=what), sample_rate=RECORDING_RATE)
        return _clip(quantize_int16(loaded.audio.samples), what)
    spoken = engine_for(audio.language).synthesize(audio.text, VoiceStyle())
    return _clip(input_format_pcm(spoken), f"{segment.role}: {audio.text}")
