"""Content and language steps on transcripts."""

from __future__ import annotations

import pytest

from voxeval.judge._content import Token, align, check_content, check_language, numbers_in

CASES = [
    # (required, heard, language, verdict)
    ("今天天气很好", "今天天气很好", "zh", "compliant"),
    ("今天天气很好", "今天天汽狠好", "zh", "compliant"),  # ASR homophones: same toneless pinyin
    ("我们去公园散步吧", "我們去公園散步吧", "zh", "compliant"),  # traditional characters
    ("今天天气很好", "嗯，今天天气很好啊", "zh", "compliant"),  # interjections
    ("今天天气很好", "好的！今天天气很好。还需要别的吗？", "zh", "compliant"),  # greeting and offer around it
    ("今天天气很好", "明天会下雨", "zh", "non_compliant"),
    ("今天天气很好", "今天很好", "zh", "non_compliant"),  # deletion of core content
    ("今日は天気が良いです", "えーと、今日は天気がいいです。", "ja", "compliant"),  # filler, kana reading
    ("今日は天気が良いです", "きょうはてんきがよいです", "ja", "compliant"),  # kanji vs kana: same reading
    ("今日は天気が良いです", "明日は雨が降ります", "ja", "non_compliant"),
    ("Whoa, that is amazing", "Wow, that is amazing!", "en", "compliant"),  # interjection swap
    ("I went there yesterday", "I went their yesterday", "en", "compliant"),  # homophone
    ("I I love this song", "I-I-I love this song", "en", "compliant"),  # stutter
    ("Please close the window", "Sure! Please close the window. Anything else?", "en", "compliant"),
    ("Please close the window", "Please open the door", "en", "non_compliant"),
    ("one two three four five", "1, 2, 3, 4, 5.", "en", "compliant"),  # counting, digits vs words
    ("one two three four five", "1, 2, 3, 5.", "en", "non_compliant"),  # a number missing
    ("1, 2, 3, 4, 5", "Here you go: 1, 2, 3, 4, 5, 6.", "en", "non_compliant"),  # one too many
    ("一二三四五", "好的，一、二、三、四、五。", "zh", "compliant"),
    ("一二三四五", "1,2,3,4,5", "zh", "compliant"),
    ("一二三四五", "一二三四", "zh", "non_compliant"),
    ("1 2 3 4 5 6 7 8 9 10", "好的 我来数一下 12345678910请问", "zh", "compliant"),  # ASR ran the digits together
    ("1 2 3 4 5 6 7 8 9 10", "好的,我会从1数到101 2 3 4 5 6 7 8 9 10这", "zh", "compliant"),  # glued to "到10"
    ("1 2 3 4 5 6 7 8 9 10", "1234567891011", "zh", "non_compliant"),  # run together, one too many
    ("1 2 3 4 5 6 7 8 9 10", "从一数到四1 2 3 4", "zh", "non_compliant"),
    ("hello", "", "en", "non_compliant"),  # nothing said
    ("hello", "um, uh", "en", "non_compliant"),  # only hesitations
]


@pytest.mark.parametrize(("required", "heard", "language", "verdict"), CASES)
def test_check_content(required: str, heard: str, language: str, verdict: str) -> None:
    result = check_content(required, heard, language, "exact")
    assert result.verdict == verdict, result.reason


def test_many_added_sentences_are_unrequested_content() -> None:
    heard = "Close the window. " + "Also here is a long story about my weekend and the weather. " * 3
    result = check_content("Close the window", heard, "en", "exact")
    assert result.verdict == "non_compliant"
    assert "adds" in result.reason


@pytest.mark.parametrize("mode", ["open", "unknown"])
def test_open_tasks_are_not_checked_and_say_so(mode: str) -> None:
    result = check_content("anything", "Some reply about the weather.", "en", mode)  # type: ignore[arg-type]
    assert result.verdict == "not_checked"
    assert "not checked" in result.reason


def test_exact_task_without_known_content_is_not_checked() -> None:
    assert check_content("", "hello there", "en", "exact").verdict == "not_checked"


@pytest.mark.parametrize(
    ("expected", "detected", "probability", "ok"),
    [
        ("zh", "zh", 0.99, True),
        ("zh", "en", 0.97, False),  # wrong language, confidently
        ("ja", "zh", 0.55, True),  # unsure language ID does not fail a reply
        ("en", None, None, True),
        ("ja", "en", None, False),
    ],
)
def test_check_language(expected: str, detected: str | None, probability: float | None, ok: bool) -> None:
    assert check_language(expected, detected, probability)[0] is ok


def test_alignment_is_semi_global() -> None:
    def toks(s: str) -> list[Token]:
        return [Token(c, c) for c in s]

    assert align(toks("abc"), toks("xxabcyy")) == (0.0, 2, 5)
    assert align(toks("abc"), toks("ab")) == (1.0, 0, 2)


def test_numbers_in_mixed_text() -> None:
    assert numbers_in("twenty one and 5", "en") == [21, None, 5]
    assert numbers_in("一百零五个", "zh") == [105, None]
