"""Character error rate: how far a transcript is from its reference text."""

from __future__ import annotations

PUNCTUATION = frozenset("。、？！?!「」 ,.")
"""Characters both sides drop before comparing: punctuation is not what ASR is judged on."""


def character_error_rate(reference: str, hypothesis: str) -> float:
    """Levenshtein distance between the texts' characters over the reference's length, punctuation ignored.

    >>> character_error_rate("タイマーを、止めて。", "タイマルを止めて")
    0.125
    >>> character_error_rate("", "あ")
    1.0
    """
    ref = [c for c in reference if c not in PUNCTUATION]
    hyp = [c for c in hypothesis if c not in PUNCTUATION]
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[:], i
        for j, h in enumerate(hyp, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (r != h))
    return row[-1] / max(1, len(ref))
