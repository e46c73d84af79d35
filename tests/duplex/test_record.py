"""The session record: JSONL round trip, validation on read (file, line, field), the append-only log."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.duplex.records import audio, flush, record, server, speech
from voxeval.duplex import (
    KINDS,
    SessionEnded,
    UserAudioSent,
    check_record_row,
    event_row,
    parse_record,
    read_records,
    record_row,
)
from voxeval.errors import InputError, Location
from voxeval.io import AppendLog


def full_record(kind: str = "interruption"):
    return record(
        kind,
        speech(0, 0.5, 2.0),
        [UserAudioSent(0.02 * k, 0.02, 0 if 25 <= k < 100 else None) for k in range(150)],
        audio(2.5, 3.0),
        server(2.4, "response_created"),
        server(2.6, "transcript_delta", text="明日は"),
        server(4.1, "speech_started", None),
        flush(4.1),
        speech(1, 4.0, 5.5),
        vad=[(2.5, 4.2)],
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_record_reads_back_as_it_was_written(kind: str) -> None:
    made = full_record(kind) if kind != "end_of_turn" else record(kind, speech(0, 0.5, 2.0), audio(2.5, 1.0))
    row = json.loads(json.dumps(record_row(made)))
    assert parse_record(row, Location("x")) == made
    assert check_record_row(row) is None


def _edit(row: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(row)
    *parents, last = path.split(".")
    target: Any = out
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is _DROP:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return out


_DROP = object()

BAD = [
    # (edit path, new value, field the error names, words of the message)
    ("format", 2, "format", "cannot read"),
    ("id", "other", "id", "session key"),
    ("system", "other", "id", "session key"),
    ("system", "", "system", "non-empty"),
    ("recording", _DROP, "recording", "missing"),
    ("recording", "/etc/passwd", "recording", "inside the run folder"),
    ("recording", "audio/../../x.wav", "recording", "inside the run folder"),
    ("recording", "C:\\x.wav", "recording", "inside the run folder"),
    ("sample_id", "s2", "sample_id", "scenario's sample"),
    ("scenario.seed", 8, "scenario.id", "own id"),
    ("surplus", 1, "surplus", "unknown field"),
    ("scenario.kind", "monologue", "scenario.kind", "end_of_turn"),
    ("scenario.segments", [], "scenario.segments", "at least one"),
    ("scenario.segments.0.anchor", "later", "scenario.segments[0].anchor", "reply_onset"),
    ("scenario.segments.0.offset_s", -1, "scenario.segments[0].offset_s", "≥ 0"),
    ("scenario.segments.1.input", {"dataset": "d"}, "scenario.segments[1].input.sample_id", "missing"),
    ("events.0.type", "gossip", "events[0].type", "user_audio"),
    ("events.0.t", "0.5", "events[0].t", "finite"),
    ("events.0.t", -0.1, "events[0].t", "≥ 0"),
    ("events.0.t", True, "events[0].t", "finite"),
    ("events.<model_audio>.duration_s", 0, "events[<model_audio>].duration_s", "> 0"),
    ("events.<server>.kind", "speech_begun", "events[<server>].kind", "speech_started"),
    ("events.<user_speech>.segment", 9, "events[<user_speech>].segment", "2 segments"),
    ("events.<server>.t", 99.0, "events[<server+1>].t", "times never go back"),
    ("model_speech", [[3.0, 2.0]], "model_speech[0]", "start ≤ end"),
    ("model_speech", [[2.0, 3.0], [2.5, 4.0]], "model_speech[1]", "in order"),
]


@pytest.mark.parametrize(
    ("path", "value", "field", "words"),
    BAD,
    ids=[f"{b[0]}={'(dropped)' if b[1] is _DROP else repr(b[1])}" for b in BAD],
)
def test_a_bad_row_names_file_line_and_field(tmp_path: Path, path: str, value: Any, field: str, words: str) -> None:
    row = record_row(full_record())
    for kind in ("model_audio", "server", "user_speech"):  # the first event of each type, wherever it falls
        k = next(k for k, e in enumerate(row["events"]) if e["type"] == kind)
        path, field = path.replace(f"<{kind}>", str(k)), field.replace(f"<{kind}>", str(k))
        field = field.replace(f"<{kind}+1>", str(k + 1))
    bad = _edit(row, path, value)
    log = tmp_path / "sessions.jsonl"
    log.write_text(json.dumps(row_ok := record_row(full_record("backchannel"))) + "\n" + json.dumps(bad) + "\n")
    assert row_ok["id"] != bad["id"] or path == "id"
    with pytest.raises(InputError) as caught:
        list(read_records(log))
    assert (caught.value.where.path, caught.value.where.line, caught.value.where.field) == (str(log), 2, field)
    assert words in caught.value.message


@pytest.mark.parametrize(
    ("events", "words"),
    [
        ([], "empty"),
        ([SessionEnded(1.0, "timeout"), SessionEnded(2.0, "answered")], "exactly one 'end'"),
        ([*speech(0, 0.5, 2.0)], "exactly one 'end'"),
        ([*speech(0, 0.5, 2.0)[1:], SessionEnded(3.0, "answered")], "one onset, then one offset"),
    ],
)
def test_the_event_sequence_is_checked(events: list[Any], words: str) -> None:
    row = record_row(record("end_of_turn"))
    row["events"] = [event_row(e) for e in events]
    with pytest.raises(InputError, match=words):
        parse_record(row, Location("f.jsonl", 3))


def test_the_append_log_resumes_and_refuses_a_second_row(tmp_path: Path) -> None:
    path = tmp_path / "sessions.jsonl"
    first, second = full_record("interruption"), full_record("backchannel")
    with AppendLog(path, check=check_record_row) as log:
        log.append(record_row(first))
    with AppendLog(path, check=check_record_row) as log:
        assert log.done == {first.id}
        log.append(record_row(second))
        with pytest.raises(ValueError, match="already recorded"):
            log.append(record_row(first))
    assert [r.id for _, r in read_records(path)] == [first.id, second.id]
    path.write_text(path.read_text() + json.dumps(record_row(first)) + "\n")
    with pytest.raises(InputError, match="recorded twice"):
        list(read_records(path))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 30), st.floats(0.001, 2), st.sampled_from(["r1", "r2", None])), max_size=8),
    st.sampled_from(KINDS),
)
def test_round_trip_of_any_model_audio(chunks, kind) -> None:
    from voxeval.duplex import ModelAudioReceived

    made = record(kind, [ModelAudioReceived(t, d, r) for t, d, r in chunks])
    assert parse_record(json.loads(json.dumps(record_row(made))), Location()) == made
