"""Text to speech units: morae (ja), toneless pinyin syllables (zh), words and syllables (en), numbers spelled out."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from voxeval.errors import MissingDependencyError

EN_ONES = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    *("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"),
)
"""English number words 0–19."""
EN_TENS = ("_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
"""English tens by index (20 = ``twenty``)."""
_ZH_DIGITS = "零一二三四五六七八九"
_SMALL_KANA = set("ャュョァィゥェォヮ")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Units:
    """How much was said, in the unit the language is timed in."""

    count: int
    """Number of units."""
    unit: str
    """``mora`` (ja), ``syllable`` (zh: one per character; en: vowel groups)."""


def int_to_english(n: int) -> str:
    """``42`` → ``forty two`` (0 ≤ n < 10**12; larger numbers are read digit by digit)."""
    if n < 20:
        return EN_ONES[n]
    if n < 100:
        return EN_TENS[n // 10] + ("" if n % 10 == 0 else " " + EN_ONES[n % 10])
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            if n // size >= 1000:
                break
            rest = n % size
            return f"{int_to_english(n // size)} {name}" + (f" {int_to_english(rest)}" if rest else "")
    return " ".join(EN_ONES[int(d)] for d in str(n))


def int_to_chinese(n: int) -> str:
    """``25`` → ``二十五`` (0 ≤ n < 10**8; larger numbers are read digit by digit)."""
    if n >= 10**8:
        return "".join(_ZH_DIGITS[int(d)] for d in str(n))
    if n >= 10_000:
        high, low = divmod(n, 10_000)
        tail = "" if low == 0 else ("零" if low < 1000 else "") + int_to_chinese(low)
        return int_to_chinese(high) + "万" + tail
    if n == 0:
        return "零"
    out, zero = "", False
    for value, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = n // value % 10
        if digit == 0:
            zero = bool(out)
            continue
        out += ("零" if zero else "") + _ZH_DIGITS[digit] + name
        zero = False
    return out[1:] if out.startswith("一十") else out


def spell_numbers(text: str, language: str) -> str:
    """Arabic digits written out in words (en) or Chinese numerals (zh); Japanese readings handle digits."""
    if language == "en":
        return _DIGITS.sub(lambda m: " " + int_to_english(int(m.group())) + " ", text)
    if language == "zh":
        return _DIGITS.sub(lambda m: int_to_chinese(int(m.group())), text)
    return text


def normalise(text: str) -> str:
    """NFKC, lower case, curly apostrophes straightened."""
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def english_words(text: str) -> list[str]:
    """Lower-case words of ``text`` with numbers spelled out and apostrophes dropped (``let's`` → ``lets``)."""
    return [w.replace("'", "") for w in _LATIN_WORD.findall(spell_numbers(normalise(text), "en"))]


def english_syllables(word: str) -> int:
    """Vowel groups of ``word``, minus a silent final ``e``; at least one."""
    groups = len(re.findall(r"[aeiouy]+", word))
    if word.endswith("e") and not word.endswith(("le", "ee", "ye")) and groups > 1:
        groups -= 1
    return max(1, groups)


def morae(kana: str) -> list[str]:
    """Katakana split into morae (small ャュョァィゥェォ join the kana before them; ー, ッ, ン count)."""
    out: list[str] = []
    for ch in kana:
        if ch in _SMALL_KANA and out:
            out[-1] += ch
        elif "\u30a0" <= ch <= "\u30ff":
            out.append(ch)
    return out


def japanese_words(text: str) -> list[tuple[list[str], str]]:
    """Open JTalk's words of ``text``: (morae of the reading, part of speech); punctuation left out."""
    try:
        import pyopenjtalk
    except ImportError:
        raise MissingDependencyError("Japanese readings", "audio", "pyopenjtalk-plus") from None
    words: list[Any] = pyopenjtalk.run_frontend(unicodedata.normalize("NFKC", text)) if text.strip() else []
    return [(morae(w["pron"]), w["pos"]) for w in words if w["pos"] != "記号" and morae(w["pron"])]


def pinyin_tokens(text: str) -> list[str]:
    """Toneless pinyin per Chinese character (so ASR homophones compare equal); Latin words kept as they are."""
    try:
        from pypinyin import Style, lazy_pinyin
    except ImportError:
        raise MissingDependencyError("Chinese pinyin", "acoustics", "pypinyin") from None
    tokens: list[str] = []
    for piece in re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+|[a-z]+(?:'[a-z]+)*", spell_numbers(normalise(text), "zh")):
        if _HAN.match(piece):
            tokens.extend(lazy_pinyin(piece, style=Style.NORMAL, v_to_u=False))
        else:
            tokens.append(piece)
    return tokens


def count_units(text: str, language: str) -> Units:
    """Morae (ja), syllables (zh: Chinese characters plus English syllables; en: vowel groups) in ``text``."""
    if language == "ja":
        return Units(sum(len(m) for m, _ in japanese_words(text)), "mora")
    if language == "zh":
        spelled = spell_numbers(normalise(text), "zh")
        latin = sum(english_syllables(w) for w in _LATIN_WORD.findall(spelled))
        return Units(len(_HAN.findall(spelled)) + latin, "syllable")
    return Units(sum(english_syllables(w) for w in english_words(text)), "syllable")
