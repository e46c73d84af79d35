"""Turn-taking figures: pure functions over one :class:`SessionRecord`, each saying which evidence it used.

``server`` evidence is the model's received audio as the client plays it (:func:`~voxeval.duplex.playout`) and the
server's own events; ``vad`` evidence is voxeval's VAD on the recorded model channel (``record.model_speech``).
Both are kept; neither is a fallback for the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from voxeval.duplex._events import ServerEvent, Span
from voxeval.duplex._record import SessionRecord
from voxeval.duplex._scenario import SegmentRole
from voxeval.duplex._timeline import first_from, model_audio_spans, playout, user_speech

Evidence = Literal["server", "vad"]
"""Where a figure's model speech comes from."""

TAKEOVER_MIN_S = 1.0
"""A reply started during a pause takes the turn when it lasts at least this long (Full-Duplex-Bench) …"""
TAKEOVER_MIN_WORDS = 3
"""… or says more than this many words (server evidence only: the transcript of its response)."""
CJK_CHARS_PER_WORD = 2
"""Japanese and Mandarin are not written with spaces: their letters are counted as one word per this many."""
STOP_WINDOW_S = 2.0
"""After an interruption's onset, the model's speech must end within this long to count as stopped."""
CONTINUE_S = 1.0
"""After a backchannel ends, the model's speech must go on at least this long to count as continuing."""
RESTART_WINDOW_S = 2.0
"""Speech that starts again within this long of a stop after a backchannel is a restart."""

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def model_speech(record: SessionRecord, evidence: Evidence) -> list[Span]:
    """The model's speech by ``evidence``; ``vad`` on a record without VAD spans is an error, never a fallback."""
    if evidence == "server":
        return model_audio_spans(record.events)
    if record.model_speech is None:
        raise ValueError(f"session {record.id!r}: no VAD spans on the model channel (run the VAD before the figures)")
    return list(record.model_speech)


def speech_of(record: SessionRecord, *roles: SegmentRole) -> list[Span]:
    """The planned speech of the segments with ``roles`` that were sent, in order."""
    spans = user_speech(record.events)
    return [spans[k] for k, s in enumerate(record.scenario.segments) if s.role in roles and k in spans]


def word_count(text: str) -> int:
    """Words in a transcript: spaced words, plus CJK letters at :data:`CJK_CHARS_PER_WORD` a word.

    >>> word_count("Sure, I can help"), word_count("はい、分かりました")
    (4, 4)
    """
    cjk = len(_CJK.findall(text))
    spaced = [w for w in _CJK.sub(" ", text).split() if any(ch.isalnum() for ch in w)]
    return len(spaced) + -(-cjk // CJK_CHARS_PER_WORD)


@dataclass(frozen=True)
class OnsetLatency:
    """End of the user's speech → the model's first speech after it."""

    evidence: Evidence
    """What the model's speech was read from."""
    status: Literal["measured", "early", "no_reply", "not_sent"]
    """``early``: the model began during the user's speech (no latency then); ``no_reply``: it never spoke after."""
    latency_s: float | None
    """Seconds, ≥ 0, when measured."""
    user_end: float | None
    """End of the user's last speech."""
    model_onset: float | None
    """Start of the model's speech the latency runs to (or the early one)."""


def onset_latency(record: SessionRecord, evidence: Evidence) -> OnsetLatency:
    """Response onset latency: end of the user's last planned speech → first model speech starting at or after it."""
    user = speech_of(record, "request", "request_head", "request_tail")
    if not user:
        return OnsetLatency(evidence, "not_sent", None, None, None)
    begin, end = user[0].start, user[-1].end
    speech = model_speech(record, evidence)
    early = next((s for s in speech if begin <= s.start < end), None)
    if early is not None:
        return OnsetLatency(evidence, "early", None, end, early.start)
    reply = first_from(speech, end)
    if reply is None:
        return OnsetLatency(evidence, "no_reply", None, end, None)
    return OnsetLatency(evidence, "measured", reply.start - end, end, reply.start)


@dataclass(frozen=True)
class Takeover:
    """Whether the model took the turn during a mid-request pause."""

    evidence: Evidence
    """What the model's speech was read from."""
    status: Literal["took_over", "waited", "not_sent"]
    """``waited``: no model speech starting in the pause was long enough (or wordy enough) to count."""
    pause: Span | None
    """The silence between the two halves' speech."""
    reply: Span | None
    """The model speech that took over (or the first one that started in the pause and did not count)."""
    words: int | None
    """Words in the transcript of the response that started in the pause (server evidence)."""


def _response_playing(record: SessionRecord, t: float, until: float) -> str | None:
    """The response whose audio starts playing in ``[t, until)``."""
    return next((p.response_id for p in playout(record.events) if t <= p.span.start < until), None)


def _transcript(record: SessionRecord, response_id: str | None) -> str:
    return "".join(
        e.text
        for e in record.events
        if isinstance(e, ServerEvent) and e.kind == "transcript_delta" and e.response_id == response_id
    )


def takeover(record: SessionRecord, evidence: Evidence) -> Takeover:
    """Takeover during a pause: a model reply starting in the pause of ≥ :data:`TAKEOVER_MIN_S` s, or (server
    evidence) of more than :data:`TAKEOVER_MIN_WORDS` words, as in Full-Duplex-Bench."""
    head, tail = speech_of(record, "request_head"), speech_of(record, "request_tail")
    if not head or not tail:
        return Takeover(evidence, "not_sent", None, None, None)
    if tail[0].start < head[0].end:
        raise ValueError(f"session {record.id!r}: the request's second half starts before its first ends")
    pause = Span(head[0].end, tail[0].start)
    started = [s for s in model_speech(record, evidence) if pause.start <= s.start < pause.end]
    words = None
    if evidence == "server" and started:
        responding = _response_playing(record, pause.start, pause.end)
        words = word_count(_transcript(record, responding)) if responding is not None else None
    for reply in started:
        if reply.duration >= TAKEOVER_MIN_S or (words or 0) > TAKEOVER_MIN_WORDS:
            return Takeover(evidence, "took_over", pause, reply, words)
    return Takeover(evidence, "waited", pause, started[0] if started else None, words)
