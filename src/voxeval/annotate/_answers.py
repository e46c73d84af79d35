"""The ``answers`` feature block of the offline segment classifier (issue 17, fifth round; ``Settings.answers``).

Whether a segment answers the user's question or gives the content asked for: its embedding cosine to the input
relative to the reply's other segments, whether it holds the kind of content the question asks for (a time for
いつ, a place for どこ, a number for いくら …), and a yes/no opener after a yes/no question. Answer vs Inform
(an elaboration inside the answer vs an aside) and the first content segment after chatter hinge on these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from voxeval.annotate._features import core, user_flags
from voxeval.annotate._segment import Segment

_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (name, re.compile(asked), re.compile(given))
    for name, asked, given in (
        (
            "time",
            r"いつ|何時|何日|何曜|何分|何月|何年|時間|何時間|スケジュール|予定",
            r"[0-9０-９一二三四五六七八九十]+(?:時|分|日|曜|月|年)|午前|午後|明日|今日|明後日|今夜|今朝|週末",
        ),
        (
            "place",
            r"どこ|どちら|場所|近く|行き方|道",
            r"駅|県|市|町|区|通り|ビル|店|公園|空港|病院|方面|にあります|の近く|右|左|まっすぐ",
        ),
        (
            "number",
            r"いくら|いくつ|何度|何人|何個|何回|どのくらい|どれくらい|何キロ|何円|何パーセント|何%|値段|料金",
            r"[0-9０-９]|[一二三四五六七八九十百千万]+(?:円|人|個|回|度|キロ|分|%|パーセント)",
        ),
        ("weather", r"天気|雨|気温|晴|雪|傘|暑い|寒い", r"晴|雨|曇|雪|度|気温|降水|風"),
    )
)
"""``(kind, what asks for it in the input, what gives it in a segment)``."""

_YES_NO = re.compile(r"^(?:はい|いいえ|いえ|ええ|うん|いや|そうです|違います)")

ANSWER_FEATURES = (
    "ans_relative_cosine",
    "ans_most_relevant",
    "ans_kind_asked",
    "ans_kind_given",
    "ans_yes_no_opener",
    "ans_asks*digit",
)
"""Columns of :func:`answer_features`."""


def answer_features(segments: Sequence[Segment], user_input: str, cosine: np.ndarray) -> np.ndarray:
    """The block's columns for each segment of one reply; ``cosine`` is each segment's embedding cosine to the
    user's input."""
    n = len(segments)
    cos = np.asarray(cosine, dtype=np.float64).reshape(n)
    out = np.zeros((n, len(ANSWER_FEATURES)))
    if n == 0:
        return out
    user = user_flags(user_input)
    asked = [(given, bool(rx.search(user_input))) for _, rx, given in _KINDS]
    yes_no_question = user["user_asks"] and not user["user_wh"]
    top = int(np.argmax(cos))
    for i, seg in enumerate(segments):
        body = core(seg.text)
        kinds_given = [bool(given.search(body)) for given, is_asked in asked if is_asked]
        out[i] = [
            cos[i] - cos.max(),
            1.0 if i == top else 0.0,
            1.0 if any(is_asked for _, is_asked in asked) else 0.0,
            1.0 if any(kinds_given) else 0.0,
            1.0 if yes_no_question and _YES_NO.match(body) else 0.0,
            user["user_asks"] * (1.0 if re.search(r"[0-9０-９]", body) else 0.0),
        ]
    return out
