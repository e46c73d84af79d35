"""Reading an audio-LLM judge's reply: the final ``[[N]]`` score (refused, never guessed) and stated attributes.

The score is the ``[[N]]`` introduced as the final score (``Final score: [[3]]``, ``**Final score:** [[3]]``, a
``## Final Score`` heading followed by ``[[4]]``, ``最终得分：[[2]]``, ``最终评分``…); the last one wins when the
label appears more than once. Without such a label it is the last ``[[N]]`` with N in 1..5. A labelled final score
that is not an integer 1–5 (``[[0]]``, ``[[6]]``, ``[[3.5]]``) and a reply with no ``[[1-5]]`` at all are refused.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from voxeval.style._types import LEVELS, SEED_VALUES_ZH


class JudgeParseError(ValueError):
    """A judge reply without a valid score; ``raw`` keeps the reply for the record.

    A ``ValueError`` so that retry helpers treat it as invalid content worth re-asking about.
    """

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True)
class ParsedJudgement:
    """What a judge reply says."""

    score: int
    """The final score, 1–5."""
    attributes: dict[str, Any] = field(default_factory=dict)
    """Attribute → ``{"value", "stated", "intensity"}`` (+ ``"intensities"`` for emotion), when stated."""
    source: Literal["final", "last"] = "final"
    """``final``: introduced as the final score; ``last``: the reply's last ``[[N]]`` (no final-score label)."""


# Scores ------------------------------------------------------------------------------------------------------

_TOKEN = r"\[\[([^\[\]\n]{0,20}?)\]\]"
_LABEL = (
    r"(?:final\s*(?:score|rating|grade|mark)"
    r"|最终(?:得分|评分|分数|打分|评级|结果|分)"
    r"|最終(?:得分|評分|スコア|評価|点数|得点))"
)
# What may sit between the label and its token: markup, punctuation, line breaks, "is", "为/是".
_GAP = r"(?:[\s*_#:=>\-–—|`'\".,，。、()（）]|\bis\b|为|是|は){0,40}?"
_FINAL = re.compile(_LABEL + _GAP + _TOKEN, re.IGNORECASE)
_ANY = re.compile(_TOKEN)
_VALID = re.compile(r"[1-5]")


def _token_score(content: str) -> int | None:
    inner = content.strip().strip("*_ ").strip()
    return int(inner) if _VALID.fullmatch(inner) else None


def _score(text: str, raw: str) -> tuple[int, Literal["final", "last"]]:
    labelled = list(_FINAL.finditer(text))
    if labelled:
        content = labelled[-1].group(1)
        score = _token_score(content)
        if score is None:
            raise JudgeParseError(f"the final score [[{content}]] is not an integer from 1 to 5", raw)
        return score, "final"
    tokens = [m.group(1) for m in _ANY.finditer(text)]
    valid = [s for s in map(_token_score, tokens) if s is not None]
    if valid:
        return valid[-1], "last"
    if tokens:
        shown = ", ".join(f"[[{t}]]" for t in tokens[-3:])
        raise JudgeParseError(f"no score from 1 to 5 in the reply (found {shown})", raw)
    raise JudgeParseError("no score in the reply: expected 'Final score: [[N]]' with N from 1 to 5", raw)


# Attributes --------------------------------------------------------------------------------------------------

_ATTRIBUTE_LABELS: dict[str, str] = {
    "gender": r"gender|sex|性别|性別",
    "age": r"age|年龄|年齢",
    "pitch": r"pitch|音高|音调|音調|声调|ピッチ",
    "speed": r"speaking\s*rate|speech\s*rate|speaking\s*speed|speech\s*speed|speed|tempo|pace|rate|语速|語速|话速|話速"
    r"|スピード",
    "volume": r"volume|loudness|音量|响度",
    "emotion": r"emotions?|情感|情绪|情緒|感情",
}
_LINE = re.compile(
    r"^[\s>]*(?:[-*•+]|\d+[.)])?[\s*_]*(?P<label>"
    + "|".join(f"(?P<{a}>{p})" for a, p in _ATTRIBUTE_LABELS.items())
    + r")[\s*_]*(?:\([^)\n]{0,30}\))?[\s*_]*[:=\-–—][\s*_]*(?P<rest>.*)$",
    re.IGNORECASE,
)
_EMOTION_SUBLINE = re.compile(r"^[\s>]*(?:[-*•+]|\d+[.)])?[\s*_]*(?P<rest>.*\d.*)$")
_NUMBER = re.compile(r"(?<![\d.])(\d{1,3})(?![\d.])")

_EXTRA_VALUES: dict[str, dict[str, str]] = {
    "gender": {"男性": "male", "女性": "female", "man": "male", "woman": "female"},
    "age": {"young": "young_adult", "old": "elderly", "teen": "teenager"},
    "pitch": {},
    "speed": {
        "很慢": "very_slow",
        "极慢": "very_slow",
        "比较慢": "slow",
        "比较快": "fast",
        "很快": "very_fast",
        "非常巨爱": "very_fast",  # sic: the seed prompt's list has this (garbled) value for "very fast"
        "extremely slow": "very_slow",
        "rather slow": "slow",
        "rather fast": "fast",
        "extremely fast": "very_fast",
    },
    "volume": {
        "很小": "very_quiet",
        "很大": "very_loud",
        "whisper": "very_quiet",
        "soft": "quiet",
        "booming": "very_loud",
    },
    "emotion": {
        "happiness": "happy",
        "sadness": "sad",
        "anger": "angry",
        "surprise": "surprised",
        "fear": "fearful",
        "afraid": "fearful",
        "disgust": "disgusted",
    },
}


def _value_words(attribute: str) -> dict[str, str]:
    words = {v.lower(): k for k, v in SEED_VALUES_ZH[attribute].items()}
    for level in LEVELS[attribute]:
        words[level] = level
        words[level.replace("_", " ")] = level
        words[level.replace("_", "-")] = level
    words.update(_EXTRA_VALUES[attribute])
    return words


_VALUES: dict[str, dict[str, str]] = {a: _value_words(a) for a in LEVELS}


def _value_pattern(words: dict[str, str]) -> re.Pattern[str]:
    # Longest first, so that 非常低 wins over 低 and "very fast" over "fast"; ASCII words need word boundaries.
    alternatives = [
        rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w)
        for w in sorted(words, key=len, reverse=True)
    ]
    return re.compile("|".join(alternatives), re.IGNORECASE)


_VALUE_PATTERNS = {a: _value_pattern(w) for a, w in _VALUES.items()}


def _intensity(text: str) -> int | None:
    for match in _NUMBER.finditer(text):
        number = int(match.group(1))
        if number <= 100:
            return number
    return None


def _emotion_pairs(text: str) -> dict[str, int]:
    """``开心 85，中性 10`` / ``Happy: 80`` → ``{"happy": 85, "neutral": 10}``."""
    pairs: dict[str, int] = {}
    for match in _VALUE_PATTERNS["emotion"].finditer(text):
        after = re.match(r"[\s:=(（*_]*(\d{1,3})(?![\d.])", text[match.end() :])
        if after and int(after.group(1)) <= 100:
            pairs.setdefault(_VALUES["emotion"][match.group(0).lower()], int(after.group(1)))
    return pairs


def _attribute_record(attribute: str, rest: str) -> dict[str, Any]:
    stated = rest.strip().strip("*_ ").strip()
    found = _VALUE_PATTERNS[attribute].search(stated)
    record: dict[str, Any] = {
        "value": _VALUES[attribute][found.group(0).lower()] if found else None,
        "stated": stated[:120],
        "intensity": _intensity(stated),
    }
    if attribute == "emotion":
        record["intensities"] = _emotion_pairs(stated)
    return record


def parse_attributes(text: str) -> dict[str, Any]:
    """Stated attribute values and 0–100 intensities (best effort; the first statement of each attribute wins).

    Reads lines like ``- Speaking rate: 80 (快)``, ``语速：85，快``, ``**Pitch**: low (30)``; an emotion line may be
    followed by one line per emotion (``- 开心: 85``). Values are mapped to canonical levels where recognised.

    >>> parse_attributes("- Speaking rate: 80 (快)")["speed"]
    {'value': 'fast', 'stated': '80 (快)', 'intensity': 80}
    """
    found: dict[str, Any] = {}
    in_emotion = False
    for line in unicodedata.normalize("NFKC", text).splitlines():
        match = _LINE.match(line)
        if match:
            attribute = next(a for a in _ATTRIBUTE_LABELS if match.group(a))
            in_emotion = attribute == "emotion" and "emotion" not in found
            if attribute not in found:
                found[attribute] = _attribute_record(attribute, match.group("rest"))
            continue
        if line.lstrip().startswith("#"):
            in_emotion = False
        elif in_emotion and (sub := _EMOTION_SUBLINE.match(line)):
            for level, value in _emotion_pairs(sub.group("rest")).items():
                found["emotion"]["intensities"].setdefault(level, value)
    emotion = found.get("emotion")
    if emotion and emotion["value"] is None and emotion["intensities"]:
        # Only per-emotion intensities were stated: the strongest one is the stated emotion.
        emotion["value"] = max(emotion["intensities"].items(), key=lambda kv: kv[1])[0]
    if emotion and emotion["intensity"] is None and emotion["value"] in emotion["intensities"]:
        emotion["intensity"] = emotion["intensities"][emotion["value"]]
    return found


def parse_judgement(text: str) -> ParsedJudgement:
    """The final score and the stated attributes of a judge reply; raises :class:`JudgeParseError` without a score.

    Full-width forms (［［３］］, ：) are read as their ASCII equivalents (NFKC).

    >>> parse_judgement("Style partly met.\\n**Final score:** [[3]]").score
    3
    """
    normalised = unicodedata.normalize("NFKC", text)
    score, source = _score(normalised, text)
    return ParsedJudgement(score, parse_attributes(text), source)
