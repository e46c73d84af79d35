"""Features of a reply's segments for the offline dialogue-act classifier.

Per segment: the language's named pattern flags (``_patterns``), flags about the user's input (a question? a
教えて-style request?), a few interactions of the two, position features, how the segment relates to the user's
input, and indicator features for the segment's ending / opening character n-grams from a vocabulary fixed at
training time. The USE multilingual embeddings they sit beside come from ``_encoder``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from voxeval.annotate._patterns import PatternSet, patterns_of
from voxeval.annotate._segment import Segment

_TRAILING = re.compile(r"[\s。．.、，,？?！!…‥〜~ー」』）)\]】”\"'♪☆★]+$")
"""Punctuation, brackets and whitespace stripped from a segment's end to find its last word."""

RELATION_FEATURES = ("share_in_user", "share_of_user", "short_echo")
"""How a segment relates to the user's input: the share of its topic characters (kanji, katakana, Latin,
digits) found in the input, the share of the input's found in it, and a short 〜ですね echo of the input."""

_TOPIC_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u30a0-\u30ffA-Za-z0-9０-９Ａ-Ｚａ-ｚ]")

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
"""An English word (lower case)."""

EN_STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "i",
        "you",
        "he",
        "she",
        "we",
        "they",
        "me",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "them",
        "us",
        "i'm",
        "i'll",
        "i've",
        "you're",
        "you'll",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
        "have",
        "has",
        "had",
        "not",
        "no",
        "yes",
        "so",
        "if",
        "then",
        "than",
        "there",
        "here",
        "what",
        "when",
        "where",
        "who",
        "which",
        "how",
        "why",
        "just",
        "about",
        "as",
        "up",
        "out",
        "all",
        "any",
        "some",
        "now",
        "one",
    ]
)
"""English words that carry no topic (left out of the topic units)."""


def topic_units(text: str, language: str = "ja") -> set[str]:
    """What carries a text's topic: its kanji, katakana, Latin letters and digits (Japanese, Mandarin: characters),
    or its lower-case content words (English, :data:`EN_STOPWORDS` left out)."""
    if language == "en":
        return {w for w in _WORD.findall(text.lower()) if w not in EN_STOPWORDS}
    return set(_TOPIC_CHAR.findall(text))


def _relation(text: str, user_units: set[str], patterns: PatternSet) -> list[float]:
    own = topic_units(text, patterns.language)
    common = len(own & user_units)
    in_user = common / len(own) if own else 0.0
    body = core(text)
    short = len(body) <= 16 and patterns.short_echo is not None and bool(patterns.short_echo.search(body))
    echo = 1.0 if short and in_user >= 0.5 else 0.0
    return [in_user, common / len(user_units) if user_units else 0.0, echo]


POSITION_FEATURES = ("is_first", "is_last", "relative_position", "share_of_reply", "n_1", "n_2", "n_3", "n_4plus")
"""Where the segment sits in the reply."""

USER_SUMMARY = ("user_asks", "user_commands")
"""Derived user-side flags: asks for information / gives a command."""


def core(text: str) -> str:
    """``text`` without its trailing punctuation, brackets and whitespace: what ``$`` patterns look at."""
    return _TRAILING.sub("", text)


def segment_flags(text: str, language: str = "ja") -> dict[str, float]:
    """The named pattern flags of one segment (the language's :class:`PatternSet`)."""
    body = core(text)
    flags: dict[str, float] = {}
    for name, rx, whole in patterns_of(language).compiled:
        flags[name] = 1.0 if rx.search(text if whole else body) else 0.0
    return flags


def user_flags(user_input: str, language: str = "ja") -> dict[str, float]:
    """The named pattern flags of the user's input, and the derived ``user_asks`` / ``user_commands``."""
    body = core(user_input.strip())
    flags = {
        name: 1.0 if rx.search(body if name != "user_question_mark" else user_input) else 0.0
        for name, rx in patterns_of(language).user_compiled
    }
    asks = max(flags["user_question_mark"], flags["user_wh"], flags["user_info_request"], flags["user_final_question"])
    flags["user_asks"] = asks
    flags["user_commands"] = 1.0 if flags["user_command"] and not asks else 0.0
    return flags


def ngram_keys(text: str, language: str = "ja") -> list[str]:
    """Indicator keys of a segment's ending (last 1–3 characters and punctuation) and opening (first 2); in
    English, words instead of characters (the last one and two words, the first one and two)."""
    body = core(text)
    tail = text[len(body) :].strip()
    if language == "en":
        words = _WORD.findall(body.lower())
        keys = [f"endw{n}={' '.join(words[-n:])}" for n in (1, 2) if len(words) >= n]
        keys.append(f"punct={tail[:1] or '-'}")
        keys += [f"startw{n}={' '.join(words[:n])}" for n in (1, 2) if len(words) >= n]
        return keys
    keys = [f"end{n}={body[-n:]}" for n in (1, 2, 3) if len(body) >= n]
    keys.append(f"punct={tail[:1] or '-'}")
    if len(body) >= 2:
        keys.append(f"start2={body[:2]}")
    return keys


def _position(index: int, count: int, seg: Segment, content_chars: int) -> dict[str, float]:
    return {
        "is_first": 1.0 if index == 0 else 0.0,
        "is_last": 1.0 if index == count - 1 else 0.0,
        "relative_position": index / (count - 1) if count > 1 else 0.0,
        "share_of_reply": len(seg.text) / max(content_chars, 1),
        "n_1": 1.0 if count == 1 else 0.0,
        "n_2": 1.0 if count == 2 else 0.0,
        "n_3": 1.0 if count == 3 else 0.0,
        "n_4plus": 1.0 if count >= 4 else 0.0,
    }


def hand_feature_names(vocabulary: Sequence[str], language: str = "ja") -> list[str]:
    """Column names of :func:`hand_features`, in order."""
    p = patterns_of(language)
    return [
        *(n for n, _ in p.segment),
        *(n for n, _ in p.user),
        *USER_SUMMARY,
        *POSITION_FEATURES,
        *RELATION_FEATURES,
        *(f"{u}*{s}" for u, s in p.interactions),
        *(f"prev:{n}" for n in p.context),
        *(f"next:{n}" for n in p.context),
        *vocabulary,
    ]


def _neighbour(flags: Sequence[dict[str, float]], i: int, context: Sequence[str]) -> list[float]:
    if 0 <= i < len(flags):
        return [flags[i][n] for n in context]
    return [0.0] * len(context)


@functools.lru_cache(maxsize=8)
def _vocabulary_index(vocabulary: tuple[str, ...]) -> dict[str, int]:
    """Column of each n-gram key (built once per vocabulary, not once per reply)."""
    return {key: i for i, key in enumerate(vocabulary)}


def hand_features(
    segments: Sequence[Segment], user_input: str, vocabulary: Sequence[str], language: str = "ja"
) -> np.ndarray:
    """The non-embedding features of each segment of one reply, shape ``(len(segments), len(names))``."""
    p = patterns_of(language)
    index = _vocabulary_index(tuple(vocabulary))
    user = user_flags(user_input, language)
    flags = [segment_flags(s.text, language) for s in segments]
    content = sum(len(s.text) for s in segments)
    user_chars = topic_units(user_input, language)
    rows = []
    for i, seg in enumerate(segments):
        own = {**flags[i], **_position(i, len(segments), seg, content)}
        both = {**own, **user}
        grams = np.zeros(len(vocabulary))
        for key in ngram_keys(seg.text, language):
            if key in index:
                grams[index[key]] = 1.0
        rows.append(
            np.concatenate(
                [
                    [flags[i][n] for n, _ in p.segment],
                    [user[n] for n, _ in p.user],
                    [user[n] for n in USER_SUMMARY],
                    [own[n] for n in POSITION_FEATURES],
                    _relation(seg.text, user_chars, p),
                    [both[u] * both[s] for u, s in p.interactions],
                    _neighbour(flags, i - 1, p.context),
                    _neighbour(flags, i + 1, p.context),
                    grams,
                ]
            )
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(segments), -1)
