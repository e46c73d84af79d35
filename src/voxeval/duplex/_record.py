"""The session record: one per streamed session, written append-only as a JSONL row keyed by the scenario's id."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, get_args

from voxeval.duplex._check import Fields
from voxeval.duplex._events import Event, Span, check_events, event_row, parse_event
from voxeval.duplex._scenario import (
    Anchor,
    InputAudio,
    Scenario,
    ScenarioKind,
    Segment,
    SegmentRole,
    SendAt,
    SpokenText,
    session_key,
)
from voxeval.duplex._split import Boundary
from voxeval.errors import InputError, Location
from voxeval.io._keys import sample_key

RECORD_FORMAT = 1
"""Bumped when the row layout changes; a row of another format is refused, not half-read."""


@dataclass(frozen=True)
class SessionRecord:
    """Everything that happened in one streamed session, from which every figure is computed afterwards."""

    id: str
    """Stable key: :func:`~voxeval.duplex.session_key` of the system and the scenario."""
    system: str
    """The system spec that was driven (``realtime:openai:…``)."""
    scenario: Scenario
    """The plan the session followed."""
    sample_id: str
    """The sample the scenario is built on."""
    events: tuple[Event, ...]
    """Every event, in client-clock order, ending with one :class:`~voxeval.duplex.SessionEnded`."""
    recording: str
    """The stereo WAV (user left, model right), relative to the run folder."""
    model_speech: tuple[Span, ...] | None = None
    """Where voxeval's own VAD hears speech on the model channel; ``None`` when it was not run."""


def record_row(record: SessionRecord) -> dict[str, Any]:
    """The JSONL row of a record."""
    speech = None if record.model_speech is None else [[s.start, s.end] for s in record.model_speech]
    return {
        "id": record.id,
        "format": RECORD_FORMAT,
        "system": record.system,
        "sample_id": record.sample_id,
        "scenario": scenario_row(record.scenario),
        "recording": record.recording,
        "model_speech": speech,
        "events": [event_row(e) for e in record.events],
    }


def scenario_row(scenario: Scenario) -> dict[str, Any]:
    """The JSON object of a scenario."""
    segments = []
    for s in scenario.segments:
        audio = (
            {"input": {"dataset": s.audio.dataset, "sample_id": s.audio.sample_id}}
            if isinstance(s.audio, InputAudio)
            else {"speak": {"text": s.audio.text, "language": s.audio.language}}
        )
        segments.append({"role": s.role, **audio, "anchor": s.send.anchor, "offset_s": s.send.offset_s})
    return {
        "id": scenario.id,
        "kind": scenario.kind,
        "dataset": scenario.dataset,
        "sample_id": scenario.sample_id,
        "language": scenario.language,
        "seed": scenario.seed,
        "reference_id": scenario.reference_id,
        "boundary": scenario.boundary,
        "segments": segments,
    }


def _parse_audio(f: Fields) -> InputAudio | SpokenText:
    if f.has("input"):
        g = f.object("input")
        audio: InputAudio | SpokenText = InputAudio(g.text("dataset", empty=False), g.text("sample_id", empty=False))
    else:
        g = f.object("speak")
        audio = SpokenText(g.text("text", empty=False), g.text("language", empty=False))
    g.done()
    return audio


def _parse_segment(row: Any, where: Location) -> Segment:
    f = Fields(row, where)
    role: Any = f.choice("role", get_args(SegmentRole))
    audio = _parse_audio(f)
    anchor: Any = f.choice("anchor", get_args(Anchor))
    segment = Segment(role, audio, SendAt(anchor, f.number("offset_s")))
    f.done()
    return segment


def parse_scenario(row: Any, where: Location) -> Scenario:
    """A scenario from its JSON object; errors name the field."""
    f = Fields(row, where)
    kind: Any = f.choice("kind", get_args(ScenarioKind))
    boundary: Any = f.optional_choice("boundary", get_args(Boundary))
    items = f.items("segments") or []
    segments = tuple(_parse_segment(s, f.at(f"segments[{k}]")) for k, s in enumerate(items))
    if not segments:
        raise InputError(f.at("segments"), "a scenario sends at least one segment")
    scenario = Scenario(
        id=f.text("id", empty=False),
        kind=kind,
        dataset=f.text("dataset", empty=False),
        sample_id=f.text("sample_id", empty=False),
        language=f.text("language", empty=False),
        seed=f.integer("seed"),
        segments=segments,
        reference_id=f.text("reference_id", empty=False),
        boundary=boundary,
    )
    f.done()
    expected = f"{scenario.kind}/{sample_key(scenario.dataset, scenario.sample_id)}/{scenario.seed}"
    if scenario.id != expected:
        raise InputError(f.at("id"), f"{scenario.id!r} is not the scenario's own id {expected!r}")
    return scenario


def _parse_spans(items: list[Any] | None, where: Location) -> tuple[Span, ...] | None:
    if items is None:
        return None
    spans: list[Span] = []
    for k, item in enumerate(items):
        ok = (
            isinstance(item, list)
            and len(item) == 2
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in item)
        )
        if not ok or not 0 <= item[0] <= item[1] or (spans and item[0] < spans[-1].end):
            raise InputError(
                where.child(f"[{k}]"), f"must be [start, end] with 0 ≤ start ≤ end, in order; got {item!r}"
            )
        spans.append(Span(float(item[0]), float(item[1])))
    return tuple(spans)


def parse_record(row: Any, where: Location) -> SessionRecord:
    """A session record from its JSONL row; anything a driver never writes raises :class:`InputError` naming the
    file, line and field."""
    f = Fields(row, where)
    if f.integer("format") != RECORD_FORMAT:
        raise InputError(f.at("format"), f"format {row['format']} is not {RECORD_FORMAT}; this voxeval cannot read it")
    scenario = parse_scenario(f.value("scenario"), f.at("scenario"))
    system = f.text("system", empty=False)
    ident = f.text("id", empty=False)
    if ident != session_key(system, scenario):
        raise InputError(f.at("id"), f"{ident!r} is not the session key {session_key(system, scenario)!r}")
    events = tuple(parse_event(e, f.at(f"events[{k}]")) for k, e in enumerate(f.items("events") or []))
    check_events(events, len(scenario.segments), where)
    sample_id = f.text("sample_id", empty=False)
    if sample_id != scenario.sample_id:
        raise InputError(f.at("sample_id"), f"{sample_id!r} is not the scenario's sample {scenario.sample_id!r}")
    record = SessionRecord(
        id=ident,
        system=system,
        scenario=scenario,
        sample_id=sample_id,
        events=events,
        recording=_recording_path(f.text("recording", empty=False), f.at("recording")),
        model_speech=_parse_spans(f.items("model_speech", nullable=True), f.at("model_speech")),
    )
    f.done()
    return record


def _recording_path(value: str, where: Location) -> str:
    """A path inside the run folder: relative, without ``..``; a reader opens it under the run folder only."""
    path = PurePosixPath(value)
    if "\0" in value or path.is_absolute() or PureWindowsPath(value).is_absolute() or ".." in path.parts:
        raise InputError(where, f"{value!r} must be a path inside the run folder (relative, no '..')")
    return value


def check_record_row(row: dict[str, Any]) -> tuple[str, str] | None:
    """The row check of the records log (:class:`~voxeval.io.AppendLog`): ``(field, problem)`` or ``None``."""
    try:
        parse_record(row, Location())
    except InputError as exc:
        return exc.where.field or "", exc.message
    return None


def read_records(path: str | Path) -> Iterator[tuple[int, SessionRecord]]:
    """``(line, record)`` for every complete row of a records file, each validated; an id recorded twice is an
    error (the driver never appends a session it already has)."""
    from voxeval.io import read_jsonl

    seen: set[str] = set()
    for line, row in read_jsonl(path, complete_only=True):
        record = parse_record(row, Location(str(path), line))
        if record.id in seen:
            raise InputError(Location(str(path), line, "id"), f"session {record.id!r} recorded twice")
        seen.add(record.id)
        yield line, record
