"""The short-clip decoding plan (pure) and the Whisper engine's short path against its full path."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from voxeval.speech.asr._short import (
    FRAMES_PER_SECOND,
    FULL_WINDOW_S,
    MIN_TOKENS,
    MIN_WINDOW_S,
    SAMPLE_RATE,
    SHORT_MAX_S,
    WINDOW_MARGIN_S,
    batches_by_window,
    plan_clip,
    window_features,
)

FULL = FULL_WINDOW_S * FRAMES_PER_SECOND


def test_no_speech_heard_takes_the_full_path() -> None:
    plan = plan_clip(48_000, [])
    assert not plan.is_short and plan.window_frames == FULL and (plan.start, plan.end) == (0, 48_000)


def test_long_speech_takes_the_full_path() -> None:
    n = int((SHORT_MAX_S + 2) * SAMPLE_RATE)
    assert not plan_clip(n, [(0, n)]).is_short


def test_pads_around_speech_are_clamped_to_the_clip() -> None:
    plan = plan_clip(32_000, [(100, 31_900)])
    assert (plan.start, plan.end) == (0, 32_000)


@given(
    n=st.integers(SAMPLE_RATE // 10, 40 * SAMPLE_RATE),
    cuts=st.lists(st.floats(0, 1), min_size=2, max_size=6),
)
def test_plan_invariants(n: int, cuts: list[float]) -> None:
    points = sorted(int(c * n) for c in cuts)
    speech = [(a, b) for a, b in zip(points[::2], points[1::2], strict=False) if b > a]
    plan = plan_clip(n, speech)
    assert 0 <= plan.start <= plan.end <= n
    assert 0 < plan.window_frames <= FULL
    if plan.is_short:
        # the window holds all the kept speech plus the margin, and the token budget is positive
        assert plan.window_frames >= (plan.speech_seconds + WINDOW_MARGIN_S) * FRAMES_PER_SECOND - 1e-6
        assert plan.window_frames >= MIN_WINDOW_S * FRAMES_PER_SECOND  # Whisper is unreliable on short windows
        assert plan.max_tokens >= MIN_TOKENS
        assert plan.window_frames % FRAMES_PER_SECOND == 0


def test_window_features_pads_and_cuts() -> None:
    feats = np.ones((80, 250), dtype=np.float32)
    padded = window_features(feats, 400)
    assert padded.shape == (80, 400) and padded[:, :250].all() and not padded[:, 250:].any()
    assert window_features(feats, 100).shape == (80, 100)


def test_batches_share_one_window_and_respect_the_size() -> None:
    plans = [plan_clip(n, [(0, n)]) for n in (16_000, 16_000, 160_000, 16_000, 0)]
    plans[-1] = plan_clip(SAMPLE_RATE * 40, [(0, SAMPLE_RATE * 40)])  # long: not batched
    groups = batches_by_window(plans, 2)
    assert groups == [[0, 1], [3], [2]]
    assert all(len({plans[i].window_frames for i in g}) == 1 for g in groups)


def test_short_clips_share_the_minimum_window() -> None:
    """Clips up to MIN_WINDOW_S - margin of speech all get the same window, so they batch together."""
    plans = [plan_clip(n, [(0, n)]) for n in (8_000, 32_000, 96_000)]
    assert {p.window_frames for p in plans} == {int(MIN_WINDOW_S * FRAMES_PER_SECOND)}
    assert batches_by_window(plans, 8) == [[0, 1, 2]]


def test_replacement_characters_of_a_split_multibyte_token_are_dropped() -> None:
    """Whisper's byte-level tokens can cut a Mandarin character in two; the U+FFFD that decodes to is not speech."""
    from voxeval.speech.asr._whisper import without_partial_characters

    assert without_partial_characters("明天\ufffd会下雨\ufffd\ufffd。") == "明天会下雨。"
    assert without_partial_characters("no change") == "no change"
