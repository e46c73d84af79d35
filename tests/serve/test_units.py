"""The served protocol's pure parts: the server_vad rule on hand-made probabilities, streaming Silero against the
whole clip, session.update, the conversation as a Turn."""

from __future__ import annotations

import numpy as np
import pytest

from voxeval.serve import ClientError, Item, ServerVad, SessionConfig, TurnDetector, apply_update, build_turn
from voxeval.serve._vad import WINDOW_MS


def edges(probabilities: list[float], vad: ServerVad, chunk: int) -> list[tuple[str, int, int]]:
    detector, found = TurnDetector(vad), []
    for i in range(0, len(probabilities), chunk):
        found += detector.feed(probabilities[i : i + chunk], i)
    return [(e.kind, e.at_ms, e.speech_start_ms) for e in found]


# 32 ms windows: 10 silent, 20 speech, then silence. Silence of 500 ms ends the turn after 16 windows (512 ms).
TURN = [0.0] * 10 + [0.9] * 20 + [0.1] * 30


@pytest.mark.parametrize("chunk", [1, 3, 60], ids=["window", "append", "all"])
def test_a_turn_starts_at_the_first_loud_window_and_ends_after_the_silence(chunk: int) -> None:
    got = edges(TURN, ServerVad(silence_duration_ms=500), chunk)
    assert got == [("started", 320, 0), ("stopped", round(46 * WINDOW_MS), 320)]  # silence from 960 ms, 16 windows


@pytest.mark.parametrize(
    ("probabilities", "expected"),
    [
        ([0.49] * 40, []),  # never reaches the threshold
        ([0.9] + [0.4] * 40, [("started", 0, 0)]),  # 0.4 is above 0.5 - 0.15: not silence, the turn goes on
        ([0.9] + [0.1] * 10 + [0.9] + [0.1] * 10, [("started", 0, 0)]),  # a loud window restarts the silence
    ],
    ids=["quiet", "hysteresis", "restart"],
)
def test_what_is_not_a_turn_end(probabilities: list[float], expected: list[tuple[str, int, int]]) -> None:
    assert edges(probabilities, ServerVad(silence_duration_ms=500), 1) == expected


def test_threshold_and_reset() -> None:
    assert edges([0.6] * 3, ServerVad(threshold=0.7), 1) == []
    detector = TurnDetector(ServerVad())
    assert detector.feed([0.9], 0)[0].kind == "started" and detector.speaking
    detector.reset()  # a commit or clear: the next loud window is a new turn
    assert detector.feed([0.9], 1)[0].at_ms == 32


def test_streaming_silero_scores_as_the_whole_clip() -> None:
    pytest.importorskip("faster_whisper")
    from faster_whisper.vad import get_vad_model

    from voxeval.serve import SileroStream
    from voxeval.speech.audio import Audio, resample

    rng = np.random.default_rng(0)
    t = np.arange(24_000 * 2) / 24_000
    pcm = np.sin(2 * np.pi * 180 * t) * (1 + np.sin(2 * np.pi * 3 * t)) * 6000 + rng.normal(0, 300, t.size)
    pcm = pcm.astype("<i2")
    stream, streamed = SileroStream(), []
    data, sizes = pcm.tobytes(), [4800, 962, 8, 2400]  # uneven appends (whole samples: the session checks that)
    while data:
        streamed += stream.feed(data[: sizes[0]])
        data, sizes = data[sizes[0] :], sizes[1:] + sizes[:1]
    whole = resample(Audio(pcm.astype(np.float32) / 32768, 24_000), 16_000).samples
    reference = np.asarray(get_vad_model()(whole[: len(whole) // 512 * 512])).reshape(-1)
    # The last window differs: resampling the whole clip at once pads its end, a stream holds the end back.
    assert len(streamed) == len(reference)
    assert np.allclose(streamed[:-1], reference[:-1], atol=1e-5)


def test_session_update_changes_what_it_names() -> None:
    config = SessionConfig("x")
    vad = {"type": "server_vad", "threshold": 0.6, "interrupt_response": False}
    audio = {"input": {"turn_detection": vad}, "output": {"voice": "cedar"}}
    updated = apply_update(
        config, {"type": "realtime", "instructions": "y", "output_modalities": ["text"], "audio": audio}
    )
    assert (updated.instructions, updated.output, updated.voice) == ("y", "text", "cedar")
    assert updated.turn_detection == ServerVad(threshold=0.6, interrupt_response=False)
    assert apply_update(updated, {"audio": {"input": {"turn_detection": None}}}).turn_detection is None
    assert apply_update(config, {"tools": [], "tracing": None}) == config  # empty: accepted


@pytest.mark.parametrize(
    ("session", "param"),
    [
        ({"output_modalities": ["audio", "text"]}, "session.output_modalities"),
        ({"max_output_tokens": 0}, "session.max_output_tokens"),
        ({"instructions": 3}, "session.instructions"),
        ({"audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}}}, "session.audio.input.format"),
        ({"audio": {"input": {"transcription": {"model": "whisper-1"}}}}, "session.audio.input.transcription"),
        ({"audio": {"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000}}}},
         "session.audio.input.turn_detection.idle_timeout_ms"),
        ({"audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": True}}}},
         "session.audio.input.turn_detection.silence_duration_ms"),
        ({"type": "transcription"}, "session.type"),
    ],
)  # fmt: skip
def test_session_update_refuses_what_is_not_served(session: dict[str, object], param: str) -> None:
    with pytest.raises(ClientError) as refused:
        apply_update(SessionConfig("x"), session)
    assert refused.value.param == param


def test_the_conversation_becomes_a_turn_with_its_history() -> None:
    pcm = np.ones(2400, dtype="<i2").tobytes()
    items = [Item("a", "user", "", pcm), Item("b", "user", "more", pcm), Item("c", "assistant", "ok"),
             Item("d", "user", "prompt"), Item("e", "user", "", pcm)]  # fmt: skip
    turn = build_turn(items, "s/e", ("sys", "zh"))
    assert (turn.id, turn.system_prompt, turn.user_prompt, turn.language) == ("s/e", "sys", "prompt", "zh")
    assert [(s.role, s.text) for s in turn.history] == [("user", "more"), ("assistant", "ok")]
    assert turn.history[0].audio is not None and len(turn.history[0].audio) == 44 + 2 * len(pcm)  # a and b joined
    with pytest.raises(ClientError, match="no user input"):
        build_turn(items[:3], "t", ("s", "ja"))
    with pytest.raises(ClientError, match="no audio"):
        build_turn(items[:4], "t", ("s", "ja"))
    with pytest.raises(ClientError, match="starts with an assistant"):
        build_turn(items[2:], "t", ("s", "ja"))


def test_serve_imports_nothing_of_runs_reports_or_the_cli() -> None:
    from tests.run.test_benchmark_registry import imported

    upward = ("voxeval.run", "voxeval.benchmark", "voxeval.report", "voxeval.cli", "voxeval.label", "voxeval.duplex")
    assert not {m for m in imported("serve") if m.startswith(upward)}
