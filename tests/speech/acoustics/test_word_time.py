"""Speaking time from the ASR's word times (the denominator of the speaking rate)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from voxeval.speech.acoustics import word_speech_time
from voxeval.speech.asr import Word


def test_short_gaps_count_and_pauses_do_not() -> None:
    words = [Word("a", 0.0, 0.5), Word("b", 0.6, 1.0), Word("c", 2.0, 2.5)]
    assert word_speech_time(words, 0.3) == 1.5  # 0–1.0 (gap 0.1 bridged) + 2.0–2.5; the 1 s pause is left out
    assert word_speech_time(words, 1.5) == 2.5  # a longer pause threshold bridges it
    assert word_speech_time([], 0.3) is None
    assert word_speech_time([Word("x", 1.0, 1.0)], 0.3) is None  # zero-length words time nothing


spans = st.lists(
    st.tuples(st.floats(0, 60, allow_nan=False), st.floats(0.01, 2, allow_nan=False)), min_size=1, max_size=30
)


@given(spans, st.floats(0, 2, allow_nan=False))
def test_between_the_words_own_time_and_the_whole_span(raw: list[tuple[float, float]], pause: float) -> None:
    words = [Word("w", start, start + length) for start, length in raw]
    total = word_speech_time(words, pause)
    assert total is not None
    whole = max(w.end for w in words) - min(w.start for w in words)
    longest = max(w.end - w.start for w in words)
    assert longest - 1e-6 <= total <= whole + 1e-6
    # Bridging every gap gives the whole span.
    assert abs((word_speech_time(words, 1e9) or 0) - whole) < 1e-6
