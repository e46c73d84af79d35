"""What happened in a streamed session, one small frozen record per thing on the wire (pipecat's frames).

Every time ``t`` is on the client's monotonic clock, in seconds since the session's ``t0`` (the moment the driver
opened the socket): what the client saw, network included, never the server's own timestamps.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, get_args

from voxeval.duplex._check import Fields
from voxeval.errors import InputError, Location

ServerKind = Literal[
    "speech_started",
    "speech_stopped",
    "response_created",
    "response_done",
    "response_cancelled",
    "interrupted",
    "turn_complete",
    "transcript_delta",
    "input_transcript_delta",
    "error",
]
"""Server events, normalised across providers. OpenAI: ``input_audio_buffer.speech_started`` / ``speech_stopped``,
``response.created``, ``response.done`` (``response_cancelled`` when its status is ``cancelled``), the output
transcript deltas, ``conversation.item.input_audio_transcription.delta``. Gemini Live: ``serverContent.interrupted``,
``turnComplete``, ``outputTranscription`` / ``inputTranscription``. The provider's own name is kept in ``wire``."""

SessionOutcome = Literal["answered", "timeout", "bound", "error"]
"""How a session ended: the scenario ran to its end; no reply came before the timeout; the model talked past the
bound and was cut; the socket failed."""

SpeechEdge = Literal["onset", "offset"]
"""The start or the end of a stretch of user speech."""


@dataclass(frozen=True)
class Span:
    """A stretch of time on the session clock, ``start ≤ end``.

    >>> Span(1.0, 2.5).duration
    1.5
    """

    start: float
    """Seconds since t0."""
    end: float
    """Seconds since t0."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.start <= self.end:
            raise ValueError(f"a span needs 0 ≤ start ≤ end, got {self.start}, {self.end}")

    @property
    def duration(self) -> float:
        """``end - start``."""
        return self.end - self.start

    def covers(self, t: float) -> bool:
        """``start ≤ t < end``."""
        return self.start <= t < self.end


@dataclass(frozen=True)
class UserAudioSent:
    """One frame of user audio handed to the socket."""

    TYPE: ClassVar[str] = "user_audio"
    t: float
    """When it was sent."""
    duration_s: float
    """Seconds of audio in the frame."""
    segment: int | None = None
    """Index of the scenario segment it belongs to; ``None`` for the silence streamed between and after them."""


@dataclass(frozen=True)
class ModelAudioReceived:
    """One chunk of model audio received (an OpenAI ``response.output_audio.delta``, a Gemini inline-audio part)."""

    TYPE: ClassVar[str] = "model_audio"
    t: float
    """When it arrived."""
    duration_s: float
    """Seconds of audio in the chunk."""
    response_id: str | None = None
    """The response it belongs to (Gemini sends none: the driver numbers turns itself, ``turn-1``, ``turn-2``…)."""


@dataclass(frozen=True)
class ServerEvent:
    """Any other server event that matters to turn-taking."""

    TYPE: ClassVar[str] = "server"
    t: float
    """When it arrived."""
    kind: ServerKind
    """What it says, normalised across providers."""
    response_id: str | None = None
    """The response it is about, when it names one."""
    text: str = ""
    """Transcript text of a delta (else ``""``)."""
    wire: str = ""
    """The provider's own event name (``input_audio_buffer.speech_started``, ``serverContent.interrupted``)."""


@dataclass(frozen=True)
class UserSpeech:
    """A scenario marker: where the user's speech in a segment starts or ends, as planned (the segment's send time
    plus the speech's offset inside its clip)."""

    TYPE: ClassVar[str] = "user_speech"
    t: float
    """When the speech starts or ends."""
    edge: SpeechEdge
    """Onset or offset."""
    segment: int
    """Index of the scenario segment."""


@dataclass(frozen=True)
class PlaybackFlushed:
    """The client dropped the model audio it had queued but not yet played (as a realtime client does when the
    server says the user barged in). Audio received later still plays; audio queued before is cut here."""

    TYPE: ClassVar[str] = "flush"
    t: float
    """When the queue was dropped."""
    reason: str = ""
    """What made the client flush (the server event's ``wire`` name)."""


@dataclass(frozen=True)
class SessionEnded:
    """The last event of every session."""

    TYPE: ClassVar[str] = "end"
    t: float
    """When the session was closed."""
    outcome: SessionOutcome
    """Why it ended."""
    detail: str = ""
    """The error or the bound that ended it (else ``""``)."""


Event = UserAudioSent | ModelAudioReceived | ServerEvent | UserSpeech | PlaybackFlushed | SessionEnded
"""One thing that happened in a session."""

EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls for cls in (UserAudioSent, ModelAudioReceived, ServerEvent, UserSpeech, PlaybackFlushed, SessionEnded)
}
"""Event classes by their ``type`` in JSON."""


def event_row(event: Event) -> dict[str, Any]:
    """The JSON object of an event (``type`` first, then its fields).

    >>> event_row(UserSpeech(1.25, "onset", 0))
    {'type': 'user_speech', 't': 1.25, 'edge': 'onset', 'segment': 0}
    """
    return {"type": event.TYPE, **{f.name: getattr(event, f.name) for f in fields(event)}}


def parse_event(row: Any, where: Location) -> Event:
    """An event from its JSON object; anything a driver never writes raises :class:`InputError` naming the field."""
    f = Fields(row, where)
    kind = f.choice("type", EVENT_TYPES)
    t = f.number("t")
    event: Event
    if kind == "user_audio":
        event = UserAudioSent(t, f.number("duration_s", above=True), f.optional_integer("segment"))
    elif kind == "model_audio":
        event = ModelAudioReceived(t, f.number("duration_s", above=True), f.optional_text("response_id"))
    elif kind == "server":
        server_kind: Any = f.choice("kind", get_args(ServerKind))
        event = ServerEvent(t, server_kind, f.optional_text("response_id"), f.text("text", ""), f.text("wire", ""))
    elif kind == "user_speech":
        edge: Any = f.choice("edge", get_args(SpeechEdge))
        event = UserSpeech(t, edge, f.integer("segment"))
    elif kind == "flush":
        event = PlaybackFlushed(t, f.text("reason", ""))
    else:
        outcome: Any = f.choice("outcome", get_args(SessionOutcome))
        event = SessionEnded(t, outcome, f.text("detail", ""))
    f.done()
    return event


def check_events(events: tuple[Event, ...], segments: int, where: Location) -> None:
    """The invariants a driver keeps: times never go back, segment indices exist, every segment's speech has one
    onset before one offset, and the session ends with exactly one :class:`SessionEnded`."""
    if not events:
        raise InputError(where.child("events"), "empty; a session ends with an 'end' event at least")
    last = 0.0
    edges: dict[int, list[UserSpeech]] = {}
    for k, event in enumerate(events):
        at = where.child(f"events[{k}]")
        if event.t < last:
            raise InputError(at.child("t"), f"{event.t} is before the previous event ({last}); times never go back")
        last = event.t
        segment = getattr(event, "segment", None)
        if segment is not None and segment >= segments:
            raise InputError(at.child("segment"), f"{segment} but the scenario has {segments} segments")
        if isinstance(event, UserSpeech):
            edges.setdefault(event.segment, []).append(event)
        if isinstance(event, SessionEnded) != (k == len(events) - 1):
            raise InputError(at.child("type"), "a session ends with exactly one 'end' event, as its last event")
    for segment, marks in sorted(edges.items()):
        if [m.edge for m in marks] != ["onset", "offset"]:
            raise InputError(where.child("events"), f"segment {segment}: user speech needs one onset, then one offset")
