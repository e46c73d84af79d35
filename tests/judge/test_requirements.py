"""Style requirements from free-text instructions, table-driven per language."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.judge import ATTRIBUTES, LEVELS, parse_requirements

EN = [
    ("Say it in a very slow, deep voice.", {"speed": "very_slow", "pitch": "low"}),
    ("Please speak slowly.", {"speed": "slow"}),
    ("Read this extremely fast.", {"speed": "very_fast"}),
    ("Answer as quickly as possible.", {"speed": "very_fast"}),
    ("Tell me the news at a normal pace.", {"speed": "normal"}),
    ("Respond in a deep male voice.", {"gender": "male", "pitch": "low"}),
    ("Use a very high-pitched voice.", {"pitch": "very_high"}),
    ("Speak in a squeaky voice like a cartoon.", {"pitch": "high"}),
    ("Say it loudly!", {"volume": "loud"}),
    ("Say it really, really loud.", {"volume": "very_loud"}),
    ("Whisper the answer to me.", {"volume": "very_quiet"}),
    ("Speak softly so the baby doesn't wake up.", {"volume": "quiet"}),
    ("Shout it from the rooftops", {"volume": "very_loud"}),
    ("Talk like a little girl telling a story.", {"gender": "female", "age": "child"}),
    ("Imitate an old man complaining about the weather.", {"gender": "male", "age": "elderly"}),
    ("Use the voice of a middle-aged woman.", {"gender": "female", "age": "middle_aged"}),
    ("Sound like a teenager.", {"age": "teenager"}),
    ("Say it happily.", {"emotion": "happy"}),
    ("Tell me in a sad tone that the shop is closed.", {"emotion": "sad"}),
    ("Reply angrily.", {"emotion": "angry"}),
    ("Sound terrified as you describe the noise.", {"emotion": "fearful"}),
    ("Don't speak too fast.", {}),
    ("Say “I am so happy today” in a sad voice.", {"emotion": "sad"}),  # quoted content is not the style
    ("Read “the weather is fine” with a neutral, calm tone, slowly and quietly.",
     {"speed": "slow", "volume": "quiet", "emotion": "neutral"}),
]  # fmt: skip

ZH = [
    ("用非常快的语速说", {"speed": "very_fast"}),
    ("请用很慢的语速朗读这段话", {"speed": "very_slow"}),
    ("语速快一点", {"speed": "fast"}),
    ("语速极快地读出来", {"speed": "very_fast"}),
    ("慢慢地说", {"speed": "slow"}),
    ("说话不要太快", {}),
    ("用正常的语速说", {"speed": "normal"}),
    ("用低沉的声音说", {"pitch": "low"}),
    ("音调非常高", {"pitch": "very_high"}),
    ("用尖细的嗓音说", {"pitch": "high"}),
    ("大声说出来", {"volume": "loud"}),
    ("非常大声地喊出这句话", {"volume": "very_loud"}),
    ("小声告诉我", {"volume": "quiet"}),
    ("用耳语的方式说", {"volume": "very_quiet"}),
    ("用小女孩的声音说", {"gender": "female", "age": "child"}),
    ("模仿一位老爷爷讲故事", {"gender": "male", "age": "elderly"}),
    ("用中年男性的声音", {"gender": "male", "age": "middle_aged"}),
    ("用年轻女性的声音", {"gender": "female", "age": "young_adult"}),
    ("用开心的语气说", {"emotion": "happy"}),
    ("用非常伤心的语气说", {"emotion": "sad"}),
    ("生气地说", {"emotion": "angry"}),
    ("用害怕的语气说", {"emotion": "fearful"}),
    ("用很快的语速、开心的语气说“今天真快乐”", {"speed": "very_fast", "emotion": "happy"}),
    ("用女生的声音，语速比较慢", {"gender": "female", "speed": "slow"}),
]

JA = [
    ("とても大きな声で言ってください", {"volume": "very_loud"}),
    ("大きな声で", {"volume": "loud"}),
    ("小さな声でささやくように", {"volume": "very_quiet"}),  # quiet, then stated more strongly (a whisper)
    ("ささやき声で話して", {"volume": "very_quiet"}),
    ("ゆっくり話してください", {"speed": "slow"}),
    ("とてもゆっくり話してください", {"speed": "very_slow"}),
    ("早口で話して", {"speed": "fast"}),
    ("できるだけ速く読んで", {"speed": "very_fast"}),
    ("速く話さないでください", {}),
    ("低い声で話して", {"pitch": "low"}),
    ("かなり高い声で", {"pitch": "very_high"}),
    ("おじいさんの声で話して", {"gender": "male", "age": "elderly"}),
    ("おばあさんのように", {"gender": "female", "age": "elderly"}),
    ("女の子の声で", {"gender": "female", "age": "child"}),
    ("若い男性の声で", {"gender": "male", "age": "young_adult"}),
    ("中年女性の声で", {"gender": "female", "age": "middle_aged"}),
    ("嬉しそうに言って", {"emotion": "happy"}),
    ("悲しそうに話して", {"emotion": "sad"}),
    ("怒った声で", {"emotion": "angry"}),
    ("驚いたように", {"emotion": "surprised"}),
    ("怖がっている感じで", {"emotion": "fearful"}),
    ("「今日は嬉しい」と悲しそうに言って", {"emotion": "sad"}),
    ("男性の声で、ゆっくり、落ち着いて話して", {"gender": "male", "speed": "slow", "emotion": "neutral"}),
]


@pytest.mark.parametrize(("text", "expected"), EN)
def test_english(text: str, expected: dict[str, str]) -> None:
    assert parse_requirements(text, "en") == expected


@pytest.mark.parametrize(("text", "expected"), ZH)
def test_chinese(text: str, expected: dict[str, str]) -> None:
    assert parse_requirements(text, "zh") == expected


@pytest.mark.parametrize(("text", "expected"), JA)
def test_japanese(text: str, expected: dict[str, str]) -> None:
    assert parse_requirements(text, "ja") == expected


def test_tables_have_at_least_15_cases_per_language() -> None:
    assert min(len(EN), len(ZH), len(JA)) >= 15


def test_first_statement_of_an_attribute_wins() -> None:
    assert parse_requirements("Start slowly, then speed up and finish fast.", "en") == {"speed": "slow"}


def test_unknown_language_is_an_error() -> None:
    with pytest.raises(ValueError, match="fr"):
        parse_requirements("parlez lentement", "fr")


@given(text=st.text(max_size=200), language=st.sampled_from(["en", "zh", "ja"]))
def test_levels_are_always_canonical(text: str, language: str) -> None:
    for attribute, level in parse_requirements(text, language).items():
        assert attribute in ATTRIBUTES and level in LEVELS[attribute]
