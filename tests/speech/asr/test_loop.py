"""The repetition-loop detector (pure): loops Whisper produced flag, what people say does not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.data import resolve_dataset
from voxeval.speech.asr._loop import (
    MAX_CHAR_RUN,
    MAX_PHRASE_CHARS,
    MAX_UNIT_CHARS,
    MAX_UNIT_REPEATS,
    STRETCHERS,
    loop_symptom,
    speech_units,
)

# Transcripts Whisper base produced on synthetic clips with trailing silence or noise (docs/speech.md).
ISSUE_39 = "3分のタイマーをスタートしました。は" + "ぁ" * 40
HA = "3分のタイマーをスタートしました。" + "はっ" * 60
ZH_CLAUSE = (
    "抱歉,我愛普們的帕林,我愛了這條,林可以太太無敘而散,林留帕的帕," + "我愛了這條,林留帕的帕林," * 2 + "我愛了這條,"
)


@pytest.mark.parametrize(
    ("text", "language", "seconds", "symptom"),
    [
        ("", "ja", 2.0, None),  # nothing said: no loop
        ("はい。", "ja", 0.4, None),
        ("3分のタイマーをスタートしました。", "ja", 2.1, None),
        ("Set a timer for three minutes.", "en", 1.9, None),
        ("定个三分钟的计时器。", "zh", 2.0, None),
        ("The price is 1000000 yen.", "en", 2.0, None),  # digits in a row are a number
        ("はいはい、わかりました。", "ja", 1.5, None),  # a word said twice is speech
        ("すごーーーーーい！", "ja", 1.0, None),  # a long vowel
        ("Well...... okay.", "en", 1.0, None),  # a trailing off
        (ISSUE_39, "ja", 2.1, "compression"),
        (HA, "ja", 2.1, "compression"),
        ("3分のタイマーをスタートしました。はぁぁぁぁぁぁ", "ja", 2.1, "repeat"),
        ("Okay, the the the the timer is set.", "en", 2.0, "repeat"),
        ("Okay. Hahahahaha.", "en", 2.0, "repeat"),
        (ZH_CLAUSE, "zh", 9.7, "repeat"),
        ("Thank you for watching. Thank you for watching.", "en", 3.0, "repeat"),
        ("明日は晴れ、明後日は雨、その次は曇りで、週末は雪でしょう", "ja", 1.0, "rate"),
        ("明日は晴れ、明後日は雨、その次は曇りで、週末は雪でしょう", None, 1.0, "rate"),  # language unknown: kanji
        (" ".join(str(n) for n in range(1, 17)), "en", 1.5, "rate"),  # sixteen words in 1.5 s
        ("明日は晴れ、明後日は雨、その次は曇りで、週末は雪でしょう", "ja", None, None),  # no speech time: no rate
        ("短い", "ja", 0.01, None),  # too few units for a rate
    ],
)
def test_symptoms(text: str, language: str | None, seconds: float | None, symptom: str | None) -> None:
    assert loop_symptom(text, language, seconds) == symptom


def _sentences() -> list[tuple[str, str]]:
    out = []
    for name in ("ja-assistant", "ja-probe", "en-assistant", "zh-assistant"):
        data = resolve_dataset(name)
        out += [(t, data.language) for s in data.samples for t in (s.input_text, s.output_text)]
    return sorted(set(out))  # distinct: one sentence said twice in a row is a loop symptom


SENTENCES = _sentences()
NORMAL_RATE = {"ja": 9.0, "zh": 6.0, "en": 3.5}
"""A brisk speaking rate (characters or words per second): replies read at it never flag."""


def test_no_dataset_sentence_flags() -> None:
    flagged = [
        (t, loop_symptom(t, lang, speech_units(t, lang) / NORMAL_RATE[lang]))
        for t, lang in SENTENCES
        if loop_symptom(t, lang, speech_units(t, lang) / NORMAL_RATE[lang])
    ]
    assert not flagged


@pytest.mark.parametrize("name", ["ja-assistant", "zh-assistant", "en-assistant"])
def test_a_long_reply_never_flags(name: str) -> None:
    """Every reply of a dataset joined (tens of minutes of speech): long texts compress well without looping."""
    data = resolve_dataset(name)
    text = (" " if data.language == "en" else "").join(s.output_text for s in data.samples)
    assert loop_symptom(text, data.language, speech_units(text, data.language) / NORMAL_RATE[data.language]) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(SENTENCES), min_size=2, max_size=4, unique=True), st.booleans())
def test_a_reply_of_several_dataset_sentences_never_flags(picked: list[tuple[str, str]], spaced: bool) -> None:
    language = picked[0][1]
    text = (" " if spaced or language == "en" else "").join(t for t, lang in picked if lang == language)
    assert loop_symptom(text, language, speech_units(text, language) / NORMAL_RATE[language]) is None


_LETTERS = st.characters(categories=("L",), exclude_characters="\u3000")


@settings(max_examples=60, deadline=None)
@given(st.text(_LETTERS, min_size=2, max_size=MAX_UNIT_CHARS), st.sampled_from(["ja", "zh", "en", None]))
def test_a_short_group_said_over_and_over_flags(unit: str, language: str | None) -> None:
    assert loop_symptom("はい。" + unit * MAX_UNIT_REPEATS, language, None) is not None


@settings(max_examples=60, deadline=None)
@given(st.text(_LETTERS, min_size=MAX_UNIT_CHARS + 1, max_size=MAX_PHRASE_CHARS), st.sampled_from(["ja", "en"]))
def test_a_phrase_said_twice_in_a_row_flags(phrase: str, language: str) -> None:
    assert loop_symptom(phrase + phrase, language, None) is not None


@given(st.characters(categories=("L", "P", "S"), exclude_characters=STRETCHERS), st.sampled_from(["ja", "zh", "en"]))
def test_one_character_run_flags(char: str, language: str) -> None:
    assert loop_symptom("OK " + char * MAX_CHAR_RUN, language, None) is not None
