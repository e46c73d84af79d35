"""Whisper's repetition loop, spotted in a transcript (pure).

On silence, noise or music after the speech, Whisper can fall into a loop: it repeats a character, a word or a
phrase until its token budget runs out (「3分のタイマーをスタートしました。はぁぁぁぁぁ…」, "the the the …").
:func:`loop_symptom` names the first of three symptoms a transcript shows, or ``None``:

- ``compression``: the UTF-8 text compresses better than :data:`MAX_COMPRESSION` (faster-whisper's own
  threshold, which it applies to one 30 s window's text), on texts of at least :data:`MIN_COMPRESSION_BYTES` (short
  texts compress badly whatever they say); a longer text is judged by its most compressible stretch of
  :data:`COMPRESSION_WINDOW` characters (whole transcripts compress better the longer they are: the built-in
  datasets' Japanese replies joined reach 2.4 at ~5,000 characters, while no 200-character stretch passes 2.0);
- ``repeat``: one character said :data:`MAX_CHAR_RUN` times in a row (digits, spaces and :data:`STRETCHERS`
  aside: 「1000000」 is a number, 「すごーーーーい」 a long vowel); one word or group of 2–:data:`MAX_UNIT_CHARS`
  characters :data:`MAX_UNIT_REPEATS` times in a row; or one phrase of up to :data:`MAX_PHRASE_CHARS` characters
  twice in a row;
- ``rate``: more units per second of speech than anyone says (:data:`MAX_RATE`: Japanese and Mandarin count
  characters, other languages words), once the text has at least :data:`MIN_RATE_UNITS` units. Natural speech
  runs at 6–9 characters/s in Japanese, 4–6 in Mandarin and 2–4 words/s in English.

The thresholds keep every sentence of the built-in datasets unflagged (tested); a loop that escapes all three is a
short one, which costs a few characters, not the whole transcript.
"""

from __future__ import annotations

import re
import zlib
from typing import Literal

LoopSymptom = Literal["compression", "repeat", "rate"]
"""Which symptom of a repetition loop a transcript shows."""

MAX_COMPRESSION = 2.4
"""Text that compresses better than this is a loop (faster-whisper's ``compression_ratio_threshold``)."""
MIN_COMPRESSION_BYTES = 24
"""Shorter texts are not judged by compression (a few bytes never compress well)."""
COMPRESSION_WINDOW = 200
"""Characters per stretch a long text is judged by (stretches overlap by half)."""
MAX_CHAR_RUN = 6
"""One character this many times in a row (「ぁぁぁぁぁぁ」) is a loop."""
MAX_UNIT_REPEATS = 4
"""One word or character group this many times in a row ("the the the the") is a loop."""
MAX_UNIT_CHARS = 9
"""Longest short group: longer ones (a phrase, up to :data:`MAX_PHRASE_CHARS`) loop when said twice in a row."""
MAX_PHRASE_CHARS = 60
"""Longest phrase looked for: Whisper's loops repeat a clause (「我愛了這條,林留帕的帕林,」 twice and more)."""
MAX_RATE: dict[str, float] = {"ja": 20.0, "zh": 14.0, "yue": 14.0}
"""Most characters per second of speech in Japanese and Mandarin; other languages: :data:`MAX_WORD_RATE`."""
MAX_WORD_RATE = 7.0
"""Most words per second of speech in languages written with spaces."""
MIN_RATE_UNITS = 16
"""Texts with fewer units are not judged by rate (a VAD that clips a short word would make any rate)."""

STRETCHERS = ".…-_~〜ー・"
"""Characters people and Whisper repeat on purpose (「すごーーーーい」, "......"): no character run (long runs of
them still compress past :data:`MAX_COMPRESSION`)."""

_CHAR_RUN = re.compile(rf"([^\d\s{re.escape(STRETCHERS)}])\1{{{MAX_CHAR_RUN - 1},}}")
_UNIT_RUN = re.compile(rf"(\S{{2,{MAX_UNIT_CHARS}}}?)\1{{{MAX_UNIT_REPEATS - 1},}}")
_PHRASE_RUN = re.compile(rf"(\S.{{{MAX_UNIT_CHARS},{MAX_PHRASE_CHARS - 1}}}?)\s*\1")
_WORD_RUN = re.compile(rf"\b(\w+(?:\W+\w+){{0,3}})(?:\W+\1\b){{{MAX_UNIT_REPEATS - 1},}}", re.IGNORECASE)
_PUNCTUATION = re.compile(r"[\W_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def thresholds() -> dict[str, object]:
    """The detector's settings, for an engine's ``describe()`` (and so a run's fingerprint)."""
    return {
        "max_compression": MAX_COMPRESSION,
        "compression_window_chars": COMPRESSION_WINDOW,
        "max_char_run": MAX_CHAR_RUN,
        "max_unit_repeats": MAX_UNIT_REPEATS,
        "max_phrase_chars": MAX_PHRASE_CHARS,
        "max_chars_per_s": MAX_RATE,
        "max_words_per_s": MAX_WORD_RATE,
        "min_rate_units": MIN_RATE_UNITS,
    }


def compression_ratio(text: str) -> float:
    """zlib compression ratio of the UTF-8 text (0 for empty text).

    >>> round(compression_ratio("ぁ" * 60), 1) > MAX_COMPRESSION
    True
    """
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def max_compression_ratio(text: str, window: int = COMPRESSION_WINDOW) -> float:
    """The largest :func:`compression_ratio` of ``text``'s stretches of ``window`` characters (overlapping by half).

    >>> round(max_compression_ratio("明日は晴れです。" * 3 + "はっ" * 200), 1) > MAX_COMPRESSION
    True
    """
    if len(text) <= window:
        return compression_ratio(text)
    step = window // 2
    return max(compression_ratio(text[i : i + window]) for i in range(0, len(text) - step, step))


def speech_units(text: str, language: str | None) -> int:
    """Characters (Japanese, Mandarin; an unknown language written in kana or hanzi) or words (other languages)
    of ``text``, punctuation left out.

    >>> speech_units("3分のタイマー、スタート。", "ja"), speech_units("Set a timer, please.", "en")
    (11, 4)
    """
    if _counts_characters(text, language):
        return len(_PUNCTUATION.sub("", text))
    return len(text.split())


def _counts_characters(text: str, language: str | None) -> bool:
    return language in MAX_RATE or (language is None and _CJK.search(text) is not None)


def repeats(text: str) -> bool:
    """Whether ``text`` repeats one character, word or group of characters past the thresholds.

    >>> repeats("はぁぁぁぁぁぁ"), repeats("the the the the end"), repeats("ありがとうございます。")
    (True, True, False)
    """
    runs = (_CHAR_RUN, _UNIT_RUN, _PHRASE_RUN, _WORD_RUN)
    return any(run.search(text) for run in runs)


def loop_symptom(text: str, language: str | None, speech_seconds: float | None) -> LoopSymptom | None:
    """The first loop symptom ``text`` shows, or ``None`` (see the module docstring).

    ``speech_seconds`` is how much speech the audio holds (VAD); ``None`` or 0 skips the rate test.

    >>> loop_symptom("3分のタイマーをスタートしました。", "ja", 2.0) is None
    True
    >>> loop_symptom("3分のタイマーをスタートしました。はぁぁぁぁぁぁ", "ja", 2.0)
    'repeat'
    >>> loop_symptom("明日は晴れ、明後日は雨、その次は曇りで、週末は雪でしょう", "ja", 1.0)
    'rate'
    """
    if len(text.encode("utf-8")) >= MIN_COMPRESSION_BYTES and max_compression_ratio(text) > MAX_COMPRESSION:
        return "compression"
    if repeats(text):
        return "repeat"
    units = speech_units(text, language)
    if speech_seconds and units >= MIN_RATE_UNITS:
        characters = _counts_characters(text, language)
        limit = MAX_RATE.get(language or "", max(MAX_RATE.values())) if characters else MAX_WORD_RATE
        if units / speech_seconds > limit:
            return "rate"
    return None
