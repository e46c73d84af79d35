"""Figures of user speech over the model's reply: stopping for an interruption, carrying on over a backchannel, and
the audio a server still sends after it cancelled (pure functions over one :class:`SessionRecord`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from voxeval.duplex._events import ModelAudioReceived, ServerEvent, Span
from voxeval.duplex._figures import (
    CONTINUE_S,
    RESTART_WINDOW_S,
    STOP_WINDOW_S,
    Evidence,
    model_speech,
    speech_of,
)
from voxeval.duplex._record import SessionRecord
from voxeval.duplex._timeline import first_from, playout, span_at

_ENDS_RESPONSE = ("response_cancelled", "interrupted")


@dataclass(frozen=True)
class Stop:
    """What the model did when the user interrupted it."""

    evidence: Evidence
    """What the model's speech was read from."""
    status: Literal["stopped", "kept_talking", "not_speaking", "not_sent"]
    """``not_speaking``: the model was silent at the interruption's onset (not counted in the stop rate);
    ``not_sent``: the interruption was never sent (no reply to interrupt)."""
    latency_s: float | None
    """User onset → end of the model's speech, when it stopped."""
    user_onset: float | None
    """Start of the interrupting speech."""
    model_end: float | None
    """End of the model speech the user talked over."""


def stop(record: SessionRecord, evidence: Evidence) -> Stop:
    """Stop rate and latency: the model's speech at the interruption's onset must end within
    :data:`~voxeval.duplex.STOP_WINDOW_S` s of it."""
    cut_in = speech_of(record, "interruption")
    if not cut_in:
        return Stop(evidence, "not_sent", None, None, None)
    onset = cut_in[0].start
    talking = span_at(model_speech(record, evidence), onset)
    if talking is None:
        return Stop(evidence, "not_speaking", None, onset, None)
    latency = talking.end - onset
    if latency > STOP_WINDOW_S:
        return Stop(evidence, "kept_talking", None, onset, talking.end)
    return Stop(evidence, "stopped", latency, onset, talking.end)


@dataclass(frozen=True)
class Continuation:
    """What the model did when the user backchannelled."""

    evidence: Evidence
    """What the model's speech was read from."""
    status: Literal["continued", "stopped", "restarted", "ended", "not_speaking", "not_sent"]
    """``restarted``: it stopped and spoke again within :data:`~voxeval.duplex.RESTART_WINDOW_S` s (or, server
    evidence, its response was cancelled or a new one created while it spoke); ``ended``: server evidence says the
    reply completed on its own before the continuation threshold (not counted in the rate)."""
    backchannel: Span | None
    """The backchannel's speech."""
    model: Span | None
    """The model speech it was said over."""


def _server_restart(record: SessionRecord, within: Span) -> bool:
    return any(
        isinstance(e, ServerEvent)
        and within.start <= e.t < within.end
        and (e.kind in _ENDS_RESPONSE or e.kind == "response_created")
        for e in record.events
    )


def _completed(record: SessionRecord, response_id: str | None, before: float) -> bool:
    return response_id is not None and any(
        isinstance(e, ServerEvent) and e.kind == "response_done" and e.response_id == response_id and e.t <= before
        for e in record.events
    )


def continuation(record: SessionRecord, evidence: Evidence) -> Continuation:
    """Continuation after a backchannel: the model's speech at its onset goes on ≥ :data:`~voxeval.duplex.CONTINUE_S`
    s past its end, with no stop and no restart."""
    nods = speech_of(record, "backchannel")
    if not nods:
        return Continuation(evidence, "not_sent", None, None)
    nod = nods[0]
    speech = model_speech(record, evidence)
    talking = span_at(speech, nod.start)
    if talking is None:
        return Continuation(evidence, "not_speaking", nod, None)
    server = evidence == "server"
    if server and _server_restart(record, Span(nod.start, max(nod.start, talking.end))):
        return Continuation(evidence, "restarted", nod, talking)
    if talking.end >= nod.end + CONTINUE_S:
        return Continuation(evidence, "continued", nod, talking)
    again = first_from(speech, talking.end)
    if again is not None and again.start - talking.end <= RESTART_WINDOW_S:
        return Continuation(evidence, "restarted", nod, talking)
    playing = next((p.response_id for p in playout(record.events) if p.span.covers(nod.start)), None)
    if server and _completed(record, playing, talking.end + RESTART_WINDOW_S):
        return Continuation(evidence, "ended", nod, talking)
    return Continuation(evidence, "stopped", nod, talking)


@dataclass(frozen=True)
class AfterCancel:
    """Model audio that arrived for a response after the server said it was cancelled or interrupted."""

    chunks: int
    """Audio deltas counted."""
    seconds: float
    """Their audio, in seconds."""
    responses: tuple[str, ...]
    """The cancelled responses that sent them."""


def audio_after_cancel(record: SessionRecord) -> AfterCancel:
    """Audio deltas of a response received after its ``response_cancelled`` / ``interrupted`` event: counted, never
    dropped. An ``interrupted`` without a response id (Gemini) applies to the response whose audio came last."""
    cancelled: dict[str, float] = {}
    last_response: str | None = None
    chunks, seconds, responses = 0, 0.0, []
    for event in record.events:
        if isinstance(event, ModelAudioReceived):
            if event.response_id in cancelled:
                chunks, seconds = chunks + 1, seconds + event.duration_s
                responses.append(event.response_id)
            last_response = event.response_id
        elif isinstance(event, ServerEvent) and event.kind in _ENDS_RESPONSE:
            target = event.response_id or last_response
            if target is not None:
                cancelled.setdefault(target, event.t)
    return AfterCancel(chunks, seconds, tuple(dict.fromkeys(r for r in responses if r is not None)))
