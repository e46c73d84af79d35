"""Where a spoken request can pause: the clause boundary nearest its middle, else a phrase boundary (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Boundary = Literal["clause", "phrase"]
"""A clause boundary is punctuation inside the text (、，, ; : and sentence ends before the last); a phrase boundary is
the fallback of a request without one: English before a conjunction or preposition, Japanese after a case particle
that follows a kanji or katakana word, Mandarin before a verb or predicate that often follows a time or a topic
(叫, 帮, 改, 怎么样…). A request with neither is skipped, and listed."""

CLAUSE_MARKS = "、，,;；:：。．.！!？?"
"""Characters a clause ends with."""
MIN_SIDE_CHARS = 3
"""Fewest letters (punctuation and spaces not counted) on each side of a cut: a half must say something."""
EN_PHRASE_WORDS = frozenset(
    {"and", "but", "or", "so", "because", "when", "if", "then", "to", "for", "with", "about", "from", "in", "on"}
    | {"at", "after", "before", "while", "until"}
)
"""English words a phrase boundary may come before."""
ZH_PHRASE_STARTS = (
    "叫",
    "帮",
    "给我",
    "提醒",
    "改",
    "换成",
    "怎么样",
    "要不要",
    "能不能",
    "有没有",
    "适合",
    "还剩",
    "比较",
)
"""Mandarin words a phrase boundary may come before."""
_JA_PARTICLE = re.compile(r"(?<=[\u4e00-\u9fff\u30a0-\u30ff])[はがをにでへと](?=[^\u3040-\u309f\s、。！？])")


@dataclass(frozen=True)
class Split:
    """A request cut in two.

    >>> split_request("明日の天気を調べて、傘がいるか教えて", "ja")
    Split(head='明日の天気を調べて、', tail='傘がいるか教えて', boundary='clause')
    """

    head: str
    """What is said before the pause (its punctuation kept)."""
    tail: str
    """What is said after it."""
    boundary: Boundary
    """What kind of boundary the cut is at."""


def _letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def _nearest_middle(text: str, cuts: list[int], boundary: Boundary) -> Split | None:
    """The cut nearest the middle (by letters) that leaves enough on both sides; ties go to the earlier cut."""
    total = _letters(text)
    ok = [c for c in cuts if min(_letters(text[:c]), _letters(text[c:])) >= MIN_SIDE_CHARS]
    if not ok:
        return None
    best = min(ok, key=lambda c: (abs(2 * _letters(text[:c]) - total), c))
    return Split(text[:best].strip(), text[best:].strip(), boundary)


def _clause_cuts(text: str) -> list[int]:
    body = text.rstrip().rstrip(CLAUSE_MARKS)
    cuts = [m.end() for m in re.finditer(f"[{re.escape(CLAUSE_MARKS)}]+", body)]
    # A full stop between digits is a decimal point, not a boundary.
    return [c for c in cuts if not (text[c - 1] == "." and c < len(text) and text[c].isdigit())]


def _phrase_cuts(text: str, language: str) -> list[int]:
    if language == "en":
        return [m.start() for m in re.finditer(r"\b\w+\b", text) if m.group().lower() in EN_PHRASE_WORDS]
    if language == "ja":
        return [m.end() for m in _JA_PARTICLE.finditer(text)]
    if language == "zh":
        return sorted({m.start() for word in ZH_PHRASE_STARTS for m in re.finditer(re.escape(word), text)})
    return []


def split_request(text: str, language: str) -> Split | None:
    """The request cut at the clause boundary nearest its middle, else at the phrase boundary nearest it; ``None``
    when neither leaves at least :data:`MIN_SIDE_CHARS` letters on both sides.

    >>> split_request("Set a timer for three minutes.", "en")
    Split(head='Set a timer', tail='for three minutes.', boundary='phrase')
    >>> split_request("3分測って", "ja") is None
    True
    """
    return _nearest_middle(text, _clause_cuts(text), "clause") or _nearest_middle(
        text, _phrase_cuts(text, language), "phrase"
    )
