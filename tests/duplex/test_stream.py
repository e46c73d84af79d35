"""The streaming driver against the duplex mock: each figure recovers the mock's configured behaviour, per protocol
(rates exactly, latencies within a tolerance), and the faults end sessions as documented.

Every session of the module runs concurrently in one event loop (one fixture), so the module takes as long as its
longest session (~8 s), not their sum.
"""

from __future__ import annotations

import asyncio
import dataclasses

import numpy as np
import pytest

from voxeval.duplex import (
    Clip,
    Scenario,
    ScenarioSource,
    SendAt,
    SessionRecord,
    audio_after_cancel,
    backchannel,
    continuation,
    end_of_turn,
    interruption,
    onset_latency,
    pause,
    session_key,
    stop,
    takeover,
)
from voxeval.llm import SessionModel
from voxeval.llm.stream import StreamSettings, Take, TurnDetection, drive
from voxeval.testing.realtime import DuplexMockServer, TurnBehaviour

TOLERANCE_S = 0.05
"""Latencies within this of the configured value (the issue asks 30 ms on an idle machine; CI runners are not)."""
SOURCE = ScenarioSource("ja-assistant", "s1", "ja", "明日の天気を調べて、傘がいるか教えて")
OTHER = ScenarioSource("ja-assistant", "s2", "ja", "3分測って")
SETTINGS = StreamSettings(frame_ms=40, answer_timeout_s=1.5, bound_s=12.0, settle_s=0.3)

TALKS = TurnBehaviour(silence_ms=300, reply_delay_ms=200, reply_s=2.2, stop_after_ms=400)
"""Answers 0.5 s after the turn; takes over a 1.5 s pause; stops 0.4 s after a barge-in; talks through 「うん」."""
WAITS = TurnBehaviour(silence_ms=1600, reply_delay_ms=200, reply_s=1.0)
"""Waits through a 1.5 s pause (takes the turn after 1.6 s of silence)."""
IGNORES = TurnBehaviour(silence_ms=300, reply_delay_ms=200, reply_s=2.8, barge_in="ignore")
"""Talks on over an interruption."""
STOPS = TurnBehaviour(silence_ms=300, reply_delay_ms=200, reply_s=2.2, stop_after_ms=400, backchannel="stop")
"""Stops for a backchannel too."""


def clip(speech_s: float, seed: int) -> Clip:
    """Noise 'speech' with 120 ms of silence at both ends, as input clips have."""
    pad = np.zeros(round(0.12 * 24_000), dtype="<i2")
    noise = np.random.default_rng(seed).integers(-3000, 3000, round(speech_s * 24_000)).astype("<i2")
    noise[noise == 0] = 1000
    return Clip(np.concatenate([pad, noise, pad]).tobytes(), 0.12, 0.12 + speech_s)


def planned(kind: str, offset: float) -> Scenario:
    """A scenario of ``kind`` on SOURCE whose second segment's offset is ``offset``."""
    made = {
        "end_of_turn": end_of_turn(SOURCE, 0),
        "pause": pause(SOURCE, 0),
        "interruption": interruption(SOURCE, OTHER, 0),
        "backchannel": backchannel(SOURCE, 0),
    }[kind]
    assert made is not None
    segments = list(made.segments)
    if len(segments) > 1:
        segments[1] = dataclasses.replace(segments[1], send=SendAt(segments[1].send.anchor, offset))
    return dataclasses.replace(made, segments=tuple(segments))


CLIPS = {
    "end_of_turn": [clip(0.6, 1)],
    "pause": [clip(0.4, 2), clip(0.4, 3)],
    "interruption": [clip(0.6, 1), clip(0.8, 4)],
    "backchannel": [clip(0.6, 1), clip(0.25, 5)],
}
OFFSETS = {"end_of_turn": 0.0, "pause": 1.5, "interruption": 0.5, "backchannel": 0.5}
CASES = [
    ("talks", "end_of_turn"),
    ("talks", "pause"),
    ("talks", "interruption"),
    ("talks", "backchannel"),
    ("waits", "pause"),
    ("ignores", "interruption"),
    ("stops", "backchannel"),
    ("silent", "end_of_turn"),
    ("forever", "end_of_turn"),
    ("drops", "end_of_turn"),
    ("late", "interruption"),
]
BEHAVIOURS = {
    "talks": TALKS,
    "waits": WAITS,
    "ignores": IGNORES,
    "stops": STOPS,
    "silent": TurnBehaviour(silence_ms=9000),
    "forever": TurnBehaviour(silence_ms=300, reply_s=30.0),
    "drops": TALKS,
    "late": dataclasses.replace(TALKS, late_deltas=3),
}


def model(protocol: str, url: str) -> SessionModel:
    from voxeval.llm import session_model_from_spec

    spec = f"{protocol}:mock@{url}?key_env=VOXEVAL_DUPLEX_TEST_KEY&max_retries=2"
    built = session_model_from_spec(spec)
    built.sleep = lambda _: asyncio.sleep(0)
    return built


def record(take: Take, system: str, scenario: Scenario) -> SessionRecord:
    return SessionRecord(
        session_key(system, scenario), system, scenario, scenario.sample_id, tuple(take.events), "rec.wav"
    )


@pytest.fixture(scope="module")
def sessions() -> dict[tuple[str, str, str], tuple[SessionRecord, Take]]:
    """Every (protocol, behaviour, kind) session, streamed concurrently."""
    mp = pytest.MonkeyPatch()
    mp.setenv("VOXEVAL_DUPLEX_TEST_KEY", "k")
    servers = {name: DuplexMockServer(b, drops=2 if name == "drops" else 0) for name, b in BEHAVIOURS.items()}
    for server in servers.values():
        server.__enter__()

    async def one(protocol: str, name: str, kind: str) -> tuple[SessionRecord, Take]:
        server = servers[name]
        url = server.openai_url if protocol == "openai" else server.gemini_url
        scenario = planned(kind, OFFSETS[kind])
        settings = dataclasses.replace(SETTINGS, bound_s=3.0) if name == "forever" else SETTINGS
        take = await drive(model(protocol, url), scenario, CLIPS[kind], TurnDetection(), settings, "")
        return record(take, f"{protocol}-{name}", scenario), take

    async def everything() -> list[tuple[SessionRecord, Take]]:
        return await asyncio.gather(*(one(p, n, k) for p in ("openai", "gemini") for n, k in CASES))

    try:
        done = asyncio.run(everything())
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)
        mp.undo()
    keys = [(p, n, k) for p in ("openai", "gemini") for n, k in CASES]
    return dict(zip(keys, done, strict=True))


PROTOCOLS = pytest.mark.parametrize("protocol", ["openai", "gemini"])


@PROTOCOLS
def test_onset_latency_is_the_configured_silence_plus_delay(sessions, protocol) -> None:
    rec, take = sessions[(protocol, "talks", "end_of_turn")]
    assert take.outcome == "answered"
    onset = onset_latency(rec, "server")
    assert onset.status == "measured"
    assert onset.latency_s == pytest.approx(0.5, abs=TOLERANCE_S)


@PROTOCOLS
def test_takeover_after_the_configured_pause_and_not_before(sessions, protocol) -> None:
    took, _ = sessions[(protocol, "talks", "pause")]
    waited, _ = sessions[(protocol, "waits", "pause")]
    assert takeover(took, "server").status == "took_over"
    assert takeover(waited, "server").status == "waited"
    # the pause as planned
    assert takeover(took, "server").pause.duration == pytest.approx(1.5, abs=1e-6)


@PROTOCOLS
def test_stop_latency_is_the_configured_delay_and_ignoring_keeps_talking(sessions, protocol) -> None:
    stopped, take = sessions[(protocol, "talks", "interruption")]
    result = stop(stopped, "server")
    assert take.outcome == "answered"
    assert result.status == "stopped"
    assert result.latency_s == pytest.approx(0.4, abs=TOLERANCE_S)
    assert stop(sessions[(protocol, "ignores", "interruption")][0], "server").status == "kept_talking"


@PROTOCOLS
def test_continuation_through_a_backchannel_or_not(sessions, protocol) -> None:
    assert continuation(sessions[(protocol, "talks", "backchannel")][0], "server").status == "continued"
    assert continuation(sessions[(protocol, "stops", "backchannel")][0], "server").status in ("stopped", "restarted")


@PROTOCOLS
def test_a_session_that_never_detects_the_turn_ends_by_timeout(sessions, protocol) -> None:
    rec, take = sessions[(protocol, "silent", "end_of_turn")]
    assert take.outcome == "timeout"
    assert onset_latency(rec, "server").status == "no_reply"  # never a zero latency


@PROTOCOLS
def test_a_model_talking_forever_is_cut_at_the_bound(sessions, protocol) -> None:
    _, take = sessions[(protocol, "forever", "end_of_turn")]
    assert take.outcome == "bound"
    assert take.events[-1].t == pytest.approx(3.0, abs=0.2)


@PROTOCOLS
def test_a_dropped_socket_reruns_the_whole_scenario(sessions, protocol) -> None:
    rec, take = sessions[(protocol, "drops", "end_of_turn")]
    assert take.attempts == 2 and take.outcome == "answered"
    assert onset_latency(rec, "server").latency_s == pytest.approx(0.5, abs=TOLERANCE_S)
    assert sum(e.TYPE == "end" for e in take.events) == 1  # nothing of the dropped session in the take


@PROTOCOLS
def test_audio_after_a_cancel_is_counted(sessions, protocol) -> None:
    late = audio_after_cancel(sessions[(protocol, "late", "interruption")][0])
    clean = audio_after_cancel(sessions[(protocol, "talks", "interruption")][0])
    assert (late.chunks, clean.chunks) == (3, 0)
