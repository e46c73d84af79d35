"""Arabic-digit numbers, dates and times to kanji numerals, for TTS front ends that misread digits."""

from __future__ import annotations

import re

_DIGITS = "〇一二三四五六七八九"
_SMALL_UNITS = ((1000, "千"), (100, "百"), (10, "十"))
_BIG_UNITS = ("", "万", "億", "兆", "京")
_FULLWIDTH = str.maketrans("０１２３４５６７８９", "0123456789")

_AMBIGUOUS_MINUTES = re.compile(r"(?<![\d.．,，])(10|8)分")
_MINUTES_IN_KANA = {"10": "じゅっぷん", "8": "はっぷん"}
"""「十分」 and 「八分」 read as じゅうぶん ("enough") and はちぶ ("eight tenths"): write these minutes in kana."""
_TIME = re.compile(r"(?<![\d.:：])(\d{1,2})[:：](\d{2})(?:[:：](\d{2}))?(?![\d:：])")
_NUMBER = re.compile(r"(?<!\d)(\d{1,3}(?:[,，]\d{3})+|\d+)(?:[.．](\d+))?(?!\d)")


def _below_10000(n: int) -> str:
    out = []
    for value, unit in _SMALL_UNITS:
        count, n = divmod(n, value)
        if count:
            out.append(("" if count == 1 else _DIGITS[count]) + unit)
    if n:
        out.append(_DIGITS[n])
    return "".join(out)


def int_to_kanji(n: int) -> str:
    """``1200`` → ``千二百``, ``10000`` → ``一万``, ``0`` → ``零`` (positional kanji numerals up to 京)."""
    if n < 0:
        raise ValueError("negative numbers are not supported")
    if n == 0:
        return "零"
    if n >= 10 ** (4 * len(_BIG_UNITS)):
        return "".join(_DIGITS[int(d)] for d in str(n))
    parts = []
    for unit in _BIG_UNITS:
        n, group = divmod(n, 10000)
        if group:
            parts.append(_below_10000(group) + unit)
        if not n:
            break
    return "".join(reversed(parts))


def _number(match: re.Match[str]) -> str:
    whole, fraction = re.sub("[,，]", "", match.group(1)), match.group(2)
    if len(whole) >= 3 and whole.startswith("0"):
        spoken = "".join(_DIGITS[int(d)] for d in whole)  # codes and phone numbers: digit by digit
    else:
        spoken = int_to_kanji(int(whole))
    if fraction:
        spoken += "点" + "".join(_DIGITS[int(d)] for d in fraction)
    return spoken


def _time(match: re.Match[str]) -> str:
    hours, minutes, seconds = int(match.group(1)), int(match.group(2)), match.group(3)
    if hours > 24 or minutes > 59 or (seconds is not None and int(seconds) > 59):
        return _NUMBER.sub(_number, match.group(0))
    spoken = int_to_kanji(hours) + "時"
    if minutes:
        spoken += int_to_kanji(minutes) + "分"
    if seconds is not None and int(seconds):
        spoken += int_to_kanji(int(seconds)) + "秒"
    return spoken


def digits_to_kanji(text: str) -> str:
    """Rewrite Arabic-digit numbers as kanji numerals: 「12月25日」→「十二月二十五日」, 「10:30」→「十時三十分」.

    Full-width digits count as digits; ``1,200`` is one number (「千二百」); ``3.5`` is 「三点五」; clock times
    ``H:MM[:SS]`` become 「…時…分…秒」; numbers of three or more digits with a leading zero (codes, phone
    numbers) are read digit by digit; 「10分」 and 「8分」 become 「じゅっぷん」 and 「はっぷん」 (as kanji they read
    じゅうぶん and はちぶ). Everything else is left unchanged.
    """
    text = text.translate(_FULLWIDTH)
    text = _AMBIGUOUS_MINUTES.sub(lambda m: _MINUTES_IN_KANA[m.group(1)], _TIME.sub(_time, text))
    return _NUMBER.sub(_number, text)
