"""What a free-text style instruction asks the reply to say: exact content, a count, or an open task.

VStyle's rows carry only the instruction text, so the content step of the rubric needs the content read from it.
Precision comes first: a wrongly read content would fail a correct reply, so anything not clearly delimited is
``unknown`` (the content step is then not checked, and says so).

- **counting** — "count from one to ten", 「从一数到十」, 「1から10まで数えて」, "count down from five": the numbers in
  order, as digits (``check_content`` compares numbers whatever words or numerals the reply uses);
- **exact** — a speaking verb (say, read, repeat, 说, 读, 念, 言って, 読んで …) with the content in quotation marks
  (“…”, "…", ‘…’, '…', 「…」, 『…』) or after a colon ("read this sentence: …", 「下面这句话：…」);
- **open** — describing, telling, introducing, explaining, listing (没有固定文本): ``open`` (not checked by string
  match; a listing task's number of items is not counted either);
- otherwise **unknown**.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from voxeval.style._numbers import numbers_in

TaskKind = Literal["counting", "quoted", "after_colon", "listing", "open", "unknown"]

MAX_COUNT = 200
"""Longest counting task read as content (a longer range is left ``unknown``)."""


@dataclass(frozen=True)
class Task:
    """The content an instruction asks for and how the rubric's content step can check it."""

    content: str
    """Exact text to speak, or the numbers of a counting task as digits; empty for open / unknown tasks."""
    check: Literal["exact", "open", "unknown"]
    """``StyleItem.content_check``."""
    kind: TaskKind
    """How the content was read."""
    span: tuple[int, int] | None = None
    """Where the content sits in the instruction (NFKC-normalised, stripped), quotes included."""


_EN_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)"
)
_NUM = rf"(?:\d+|[零〇一二两三四五六七八九十百]+|{_EN_WORD}(?:[- ]{_EN_WORD})?)"
_COUNT = {
    "en": (
        re.compile(rf"\bcount(?:ing)?\s+(?P<dir>backwards?\s+|down\s+|up\s+)?from\s+(?P<a>{_NUM})\s+"
                   rf"(?:back\s+|down\s+|up\s+)?(?:to|until|till|through|thru)\s+(?P<b>{_NUM})\b"),
        re.compile(rf"\bcount(?:ing)?\s+(?:up\s+)?to\s+(?P<b>{_NUM})\b"),
    ),
    "zh": (
        re.compile(rf"从\s*(?P<a>{_NUM})\s*(?P<dir>倒)?数到\s*(?P<b>{_NUM})"),
        re.compile(rf"(?P<dir>倒)数\s*从?\s*(?P<a>{_NUM})\s*到\s*(?P<b>{_NUM})"),
        re.compile(rf"(?<![倒从])数到\s*(?P<b>{_NUM})"),
    ),
    "ja": (
        re.compile(rf"(?P<a>{_NUM})\s*から\s*(?P<b>{_NUM})\s*まで\s*(?:の数を)?\s*(?:数え|カウント)"),
        re.compile(rf"(?P<b>{_NUM})\s*まで\s*(?:数え|カウント)"),
    ),
}  # fmt: skip
"""Counting phrases per language; ``a`` missing means from 1."""

_QUOTES = re.compile(r"“(?P<q1>[^”]+)”|「(?P<q2>[^」]+)」|『(?P<q3>[^』]+)』|‘(?P<q4>[^’]+)’|\"(?P<q5>[^\"]+)\""
                     r"|(?<![\w'])'(?P<q6>(?:[^']|(?<=\w)'(?=\w))*?[^\s'])'(?![\w'])")  # fmt: skip
_SPEAK = {
    "en": re.compile(r"\b(?:say|says|saying|said|read|reading|repeat|speak|utter|pronounce|recite|announce|shout|yell|"
                     r"scream|whisper|sing|"
                     r"tell (?:me|us|him|her|them)(?= ['\"‘“:]))\b"),
    "zh": re.compile(r"说|读|念|朗读|朗诵|复述|重复|播报|喊"),
    "ja": re.compile(r"言って|言う|読んで|読み上げ|読む|話して|発音|繰り返|唱え|叫んで|つぶやいて|ささやいて"),
}  # fmt: skip
_LEAD_IN = {
    "en": re.compile(r"\b(?:following|this|these|the (?:sentence|line|phrase|text|words?))\b"),
    "zh": re.compile(r"下面|以下|这句|这段|下列|如下|这些话"),
    "ja": re.compile(r"次の|以下の|この文|このセリフ|この言葉"),
}
_LISTING = {
    "en": re.compile(r"\b(?:name|list|give me|tell me|mention)\s+(?:at least\s+)?(?:\d+|two|three|four|five|six|"
                     r"seven|eight|nine|ten)\s+(?!times\b)[a-z]"),
    "zh": re.compile(r"(?:列举|列出|说出|举出|说|讲|给我)\s*(?:\d+|[二两三四五六七八九十][一二三四五六七八九十]*)\s*"
                     r"(?:个|种|样|件|条|位|座|只)"),
    "ja": re.compile(r"(?:\d+|[二三四五六七八九十][一二三四五六七八九十]*)\s*(?:つ|個|種類|人)\s*"
                     r"(?:挙げ|あげ|教え|言って)"),
}  # fmt: skip
_OPEN = {
    "en": re.compile(r"\b(?:describe|tell (?:me|us)\b(?! ['\"‘“:])|talk about|introduce|explain|share|recommend|"
                     r"give (?:me|us) (?:a|an|some|your)|what (?:is|are|do|would)|how (?:do|would|can)|why|"
                     r"make up|come up with|write|compose|story|poem|joke|chat)\b"),
    "zh": re.compile(r"描述|介绍|讲讲|讲一|讲个|讲述|谈谈|聊聊|聊一聊|聊天|说说|分享|解释|推荐|编一|故事|笑话|诗"
                     r"|为什么|怎么|什么"),
    "ja": re.compile(r"説明|紹介|教えて|について|物語|お話|話を|してください(?!.*[「『])|どう|なぜ|何"),
}  # fmt: skip


def _number(token: str, language: str) -> int | None:
    said = [n for n in numbers_in(token, language) if n is not None]
    return said[0] if len(said) == 1 else None


def _counting(text: str, language: str) -> Task | None:
    for pattern in _COUNT.get(language, ()):
        if (m := pattern.search(text)) is None:
            continue
        groups = m.groupdict()
        start = _number(groups["a"], language) if groups.get("a") else 1
        end = _number(groups["b"], language)
        down = (groups.get("dir") or "").strip() in ("backward", "backwards", "down", "倒")
        if start is None or end is None or abs(end - start) + 1 > MAX_COUNT or start == end:
            return None
        if down and start < end:  # "count down to one" and the like: never read as counting up
            return None
        step = 1 if end > start else -1
        numbers = " ".join(str(n) for n in range(start, end + step, step))
        return Task(numbers, "exact", "counting", m.span())
    return None


Delimited = tuple[str, tuple[int, int], TaskKind]
"""Content, its span in the instruction, and how it was delimited."""


def _quoted(text: str) -> Delimited | None:
    found: list[Delimited] = [
        (next(g for g in m.groups() if g is not None).strip(), m.span(), "quoted") for m in _QUOTES.finditer(text)
    ]
    found = [f for f in found if len(f[0]) >= 2]
    if not found:
        return None
    return max(found, key=lambda f: len(f[0]))  # several quotes: the longest is the content, the rest are labels


def _after_colon(text: str, language: str) -> Delimited | None:
    colon = min((i for i in (text.find(":"), text.find("：")) if i >= 0), default=-1)
    if colon < 0:
        return None
    head, tail = text[:colon], text[colon + 1 :]
    content = tail.strip().strip("\"'“”‘’「」『』").strip()
    if len(content) < 2 or not (_SPEAK[language].search(head) or _LEAD_IN[language].search(head)):
        return None
    return content, (colon, len(text)), "after_colon"


def _normalise(instruction: str) -> str:
    """The text that ``Task.span`` indexes."""
    return unicodedata.normalize("NFKC", instruction).strip()


def read_task(instruction: str, language: str) -> Task:
    """The content ``instruction`` asks for (see the module docstring); ``language`` is en, zh or ja."""
    if language not in _SPEAK:
        raise ValueError(f"no task rules for language {language!r}; known: {', '.join(_SPEAK)}")
    text = _normalise(instruction)
    if (task := _counting(text.lower(), language)) is not None:
        return task
    delimited = _quoted(text) or _after_colon(text, language)
    outside = text if delimited is None else text[: delimited[1][0]] + " " + text[delimited[1][1] :]
    outside_lower = outside.lower()
    speaks = _SPEAK[language].search(outside_lower) is not None
    if delimited is not None and (speaks or _LEAD_IN[language].search(outside_lower)):
        content, span, kind = delimited
        return Task(content, "exact", kind, span)
    if _LISTING[language].search(outside_lower):
        return Task("", "open", "listing")
    if _OPEN[language].search(outside_lower):
        return Task("", "open", "open")
    return Task("", "unknown", "unknown")


def style_text(instruction: str, task: Task) -> str:
    """The instruction without the content to speak, so that words in the content are not read as style."""
    if task.span is None:
        return instruction
    text = _normalise(instruction)
    start, end = task.span
    return text[:start] + " " * (end - start) + text[end:]
