"""The offline cascade answers in each sample's language: its LLM prompt and its reply voice follow the turn."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from voxeval.errors import ConfigError
from voxeval.systems import Turn, default_prompts
from voxeval.systems._cascade import CascadeSystem, parse_cascade_options
from voxeval.testing.mockserver import MockServer, sine_wav

MARKERS = {"ja": "ユーザーの発話（音声認識結果）", "en": "The user's utterance", "zh": "用户的话（语音识别结果）"}


def _answer(endpoint: str, request: dict) -> str:
    user = request["messages"][1]["content"]
    return next(f"reply in {lang}" for lang, marker in MARKERS.items() if marker in user)


def _turn(language: str) -> Turn:
    system, user = default_prompts(language)
    return Turn(f"t-{language}", sine_wav(0.1), system, user, reference_text="hello 你好", language=language)


@pytest.mark.parametrize("fixed", [None, "zh"])
def test_prompt_follows_the_turn_language_unless_fixed(fixed: str | None) -> None:
    with MockServer(_answer) as server:
        options = f"asr=oracle,llm=openai-compat:m@{server.openai_base_url}?max_retries=0,tts=none"
        cascade = CascadeSystem(parse_cascade_options(options + (f",language={fixed}" if fixed else "")))
        replies = {lang: asyncio.run(cascade.respond(_turn(lang))) for lang in ("ja", "en", "zh")}
        systems = [r.json["messages"][0]["content"] for r in server.requests]
    for lang, reply in replies.items():
        assert reply.text == f"reply in {fixed or lang}" and reply.meta["language"] == (fixed or lang)
    # The system prompt is the run's (Appendix B in the dataset's language), passed through unchanged.
    assert systems == [default_prompts(lang)[0] for lang in ("ja", "en", "zh")]
    assert "你是" in systems[2] and "English" in systems[1]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_reply_voice_follows_the_turn_language() -> None:
    with MockServer(_answer) as server:
        options = f"asr=oracle,llm=openai-compat:m@{server.openai_base_url}?max_retries=0"
        cascade = CascadeSystem(parse_cascade_options(options))
        for lang in ("en", "zh"):
            assert asyncio.run(cascade.respond(_turn(lang))).audio
    assert {k: v.voice for k, v in cascade._tts.items()} == {"en": "en-us", "zh": "cmn-latn-pinyin"}
    assert cascade.describe()["tts"] == {"per_language": {"ja": "pyopenjtalk", "en": "espeak-ng:en-us",
                                                          "zh": "espeak-ng:cmn-latn-pinyin"}}  # fmt: skip


def test_unknown_fixed_language_is_refused() -> None:
    with pytest.raises(ConfigError, match="language=fr"):
        CascadeSystem(parse_cascade_options("asr=oracle,llm=openai-compat:m@http://127.0.0.1:9/v1,language=fr"))


def test_prompts_exist_per_language_and_a_missing_one_is_named() -> None:
    for lang in ("ja", "en", "zh"):
        assert all(default_prompts(lang))
    with pytest.raises(ConfigError, match=r"no 'fr' version of prompt 'da/response_system\.v1'"):
        default_prompts("fr")
