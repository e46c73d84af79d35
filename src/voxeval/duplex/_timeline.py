"""Timelines read off a session record (pure): the user's planned speech, and the model's audio as a client plays it.

Model audio arrives in bursts, often faster than real time; a client queues it and plays it back to back. So a
chunk plays from ``max(arrival, end of the queue)`` for its duration, and a :class:`PlaybackFlushed` cuts whatever
was queued at that moment. This playout is the model channel of the stereo recording and the "server" evidence of
every figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from voxeval.duplex._events import Event, ModelAudioReceived, PlaybackFlushed, Span, UserSpeech

MERGE_GAP_S = 0.3
"""Gaps in the model's audio shorter than this do not end its speech (a stream running at real time empties the
queue between chunks); the same as the minimum silence of voxeval's VAD on the model channel."""


@dataclass(frozen=True)
class Played:
    """One received chunk of model audio as it plays."""

    span: Span
    """When it plays (cut short by a flush)."""
    response_id: str | None
    """The response it belongs to."""
    arrived: float
    """When it arrived."""
    chunk: int
    """Its position among the session's model audio events (0 for the first chunk received)."""


def playout(events: Sequence[Event]) -> list[Played]:
    """Every model audio chunk placed on the playback timeline; chunks flushed before they played are left out
    (they are still events, and :func:`~voxeval.duplex.audio_after_cancel` counts them)."""
    played: list[Played] = []
    queue_end = 0.0
    received = 0
    for event in events:
        if isinstance(event, PlaybackFlushed):
            cut = []
            for p in played:
                if p.span.end > event.t:
                    if p.span.start < event.t:
                        cut.append(Played(Span(p.span.start, event.t), p.response_id, p.arrived, p.chunk))
                else:
                    cut.append(p)
            played, queue_end = cut, min(queue_end, event.t)
        elif isinstance(event, ModelAudioReceived):
            start = max(event.t, queue_end)
            queue_end = start + event.duration_s
            played.append(Played(Span(start, queue_end), event.response_id, event.t, received))
            received += 1
    return played


def model_audio_spans(events: Sequence[Event], gap: float = MERGE_GAP_S) -> list[Span]:
    """When the model's received audio plays: chunks of one response less than ``gap`` apart joined, chunks of
    different responses never (a reply cancelled and a new one begun 0.1 s later are two stretches of speech).

    >>> from voxeval.duplex import ModelAudioReceived as Chunk
    >>> model_audio_spans([Chunk(0.0, 1.0, "a"), Chunk(1.1, 1.0, "a"), Chunk(2.2, 1.0, "b")])
    [Span(start=0.0, end=2.1), Span(start=2.2, end=3.2)]
    """
    spans: list[Span] = []
    previous: str | None = None
    for p in playout(events):
        if spans and p.response_id == previous and p.span.start - spans[-1].end < gap:
            spans[-1] = Span(spans[-1].start, max(spans[-1].end, p.span.end))
        else:
            spans.append(p.span)
        previous = p.response_id
    return spans


def user_speech(events: Sequence[Event]) -> dict[int, Span]:
    """The planned user speech of every segment that was sent, by segment index."""
    onsets: dict[int, float] = {}
    spans: dict[int, Span] = {}
    for event in events:
        if isinstance(event, UserSpeech):
            if event.edge == "onset":
                onsets[event.segment] = event.t
            elif event.segment in onsets:
                spans[event.segment] = Span(onsets[event.segment], event.t)
    return spans


def span_at(spans: Sequence[Span], t: float) -> Span | None:
    """The span that covers ``t``, if any."""
    return next((s for s in spans if s.covers(t)), None)


def first_from(spans: Sequence[Span], t: float) -> Span | None:
    """The first span that starts at or after ``t``."""
    return next((s for s in sorted(spans, key=lambda s: s.start) if s.start >= t), None)
