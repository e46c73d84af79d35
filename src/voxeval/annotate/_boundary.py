"""The offline annotator's boundary model: does a segment start a new step although it has its predecessor's label?

A small logistic model over :data:`BOUNDARY_FEATURES` (embedding cosine, new-content openers, the language's
"done" / "request" / "also" patterns); its weights ship in the artefact (``boundary_coef``).
"""

from __future__ import annotations

import re

import numpy as np

from voxeval.acts import LABELS
from voxeval.annotate import _lang_rules as rules
from voxeval.annotate._features import core, segment_flags
from voxeval.annotate._patterns import patterns_of

_NEW_CONTENT = re.compile(
    r"^(?:ちなみに|また|なお|ついでに|あわせて|併せて|それと|さらに|ほかに|他に|あと|ただ|それから|それに)"
)
"""Openers that often start new content."""

_NEW_CONTENT_BY_LANGUAGE = {
    "ja": _NEW_CONTENT,
    "en": re.compile(rules.EN_NEW_CONTENT),
    "zh": re.compile(rules.ZH_NEW_CONTENT),
}
"""Per language, openers that often start new content."""

_ALSO_BY_LANGUAGE = {"en": re.compile(rules.EN_ALSO), "zh": re.compile(rules.ZH_ALSO)}
"""English and Mandarin "also" (Japanese も: :func:`_also`)."""


def _also(text: str, language: str) -> bool:
    """Whether a segment adds something "also" (Japanese も near its start or end)."""
    if language == "ja":
        return bool(re.search(r"も[、，]?[^。]{0,15}$", core(text)) or "も" in text[:12])
    return bool(_ALSO_BY_LANGUAGE[language].search(text))


BOUNDARY_FEATURES = (
    *(f"label={label}" for label in LABELS),
    "cosine",
    "new_content_opener",
    "both_questions",
    "next_question",
    "prev_done",
    "next_done",
    "prev_clause",
    "next_kudasai",
    "next_mo",
)
"""Columns of :func:`boundary_row` (a logistic model; the last stored weight is the bias)."""


def boundary_row(
    label: str, prev: str, text: str, prev_emb: np.ndarray, emb: np.ndarray, language: str = "ja"
) -> np.ndarray:
    """Features of the boundary between two adjacent segments that got the same label (the "done" and "request"
    columns read the language's patterns: Japanese 〜ました / 〜ください)."""
    one_hot = [1.0 if label == known else 0.0 for known in LABELS]
    prev_flags, flags = segment_flags(prev, language), segment_flags(text, language)
    patterns = patterns_of(language)
    return np.array(
        [
            *one_hot,
            float(prev_emb @ emb),
            1.0 if _NEW_CONTENT_BY_LANGUAGE[language].match(text) else 0.0,
            prev_flags["ends_question_mark"] * flags["ends_question_mark"],
            flags["ends_question_mark"],
            prev_flags[patterns.done],
            flags[patterns.done],
            prev_flags["ends_comma"],
            flags[patterns.request],
            1.0 if _also(text, language) else 0.0,
        ]
    )
