"""The turn-taking figures on hand-made records (table-driven), their summaries, and their invariants."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.duplex.records import audio, flush, record, server, speech
from voxeval.duplex import (
    KINDS,
    ModelAudioReceived,
    SessionEnded,
    audio_after_cancel,
    continuation,
    continuation_rate,
    onset_latency,
    onset_summary,
    stop,
    stop_latency,
    stop_rate,
    takeover,
    takeover_rate,
    word_count,
)

USER = speech(0, 0.5, 2.0)

ONSET = [
    # (case, events, vad, evidence, status, latency)
    ("reply after the user", [USER, audio(2.6, 2.0)], None, "server", "measured", 0.6),
    ("a burst faster than real time", [USER, audio(2.6, 0.1), audio(2.6, 0.1, "r1")], None, "server", "measured", 0.6),
    ("no reply", [USER], None, "server", "no_reply", None),
    ("began during the user's speech", [USER, audio(1.0, 3.0)], None, "server", "early", None),
    ("vad hears the reply later", [USER, audio(2.6, 2.0)], [(2.7, 4.5)], "vad", "measured", 0.7),
    ("vad hears nothing", [USER, audio(2.6, 2.0)], [], "vad", "no_reply", None),
    ("the request never went out", [audio(2.6, 2.0)], None, "server", "not_sent", None),
]


@pytest.mark.parametrize(("case", "events", "vad", "evidence", "status", "latency"), ONSET, ids=[c[0] for c in ONSET])
def test_onset_latency(case, events, vad, evidence, status, latency) -> None:
    got = onset_latency(record("end_of_turn", *events, vad=vad), evidence)
    assert (got.status, got.evidence) == (status, evidence)
    assert got.latency_s == (None if latency is None else pytest.approx(latency))


def test_a_session_that_timed_out_has_no_latency_not_a_zero_one() -> None:
    timed_out = record("end_of_turn", USER)
    timed_out = dataclasses.replace(timed_out, events=(*timed_out.events[:-1], SessionEnded(32.0, "timeout")))
    got = onset_latency(timed_out, "server")
    assert (got.status, got.latency_s) == ("no_reply", None)


def test_vad_evidence_without_vad_spans_is_an_error_not_a_fallback() -> None:
    with pytest.raises(ValueError, match="no VAD spans"):
        onset_latency(record("end_of_turn", USER, audio(2.6, 1.0)), "vad")


HALVES = [*speech(0, 0.5, 1.5), *speech(1, 3.5, 5.0)]  # a 2.0 s pause from 1.5 to 3.5

TAKEOVER = [
    ("a long reply in the pause", [audio(2.0, 1.2)], None, "server", "took_over"),
    (
        "a short 'はい' in the pause",
        [audio(2.0, 0.5), server(2.0, "transcript_delta", text="はい")],
        None,
        "server",
        "waited",
    ),
    (
        "a short but wordy reply",
        [audio(2.0, 0.5), server(2.0, "transcript_delta", text="Sure, let me check")],
        None,
        "server",
        "took_over",
    ),
    ("the same reply by vad: words are not heard", [audio(2.0, 0.5)], [(2.0, 2.5)], "vad", "waited"),
    ("a reply that runs past the pause", [audio(3.2, 1.0)], None, "server", "took_over"),
    ("a reply only after the request", [audio(5.6, 2.0)], None, "server", "waited"),
    ("vad hears a long reply", [], [(1.8, 3.0)], "vad", "took_over"),
]


@pytest.mark.parametrize(("case", "events", "vad", "evidence", "status"), TAKEOVER, ids=[c[0] for c in TAKEOVER])
def test_takeover(case, events, vad, evidence, status) -> None:
    got = takeover(record("pause", HALVES, *events, vad=vad), evidence)
    assert got.status == status
    assert got.pause is not None and (got.pause.start, got.pause.end) == (1.5, 3.5)


def test_takeover_needs_both_halves_sent() -> None:
    assert takeover(record("pause", speech(0, 0.5, 1.5), audio(2.0, 2.0)), "server").status == "not_sent"


CUT_IN = speech(1, 4.0, 5.5)  # the interruption's speech, 1.5 s into a reply that starts at 2.5

STOP = [
    # (case, events, vad, evidence, status, latency)
    (
        "a burst, flushed when the server heard the user",
        [audio(2.5, 6.0, chunk=6.0), flush(4.3)],
        None,
        "server",
        "stopped",
        0.3,
    ),
    ("the server stops sending", [audio(2.5, 2.2)], None, "server", "stopped", 0.7),
    ("ignores the barge-in", [audio(2.5, 6.0)], None, "server", "kept_talking", None),
    ("flushed, but the server keeps sending", [audio(2.5, 6.0), flush(4.3)], None, "server", "kept_talking", None),
    ("stops right at the window", [audio(2.5, 3.5)], None, "server", "stopped", 2.0),
    ("stops just after the window", [audio(2.5, 3.6)], None, "server", "kept_talking", None),
    ("already silent", [audio(2.5, 1.0)], None, "server", "not_speaking", None),
    ("vad hears it stop", [audio(2.5, 6.0)], [(2.5, 4.6)], "vad", "stopped", 0.6),
    (
        "cancelled, and the answer begins 0.15 s later",
        [audio(2.5, 6.0, chunk=6.0), flush(4.3), server(4.3, "response_cancelled"), audio(4.45, 2.0, "r2")],
        None,
        "server",
        "stopped",
        0.3,
    ),
    ("the same by vad: one stretch of speech", [], [(2.5, 6.45)], "vad", "kept_talking", None),
]


@pytest.mark.parametrize(("case", "events", "vad", "evidence", "status", "latency"), STOP, ids=[c[0] for c in STOP])
def test_stop(case, events, vad, evidence, status, latency) -> None:
    got = stop(record("interruption", USER, CUT_IN, *events, vad=vad), evidence)
    assert got.status == status
    assert got.latency_s == (None if latency is None else pytest.approx(latency))


def test_stop_when_no_interruption_was_sent() -> None:
    assert stop(record("interruption", USER), "server").status == "not_sent"


AFTER_CANCEL = [
    ("nothing after the cancel", [audio(2.5, 1.0), server(3.6, "response_cancelled")], 0, 0.0, ()),
    (
        "a delta of the cancelled response, one of the next",
        [audio(2.5, 1.0), server(3.6, "response_cancelled"), audio(3.7, 0.2), audio(4.0, 0.5, "r2")],
        1,
        0.2,
        ("r1",),
    ),
    (
        "Gemini: interrupted names no response",
        [audio(2.5, 1.0, "turn-1"), server(3.6, "interrupted", None), audio(3.7, 0.4, "turn-1", chunk=0.2)],
        2,
        0.4,
        ("turn-1",),
    ),
]


@pytest.mark.parametrize(
    ("case", "events", "chunks", "seconds", "responses"), AFTER_CANCEL, ids=[c[0] for c in AFTER_CANCEL]
)
def test_audio_after_cancel_is_counted(case, events, chunks, seconds, responses) -> None:
    got = audio_after_cancel(record("interruption", USER, *events))
    assert (got.chunks, got.seconds, got.responses) == (chunks, pytest.approx(seconds), responses)


NOD = speech(1, 4.0, 4.4)

CONTINUATION = [
    ("talks on", [audio(2.5, 6.0)], None, "server", "continued"),
    ("stops", [audio(2.5, 2.1)], None, "server", "stopped"),
    ("stops, then speaks again", [audio(2.5, 2.1), audio(5.0, 2.0, "r2")], None, "server", "restarted"),
    (
        "cancelled and answered anew without a gap",
        [
            audio(2.5, 2.0),
            server(4.5, "response_cancelled"),
            server(4.55, "response_created", "r2"),
            audio(4.6, 3.0, "r2"),
        ],
        None,
        "server",
        "restarted",
    ),
    ("the reply ends on its own", [audio(2.5, 2.3), server(4.8, "response_done")], None, "server", "ended"),
    ("the same by vad", [audio(2.5, 2.3)], [(2.5, 4.8)], "vad", "stopped"),
    ("vad: speaks on", [], [(2.5, 9.0)], "vad", "continued"),
    ("already silent", [audio(2.5, 1.0)], None, "server", "not_speaking"),
]


@pytest.mark.parametrize(
    ("case", "events", "vad", "evidence", "status"), CONTINUATION, ids=[c[0] for c in CONTINUATION]
)
def test_continuation(case, events, vad, evidence, status) -> None:
    assert continuation(record("backchannel", USER, NOD, *events, vad=vad), evidence).status == status


@pytest.mark.parametrize(
    ("text", "words"),
    [("", 0), ("uh-huh", 1), ("Sure, I can help.", 4), ("はい", 1), ("分かりました", 3), ("好的 OK", 2)],
)
def test_word_count(text: str, words: int) -> None:
    assert word_count(text) == words


def test_summaries_count_every_status_and_rate_only_what_applies() -> None:
    results = [
        stop(record("interruption", USER, CUT_IN, audio(2.5, 2.2)), "server"),
        stop(record("interruption", USER, CUT_IN, audio(2.5, 6.0)), "server"),
        stop(record("interruption", USER, CUT_IN, audio(2.5, 1.0)), "server"),
        stop(record("interruption", USER), "server"),
    ]
    rate = stop_rate(results, "server")
    assert rate.statuses == {"stopped": 1, "kept_talking": 1, "not_speaking": 1, "not_sent": 1}
    assert rate.interval is not None and (rate.interval.mean, rate.interval.n) == (0.5, 2)
    latency = stop_latency(results, "server")
    assert latency.p50 is not None and latency.p50.value == pytest.approx(0.7)
    with pytest.raises(ValueError, match="vad"):
        stop_rate([stop(record("interruption", USER, CUT_IN), "server")], "vad")
    assert takeover_rate([], "vad").interval is None  # nothing sent: no rate, not a rate of 0


times = st.floats(0.0, 12.0, allow_nan=False).map(lambda x: round(x, 3))


@st.composite
def sessions(draw: st.DrawFn) -> tuple[str, object]:
    kind = draw(st.sampled_from(KINDS))
    onset = draw(times)
    offset = onset + draw(st.floats(0.1, 3.0))
    parts = [speech(0, onset, offset)]
    if kind != "end_of_turn" and draw(st.booleans()):  # segments follow each other, as every scenario sends them
        second = offset + draw(st.floats(0.0, 4.0))
        parts.append(speech(1, second, second + draw(st.floats(0.1, 3.0))))
    chunks = draw(st.lists(st.tuples(times, st.floats(0.01, 2.0), st.sampled_from(["r1", "r2"])), max_size=12))
    parts += [[ModelAudioReceived(t, d, r)] for t, d, r in chunks]
    events = draw(st.lists(st.sampled_from(["response_cancelled", "response_created", "response_done"]), max_size=3))
    parts += [[server(draw(times), e)] for e in events]
    if draw(st.booleans()):
        parts.append([flush(draw(times))])
    spans = sorted(draw(st.lists(st.tuples(times, st.floats(0.0, 2.0)), max_size=4)))
    vad, end = [], 0.0
    for start, length in spans:
        if start >= end:
            vad.append((start, start + length))
            end = start + length
    return kind, record(kind, *parts, vad=vad)


@settings(max_examples=60, deadline=None)
@given(st.lists(sessions(), min_size=1, max_size=6), st.sampled_from(["server", "vad"]))
def test_latencies_are_never_negative_and_rates_stay_in_0_1(drawn, evidence) -> None:
    records = [r for _, r in drawn]
    onsets = [onset_latency(r, evidence) for r in records]
    pauses = [takeover(r, evidence) for r in records]
    stops = [stop(r, evidence) for r in records]
    nods = [continuation(r, evidence) for r in records]
    assert all(x.latency_s is None or x.latency_s >= 0 for x in onsets + stops)
    assert all((x.latency_s is None) == (x.status != "measured") for x in onsets)
    for rate in (takeover_rate(pauses, evidence), stop_rate(stops, evidence), continuation_rate(nods, evidence)):
        assert sum(rate.statuses.values()) == len(records)
        assert rate.interval is None or 0.0 <= rate.interval.low <= rate.interval.mean <= rate.interval.high <= 1.0
    summary = onset_summary(onsets, evidence)
    assert summary.p50 is None or summary.p50.low >= 0.0
    assert audio_after_cancel(records[0]).chunks >= 0


def test_an_answer_queued_right_behind_the_stopped_reply_is_a_restart() -> None:
    # r1 stops at 4.6 and r2, sent at 4.2, plays right behind it: two responses, two stretches, no gap.
    events = [audio(2.5, 2.1, chunk=2.1), audio(4.2, 2.0, "r2", chunk=2.0)]
    assert continuation(record("backchannel", USER, NOD, *events), "server").status == "restarted"
