"""Sentence cuts of English and Mandarin replies (pure functions; ``_segment.segment`` merges the pieces).

English: a sentence ends at ``.``, ``?`` or ``!`` (a run of them, and closing quotes or brackets after them)
followed by whitespace or the end, or at a newline; never inside double quotes or brackets, never after a title
or a Latin abbreviation (``Dr.``, ``Mr.``, ``e.g.``, ``vs.``), never after ``a.m.`` / ``p.m.`` unless the next word
starts with a capital letter, never after a single capital initial (``J. Smith``), never inside a number
(``3.5``: no space follows). Mandarin: at 。？！；?! (a run of them) and newlines, never inside “” 「」 （） 《》.
In both, a quote whose last sentence ends right before its closing mark ends a sentence there (English: when a
capital letter follows: ``called "doctor." What's …``; Mandarin: ``“今晚还一起吃饭吗？”要回复吗？``).
Clauses joined by commas are not cut in either language (``, and I'll`` / ``，…了，``; :data:`ZH_CLAUSE_CUTS`):
see docs/annotators.md for what was measured.
"""

from __future__ import annotations

import re

EN_FILLERS = frozenset({"yes", "no", "yeah", "yep", "nope", "oh", "um", "uh", "hmm", "well", "so", "ah"})
"""English words that, standing alone, belong to the sentence after them (``Yes. It opens at nine.``); ``Sure.``
and ``Okay.`` are not fillers: the English guide labels a stand-alone one Commissive."""

ZH_FILLERS = frozenset({"嗯", "嗯嗯", "哦", "噢", "啊", "呃", "欸", "诶", "是的", "对", "对的", "不是"})
"""Mandarin words that, standing alone, belong to the sentence after them (``嗯。明天有雨。``)."""

_TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "mt",
        "jr",
        "sr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "approx",
        "no",
        "fig",
        "dept",
        "est",
        "ave",
        "blvd",
        "rd",
        "inc",
        "ltd",
        "co",
        "corp",
        "gov",
        "sen",
        "rep",
    ]
)
"""Abbreviations after whose period an English sentence does not end (``etc`` included: it rarely ends one in a
spoken reply's middle, and a missed cut costs less than a wrong one)."""

_TIME_ABBREVIATIONS = frozenset({"a.m", "p.m"})
"""Abbreviations that end a sentence only when the next word starts with a capital letter."""

_EN_OPENERS = {"(": ")", "[": "]", "“": "”", "{": "}"}
"""English brackets and curly quotes whose content is never split (straight double quotes toggle)."""
_ZH_OPENERS = {"“": "”", "「": "」", "『": "』", "（": "）", "(": ")", "《": "》", "【": "】", "‘": "’"}
"""Mandarin quotes and brackets whose content is never split."""

_EN_TERMINAL = frozenset(".?!")
_ZH_TERMINAL = frozenset("。？！；?!")
_CLOSERS = frozenset("\"'”’)]」』）》")
"""Closing quotes and brackets that stay with the sentence they end."""
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")


def _inside(reply: str, openers: dict[str, str], straight: bool) -> list[bool]:
    """Per character: inside a quote or bracket pair (unclosed openers do not count). ``straight``: ``"`` toggles."""
    inside = [False] * len(reply)
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(reply):
        if straight and ch == '"':
            if stack and stack[-1][0] == '"':
                _, opened = stack.pop()
                if not stack:
                    inside[opened : i + 1] = [True] * (i + 1 - opened)
            else:
                stack.append(('"', i))
        elif ch in openers:
            stack.append((openers[ch], i))
        elif any(ch == closer for closer, _ in stack):
            while stack and stack[-1][0] != ch:
                stack.pop()
            _, opened = stack.pop()
            if not stack:
                inside[opened : i + 1] = [True] * (i + 1 - opened)
    return inside


def _abbreviation_stops(reply: str, dot: int) -> bool:
    """Whether the period at ``dot`` belongs to an abbreviation that does not end the sentence here."""
    match = _WORD_BEFORE.search(reply[: dot + 1])
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    rest = reply[dot + 1 :].lstrip()
    if word in _TIME_ABBREVIATIONS:
        return not rest[:1].isupper()
    if len(word) == 1 and word.isalpha() and match.group(1).isupper():
        return True  # an initial: "J. Smith"
    return word in _TITLES


def _quote_end(reply: str, i: int, inside: list[bool], terminal: frozenset[str]) -> int | None:
    """After a terminal mark inside a quote: the offset just past the closer that ends the outermost quote right
    after it (``"Are we still on?"`` → past the ``"``), or ``None`` when no closer follows at once."""
    j = i + 1
    while j < len(reply) and reply[j] in terminal:
        j += 1
    if j < len(reply) and reply[j] in _CLOSERS and inside[j] and (j + 1 == len(reply) or not inside[j + 1]):
        return j + 1
    return None


def _en_cut(reply: str, i: int, inside: list[bool], start: int = 0) -> int | None:
    """Where the sentence ending with ``reply[i]`` stops (after closers), or ``None`` when it does not end here."""
    ch = reply[i]
    if ch == "\n":
        return i + 1
    if ch in _EN_TERMINAL and inside[i]:
        # a quoted sentence ends the reply's sentence when the next word starts with a capital letter
        end = _quote_end(reply, i, inside, _EN_TERMINAL)
        rest = reply[end:].lstrip() if end is not None else ""
        spaced = end is not None and (end == len(reply) or reply[end].isspace())
        return end if spaced and (not rest or rest[0].isupper()) else None
    if ch not in _EN_TERMINAL:
        return None
    end = i + 1
    while end < len(reply) and reply[end] in _EN_TERMINAL:
        end += 1
    while end < len(reply) and reply[end] in _CLOSERS and not (inside[end] and not inside[i]):
        end += 1
    if end < len(reply) and not reply[end].isspace():
        return None  # 3.5, e.g., example.com, "…?" inside a word
    if ch == "." and end == i + 1 and _abbreviation_stops(reply, i):
        return None
    return end


_ZH_DONE_CLAUSE = re.compile(r"(?:^|[，,])\s*(?:已经?|都已经?)[^，,]*$|了$")
"""A Mandarin clause that reports a completed action (已 / 已经 … or … 了): a ， after it may start new content
(``已暂停，还剩七分四十秒。``: a Commissive, then an Inform)."""

ZH_CLAUSE_CUTS = False
"""Whether a ， after a completed-action clause ends a segment. Off: it lifts the train split's segmentation ceiling
(0.985 -> 1.000) but grouped 5-fold CV on the train split (labels without the gate) gave mean WED 0.1511 / exact
77.0% with it against 0.1460 / 78.9% without (docs/annotators.md)."""


def _zh_cut(reply: str, i: int, inside: list[bool], start: int = 0) -> int | None:
    ch = reply[i]
    if ZH_CLAUSE_CUTS and ch in "，," and not inside[i] and _ZH_DONE_CLAUSE.search(reply[start:i]):
        return i + 1
    if ch == "\n":
        return i + 1
    if (ch in _ZH_TERMINAL or ch == ".") and inside[i]:
        return _quote_end(
            reply, i, inside, _ZH_TERMINAL | {"."}
        )  # a quoted sentence closed at once ends one: “…吗？”要回复吗
    if ch not in _ZH_TERMINAL:
        return None
    end = i + 1
    while end < len(reply) and reply[end] in _ZH_TERMINAL:
        end += 1
    while end < len(reply) and reply[end] in _CLOSERS and not inside[end]:
        end += 1
    if ch in ".?!" and end < len(reply) and reply[end].isascii() and reply[end].isalnum():
        return None  # an ASCII mark inside a Latin word or a number (3.5, v1.2)
    return end


def language_pieces(reply: str, language: str) -> tuple[list[tuple[int, int]], frozenset[str]]:
    """Raw ``(start, end)`` sentence pieces of an English or Mandarin reply, and its language's fillers."""
    if language == "en":
        inside, cut, fillers = _inside(reply, _EN_OPENERS, True), _en_cut, EN_FILLERS
    elif language == "zh":
        inside, cut, fillers = _inside(reply, _ZH_OPENERS, False), _zh_cut, ZH_FILLERS
    else:
        raise ValueError(f"no segmenter for language {language!r} (ja, en, zh)")
    pieces: list[tuple[int, int]] = []
    start = i = 0
    while i < len(reply):
        end = cut(reply, i, inside, start)
        if end is None:
            i += 1
            continue
        pieces.append((start, end))
        start = i = end
    if start < len(reply):
        pieces.append((start, len(reply)))
    return pieces, fillers
