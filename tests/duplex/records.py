"""Hand-made session records for the duplex tests: a scenario from the real generators, events from short tuples."""

from __future__ import annotations

from voxeval.duplex import (
    Event,
    ModelAudioReceived,
    PlaybackFlushed,
    Scenario,
    ScenarioSource,
    ServerEvent,
    SessionEnded,
    SessionRecord,
    Span,
    UserSpeech,
    backchannel,
    end_of_turn,
    interruption,
    pause,
    session_key,
)

SOURCE = ScenarioSource("ja-assistant", "s1", "ja", "明日の天気を調べて、傘がいるか教えて")
OTHER = ScenarioSource("ja-assistant", "s2", "ja", "3分測って")


def scenario(kind: str) -> Scenario:
    """A scenario of ``kind`` built on :data:`SOURCE`."""
    made = {
        "end_of_turn": end_of_turn(SOURCE, 7),
        "pause": pause(SOURCE, 7),
        "interruption": interruption(SOURCE, OTHER, 7),
        "backchannel": backchannel(SOURCE, 7),
    }[kind]
    assert made is not None
    return made


def speech(segment: int, onset: float, offset: float) -> list[Event]:
    """The planned markers of one segment's speech."""
    return [UserSpeech(onset, "onset", segment), UserSpeech(offset, "offset", segment)]


def audio(start: float, seconds: float, response: str = "r1", chunk: float = 0.5) -> list[Event]:
    """Model audio arriving at real-time pace from ``start``: one chunk of ``chunk`` s at a time."""
    out: list[Event] = []
    t = start
    while t < start + seconds - 1e-9:
        size = min(chunk, start + seconds - t)
        out.append(ModelAudioReceived(round(t, 6), round(size, 6), response))
        t += size
    return out


def server(t: float, kind: str, response: str | None = "r1", text: str = "") -> ServerEvent:
    """A server event."""
    return ServerEvent(t, kind, response, text)  # type: ignore[arg-type]


def flush(t: float) -> PlaybackFlushed:
    """The client dropped its queue."""
    return PlaybackFlushed(t, "input_audio_buffer.speech_started")


def record(kind: str, *parts: list[Event] | Event, vad: list[tuple[float, float]] | None = None) -> SessionRecord:
    """A record of ``kind`` with the given events (sorted by time, stable) and an end event after the last one."""
    events: list[Event] = []
    for part in parts:
        events.extend(part if isinstance(part, list) else [part])
    events.sort(key=lambda e: e.t)
    end = max((e.t for e in events), default=0.0) + 1.0
    made = scenario(kind)
    spans = None if vad is None else tuple(Span(a, b) for a, b in vad)
    return SessionRecord(
        session_key("mock", made),
        "mock",
        made,
        made.sample_id,
        (*events, SessionEnded(end, "answered")),
        "rec.wav",
        spans,
    )
