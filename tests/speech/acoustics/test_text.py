"""Speech units counted in text: morae, syllables, numbers."""

from __future__ import annotations

import pytest

from voxeval.speech.acoustics import (
    count_units,
    english_syllables,
    int_to_chinese,
    int_to_english,
    morae,
    pinyin_tokens,
)


@pytest.mark.parametrize(
    ("text", "language", "count", "unit"),
    [
        ("今日は12月25日です", "ja", 16, "mora"),  # キョ ー ワ ジュ ー ニ ガ ツ ニ ジュ ー ゴ ニ チ デ ス
        ("きゃっと", "ja", 3, "mora"),  # キャ ッ ト: small ャ joins, ッ counts
        ("今天天气很好。", "zh", 6, "syllable"),
        ("我有3个", "zh", 4, "syllable"),  # 3 → 三
        ("The weather is nice today.", "en", 7, "syllable"),
        ("I have 21 apples", "en", 7, "syllable"),  # twen-ty one
        ("", "en", 0, "syllable"),
    ],
)
def test_count_units(text: str, language: str, count: int, unit: str) -> None:
    units = count_units(text, language)
    assert (units.count, units.unit) == (count, unit)


@pytest.mark.parametrize(
    ("word", "n"), [("cat", 1), ("make", 1), ("table", 2), ("tomorrow", 3), ("the", 1), ("see", 1), ("rhythm", 1)]
)
def test_english_syllables(word: str, n: int) -> None:
    assert english_syllables(word) == n


def test_morae_split_small_kana() -> None:
    assert morae("ジューニガツ") == ["ジュ", "ー", "ニ", "ガ", "ツ"]


@pytest.mark.parametrize(
    ("n", "zh", "en"),
    [
        (0, "零", "zero"),
        (10, "十", "ten"),
        (25, "二十五", "twenty five"),
        (105, "一百零五", "one hundred five"),
        (1010, "一千零一十", "one thousand ten"),
        (120_000, "十二万", "one hundred twenty thousand"),
    ],
)
def test_numbers_spelled(n: int, zh: str, en: str) -> None:
    assert int_to_chinese(n) == zh
    assert int_to_english(n) == en


def test_pinyin_is_toneless_so_homophones_are_equal() -> None:
    assert pinyin_tokens("天气") == pinyin_tokens("天汽") == ["tian", "qi"]
