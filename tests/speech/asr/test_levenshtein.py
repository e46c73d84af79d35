"""The bit-parallel edit distance equals the textbook dynamic programme (hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.speech.asr._cer import levenshtein


def table(a: Sequence[str], b: Sequence[str]) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[:], i
        for j, y in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x != y))
    return row[-1]


TEXT = st.text(alphabet="あいうabc明日", max_size=80)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_equals_the_table(a: str, b: str) -> None:
    assert levenshtein(a, b) == table(a, b) == levenshtein(b, a)


def test_long_texts_cross_machine_word_sizes() -> None:
    a, b = "あいうえお" * 40, ("あいえお" * 45)[:190]
    assert levenshtein(a, b) == table(a, b)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["set", "a", "timer", "for", "3"]), max_size=12),
    st.lists(st.sampled_from(["set", "the", "timer", "3"]), max_size=12),
)
def test_word_lists_equal_the_table(a: list[str], b: list[str]) -> None:
    """Tokens other than characters (words, for a word error rate) go through the same bit-parallel pass."""
    assert levenshtein(a, b) == table(a, b)
