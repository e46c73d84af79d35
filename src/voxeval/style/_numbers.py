"""Numbers said in a text (digits, English and Chinese number words): what a counting task asks for or hears."""

from __future__ import annotations

import re

from voxeval.speech.acoustics import EN_ONES, EN_TENS, normalise

EN_NUMBER = {w: i for i, w in enumerate(EN_ONES)}
EN_TENS_VALUE = {w: 10 * i for i, w in enumerate(EN_TENS) if i >= 2}
EN_SCALE = {"hundred": 100, "thousand": 1000}
_ZH_NUM = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
NUMERALS = "零〇一二两三四五六七八九十百千万"
_NUMBER_TOKEN = re.compile(rf"\d+|[{NUMERALS}]+|[a-z]+|[^\W\d_a-z{NUMERALS}]+")


def _joins(current: int, value: int) -> bool:
    """``twenty`` + ``one``, ``one hundred`` + ``five``: the word continues the number being read."""
    return (current % 100 >= 20 and current % 10 == 0 and value < 10) or (
        current >= 100 and current % 100 == 0 and value < 100
    )


def _en_numbers(words: list[str]) -> list[int | None]:
    out: list[int | None] = []
    current: int | None = None
    for w in words:
        value = EN_NUMBER.get(w, EN_TENS_VALUE.get(w))
        if value is not None and current is not None and _joins(current, value):
            current += value
        elif value is not None:
            out.extend([] if current is None else [current])
            current = value
        elif w in EN_SCALE and current is not None:
            current *= EN_SCALE[w]
        elif w == "and" and current is not None and current >= 100:
            continue
        else:
            out.extend([] if current is None else [current])
            out.append(None)
            current = None
    return out + ([] if current is None else [current])


def _zh_number(run: str) -> list[int]:
    if not any(ch in _ZH_UNIT for ch in run):
        return [_ZH_NUM[ch] for ch in run]  # 一二三 is a list of digits
    total, section, digit = 0, 0, 0
    for ch in run:
        if ch in _ZH_NUM:
            digit = _ZH_NUM[ch]
        elif ch == "万":
            total, section, digit = (total + section + digit) * 10_000, 0, 0
        else:
            section += (digit or 1) * _ZH_UNIT[ch]
            digit = 0
    return [total + section + digit]


def numbers_in(text: str, language: str) -> list[int | None]:
    """Numbers said in ``text`` in order (None marks a non-number word between them)."""
    out: list[int | None] = []
    words: list[str] = []
    for piece in _NUMBER_TOKEN.findall(normalise(text)):
        if piece.isascii() and piece.isalpha():
            words.append(piece)
            continue
        out.extend(_en_numbers(words))
        words = []
        if piece.isdigit():
            out.append(int(piece))
        elif piece[0] in NUMERALS:
            out.extend(_zh_number(piece))
        else:
            out.append(None)  # other words separate counted runs
    return out + _en_numbers(words)
