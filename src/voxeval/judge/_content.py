"""Rubric steps 3–4 from a transcript: language check and content compliance against the required content.

The required content is aligned with the best-matching stretch of the transcript (greetings and offers of
further help before or after it are free), in units that make ASR homophones equal: toneless pinyin (zh),
kana morae of Open JTalk's reading (ja) and words with a phonetic key (en). Interjections and stuttered
repeats inside the stretch cost nothing, as the seed prompt asks. Counting tasks (content made only of
numbers) must say exactly that sequence of numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from voxeval.speech.acoustics import (
    THRESHOLDS,
    Thresholds,
    english_words,
    japanese_words,
    normalise,
    spell_numbers,
)
from voxeval.style._numbers import EN_NUMBER, EN_SCALE, EN_TENS_VALUE, NUMERALS, numbers_in

ContentVerdict = Literal["compliant", "non_compliant", "not_checked"]
"""Content compliance: the rubric's two results, plus ``not_checked`` for open tasks."""

EN_FILLERS = frozenset(
    (
        *("ah", "oh", "uh", "um", "umm", "uhm", "hmm", "hm", "mm", "er", "erm", "eh"),
        *("ooh", "oops", "wow", "whoa", "aha", "huh", "ha"),
    )
)
"""English interjections and hesitations that never count as added content."""
ZH_FILLERS = frozenset("啊呀哦噢嗯呃哎诶欸唉哇喔嘿哈")
"""Chinese interjection characters (only free when inserted; in the required content they must be said)."""
JA_FILLER_POS = frozenset({"フィラー", "感動詞"})
"""Open JTalk parts of speech of fillers and interjections."""


@dataclass(frozen=True)
class Token:
    """A unit of comparison."""

    text: str
    """Surface unit (mora, pinyin syllable, word)."""
    key: str
    """Sound key: equal keys are homophones."""
    filler: bool = False
    """An interjection or hesitation (free when the reply inserts it)."""


@dataclass(frozen=True)
class ContentResult:
    """The content step's verdict and why."""

    verdict: ContentVerdict
    """``compliant``, ``non_compliant`` or ``not_checked``."""
    reason: str
    """One sentence naming the deciding fact."""
    error: float | None = None
    """Edit cost of the required content against its best match in the reply, per required unit."""
    extra: float | None = None
    """Reply units outside the match (not fillers), per required unit."""
    unit: str = ""
    """What was compared (``mora``, ``pinyin``, ``word``, ``number``)."""


def _en_key(word: str) -> str:
    """A crude phonetic key (consonant skeleton after common digraphs): ``whoa`` ~ ``wow``, ``their`` ~ ``there``."""
    for a, b in (("wh", "w"), ("ph", "f"), ("ck", "k"), ("gh", ""), ("kn", "n"), ("wr", "r"), ("c", "k"), ("z", "s")):
        word = word.replace(a, b)
    skeleton = word[:1] + re.sub(r"[aeiouy]", "", word[1:])
    return re.sub(r"(.)\1+", r"\1", skeleton)


def tokens(text: str, language: str) -> list[Token]:
    """``text`` as comparison units for ``language`` (``ja`` morae, ``zh`` pinyin, otherwise English words)."""
    if language == "ja":
        return [Token(m, m, pos in JA_FILLER_POS) for morae, pos in japanese_words(text) for m in morae]
    if language == "zh":
        return _zh_tokens(text)
    return [Token(w, _en_key(w), w in EN_FILLERS) for w in english_words(text)]


def _zh_tokens(text: str) -> list[Token]:
    from pypinyin import Style, lazy_pinyin

    out: list[Token] = []
    for run in re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+|[a-z]+(?:'[a-z]+)*", spell_numbers(normalise(text), "zh")):
        if run.isascii():
            out.append(Token(run, _en_key(run), run in EN_FILLERS))
            continue
        syllables = lazy_pinyin(run, style=Style.NORMAL)
        if len(syllables) != len(run):  # pypinyin keeps unknown characters whole; fall back to characters
            syllables = list(run)
        out.extend(Token(s, s, ch in ZH_FILLERS) for ch, s in zip(run, syllables, strict=True))
    return out


def align(ref: list[Token], hyp: list[Token]) -> tuple[float, int, int]:
    """Cheapest alignment of all of ``ref`` with a stretch of ``hyp``: (cost, start, end of the stretch).

    Substitutions of equal keys, insertions of fillers and of a repeat of the previous unit cost 0; other
    edits cost 1. Hyp units before and after the stretch are free (semi-global alignment).
    """
    m = len(hyp)
    insert = [0.0] + [0.0 if hyp[j].filler or (j > 0 and hyp[j].key == hyp[j - 1].key) else 1.0 for j in range(m)]
    prev, start = [0.0] * (m + 1), list(range(m + 1))
    for i, r in enumerate(ref, 1):
        cur, cur_start = [float(i)] + [0.0] * m, [0] * (m + 1)
        for j in range(1, m + 1):
            cur[j], cur_start[j] = min(
                (prev[j - 1] + (0.0 if hyp[j - 1].key == r.key else 1.0), start[j - 1]),
                (prev[j] + 1.0, start[j]),
                (cur[j - 1] + insert[j], cur_start[j - 1]),
                key=lambda option: option[0],
            )
        prev, start = cur, cur_start
    end = min(range(m + 1), key=lambda j: (prev[j], j))
    return prev[end], start[end], end


def _glued(want: list[int | None], heard: str) -> bool:
    """The ASR wrote the count as digits run together (``12345678910``, or glued to a number said before it).

    The required numbers' digits must appear in the reply's digits and not be followed by the next number of the
    sequence (one more is still wrong).
    """
    numbers = [x for x in want if x is not None]
    if len(numbers) < 3:
        return False
    digits = "".join(re.findall(r"\d", heard))
    target = "".join(str(x) for x in numbers)
    at = digits.rfind(target)
    if at < 0:
        return False
    step = numbers[-1] - numbers[-2]
    return not digits[at + len(target) :].startswith(str(numbers[-1] + step))


def _counting(required: str, heard: str, language: str) -> ContentResult | None:
    """Counting / number-list content: the reply must say exactly the required numbers in order."""
    want = numbers_in(required, language)
    number_words = "|".join(sorted({*EN_NUMBER, *EN_TENS_VALUE, *EN_SCALE, "and"}, key=len, reverse=True))
    rest = re.sub(rf"\b(?:{number_words})\b|[\W\d_{NUMERALS}]", "", normalise(required))
    if len(want) < 2 or None in want or rest:
        return None
    said = numbers_in(heard, language)
    n = len(want)
    for i in range(len(said) - n + 1):
        bounded = (i == 0 or said[i - 1] is None) and (i + n == len(said) or said[i + n] is None)
        if said[i : i + n] == want and bounded:
            return ContentResult("compliant", f"the reply counts {want} as required", 0.0, None, "number")
    if _glued(want, heard):
        return ContentResult(
            "compliant", f"the reply counts {want} as required (digits run together)", 0.0, None, "number"
        )
    heard_numbers = [x for x in said if x is not None]
    return ContentResult(
        "non_compliant", f"the reply says numbers {heard_numbers}, required {want}", 1.0, None, "number"
    )


def check_content(
    required: str,
    heard: str,
    language: str,
    mode: Literal["exact", "open", "unknown"],
    table: Thresholds = THRESHOLDS,
) -> ContentResult:
    """Step 4 of the rubric on the transcript ``heard``."""
    hyp = tokens(heard, language)
    if not [t for t in hyp if not t.filler]:
        return ContentResult("non_compliant", "nothing but silence or interjections was recognised in the reply")
    if mode != "exact" or not required.strip():
        why = "an open task" if mode == "open" else "the task's required content is unknown"
        return ContentResult("not_checked", f"content not checked: {why}; a string match cannot judge it")
    counted = _counting(required, heard, language)
    if counted is not None:
        return counted
    ref = tokens(required, language)
    unit = {"ja": "mora", "zh": "pinyin"}.get(language, "word")
    cost, start, end = align(ref, hyp)
    error = cost / len(ref)
    extra = sum(not t.filler for t in hyp[:start] + hyp[end:]) / len(ref)
    limit = table.content_max_error.get(language, table.content_max_error["en"])
    if error > limit:
        return ContentResult(
            "non_compliant", f"required content not spoken: {unit} error {error:.2f} > {limit:g}", error, extra, unit
        )
    if extra > table.content_max_extra:
        return ContentResult(
            "non_compliant",
            f"the reply adds {extra:.1f}× the required content's length of other content "
            f"(> {table.content_max_extra:g}×)",
            error,
            extra,
            unit,
        )
    return ContentResult(
        "compliant", f"required content spoken ({unit} error {error:.2f} ≤ {limit:g})", error, extra, unit
    )


def check_language(
    expected: str | None, detected: str | None, probability: float | None, table: Thresholds = THRESHOLDS
) -> tuple[bool, str]:
    """Step 3: (language ok, reason). A different language fails only when identified confidently."""
    if expected is None or detected is None:
        return True, "language not identified; assumed consistent"
    if detected == expected:
        return True, f"reply in {detected} as expected"
    if probability is not None and probability < table.language_min_probability:
        return True, f"language ID says {detected} (p={probability:.2f}) but below {table.language_min_probability:g}"
    shown = "?" if probability is None else f"{probability:.2f}"
    return False, f"reply is in {detected} (p={shown}), the instruction in {expected}"
