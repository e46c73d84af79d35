"""Splitting a reply into sentence and clause segments with exact character offsets (pure functions).

Japanese here; English and Mandarin sentence cuts are in ``_segment_lang`` (``segment(reply, language)``).

The offline annotator over-segments: a reply is cut after sentence-final punctuation (。．？！?! and newlines,
never inside 「…」-style quotes) and at candidate clause boundaries — a 、 or a space right after a polite
clause-final form (〜ました、 / 〜です、 / 〜ません、 / 〜ください、 …), where ASR-style replies join sentences.
Leading fillers on their own (はい。/ うん！) and punctuation-only pieces are attached to a neighbour, so every
segment carries words. Segment labels are merged into steps later (see ``_offline``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TERMINAL = frozenset("。．？！?!")
"""Sentence-final punctuation; a run of it (``？！``) ends one sentence."""

_OPENERS = {"「": "」", "『": "』", "（": "）", "(": ")", "【": "】", "“": "”", "〈": "〉", "《": "》"}
"""Quote and bracket pairs whose content is never split."""

_CLAUSE_FINAL = re.compile(
    r"(?:ます|ました|ません|ませんでした|です|でした|ください|ましょう|なさい)(?:ね|よ|よね|か)?$"
)
"""Polite clause-final forms after which a 、 or a space may end a clause."""

_CLAUSE_SEPARATORS = frozenset("、， \u3000\t")
"""Characters that end a clause when they follow a clause-final form."""

FILLERS = frozenset(
    {"はい", "いいえ", "なお", "ちなみに", "うん", "ええ", "いや", "あ", "ああ", "えっと", "ええと", "では"}
)
"""Words that, standing alone, belong to the segment after them (guide: leading fillers)."""

_NOT_CONTENT = re.compile(r"[\s\W_]+")
"""Punctuation, symbols and whitespace: what a segment must have more than."""


@dataclass(frozen=True)
class Segment:
    """A piece of a reply: ``reply[start:end]``, stripped of surrounding whitespace."""

    start: int
    """Offset of the first character in the reply."""
    end: int
    """Offset one past the last character."""
    text: str
    """``reply[start:end]``."""


def _quoted(reply: str) -> list[bool]:
    """For each character, whether it lies inside a matched quote or bracket pair (the pair itself included)."""
    inside = [False] * len(reply)
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(reply):
        if ch in _OPENERS:
            stack.append((_OPENERS[ch], i))
        elif stack and ch == stack[-1][0]:
            _, opened = stack.pop()
            if not stack:
                for k in range(opened, i + 1):
                    inside[k] = True
        elif any(ch == closer for closer, _ in stack):
            # A closer that skips an unclosed opener: drop the unclosed ones above it.
            while stack and stack[-1][0] != ch:
                stack.pop()
            if stack:
                _, opened = stack.pop()
                if not stack:
                    for k in range(opened, i + 1):
                        inside[k] = True
    return inside


def _cut_after(reply: str, i: int, quoted: list[bool]) -> bool:
    """Whether a segment ends right after ``reply[i]``."""
    ch = reply[i]
    if quoted[i]:
        return False
    nxt = reply[i + 1] if i + 1 < len(reply) else ""
    if ch == "\n":
        return True
    if ch in _TERMINAL:
        return nxt not in _TERMINAL
    if ch == ".":
        return nxt == "" or nxt.isspace()
    if ch in _CLAUSE_SEPARATORS and nxt not in _CLAUSE_SEPARATORS:
        return bool(_CLAUSE_FINAL.search(reply[max(0, i - 8) : i]))
    return False


def _raw_pieces(reply: str) -> list[tuple[int, int]]:
    quoted = _quoted(reply)
    pieces: list[tuple[int, int]] = []
    start = 0
    for i in range(len(reply)):
        if _cut_after(reply, i, quoted):
            pieces.append((start, i + 1))
            start = i + 1
    if start < len(reply):
        pieces.append((start, len(reply)))
    return pieces


def _strip(reply: str, start: int, end: int) -> tuple[int, int]:
    while start < end and reply[start].isspace():
        start += 1
    while end > start and reply[end - 1].isspace():
        end -= 1
    return start, end


def has_content(text: str) -> bool:
    """Whether ``text`` has any word character (letters, kana, kanji, digits)."""
    return bool(_NOT_CONTENT.sub("", text))


def is_filler(text: str, fillers: frozenset[str] = FILLERS) -> bool:
    """Whether ``text`` is a lone filler word with its punctuation (``はい、`` / ``うん！``)."""
    return _NOT_CONTENT.sub("", text).lower() in fillers


def segment(reply: str, language: str = "ja") -> tuple[Segment, ...]:
    """Segments of ``reply`` in order, with exact offsets; empty when the reply has no word characters. English
    and Mandarin replies are cut by their own rules (``_segment_lang``).

    >>> [s.text for s in segment("はい。3分のタイマーをセットしました、名前は何にしますか？「OK！」です")]
    ['はい。3分のタイマーをセットしました、', '名前は何にしますか？', '「OK！」です']
    >>> [s.text for s in segment("Sure. Dr. Lee's office opens at 9 a.m. Want me to call?", "en")]
    ['Sure.', "Dr. Lee's office opens at 9 a.m.", 'Want me to call?']
    """
    if language == "ja":
        return merge_pieces(reply, _raw_pieces(reply), FILLERS)
    from voxeval.annotate._segment_lang import language_pieces

    pieces, fillers = language_pieces(reply, language)
    return merge_pieces(reply, pieces, fillers)


def merge_pieces(reply: str, pieces: list[tuple[int, int]], fillers: frozenset[str]) -> tuple[Segment, ...]:
    """Segments from raw ``(start, end)`` cuts: stripped of whitespace; punctuation-only pieces joined to the
    segment before, lone ``fillers`` to the segment after."""
    spans = [_strip(reply, a, b) for a, b in pieces]
    spans = [(a, b) for a, b in spans if a < b]
    merged: list[list[int]] = []
    pending_start: int | None = None  # a filler or punctuation-only piece waiting for the next segment
    for a, b in spans:
        piece = reply[a:b]
        if not has_content(piece):
            if pending_start is None and merged:
                merged[-1][1] = b
            elif pending_start is None:
                pending_start = a
            continue
        if is_filler(piece, fillers):
            if pending_start is None:
                pending_start = a
            continue
        merged.append([a if pending_start is None else pending_start, b])
        pending_start = None
    if pending_start is not None:
        # Trailing fillers (or a reply of fillers only) join the last segment, or stand alone.
        if merged:
            merged[-1][1] = spans[-1][1]
        elif has_content(reply[pending_start : spans[-1][1]]):
            merged.append([pending_start, spans[-1][1]])
    return tuple(Segment(a, b, reply[a:b]) for a, b in merged)
