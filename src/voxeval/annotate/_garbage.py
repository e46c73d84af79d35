"""Garbage replies for the annotator's garbage check: text that performs no task act for the sample it is paired with.

Kinds: ``constant`` (the same ``x`` for every sample), ``random`` (random characters of the sample language's
scripts, as long as the gold reply), ``shuffled`` (the gold reply's characters in random order), ``mojibake``
(the gold reply's UTF-8 bytes read as Shift_JIS or Latin-1; ASCII English, which reads the same, as
EBCDIC) and ``other`` (the gold reply of a sample of another
domain). Deterministic for a given ``salt``. A good annotator gives them (almost) no acts, so they score like an
empty reply (WLCS 0). ``same_domain`` (the gold reply to another input of the same domain) is reported for
information only: it is often a plausible reply to this input too (see docs/annotators.md).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from voxeval.data import GoldSample

KINDS = ("constant", "random", "shuffled", "mojibake", "other")
"""Garbage kinds, in report order."""

INFORMATIONAL_KINDS = ("same_domain",)
"""Kinds replayed and reported but not required to score like an empty reply."""

_ALPHABET = (
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんがぎぐげござじずぜぞ"
    "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンー"
    "日月火水木金土時分秒天気雨晴曇雪電話予定会議音楽再生停止設定明今年東京駅"
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "。、！？ ・「」"
)
"""Characters random garbage is drawn from (Japanese data)."""

_ALPHABETS = {
    "ja": _ALPHABET,
    "en": "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzeeeaaoottnnssiirrhhABCDEFGHIJKLMNOPRSTW0123456789"
    "          .,!?'",
    "zh": "的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后以会家可下而过天去能对小多"
    "然于心学么之都好看起发当没成只如事把还用第样道想作种开美总从无情己面最女但现前些所同日手又行意动方期它头经长"
    "儿回位分爱老因很给名法间斯知世什两次使身者被高已亲其进此话常与活正感abcdefgABCDEFG0123456789，。！？、 “”",
}
"""Per language, the characters random garbage is drawn from (its own script: random Japanese characters would be
too easy to tell from an English or Mandarin reply)."""


def _rng(salt: str, key: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(f"{salt}\0{key}".encode()).digest()[:8], "big"))


def mojibake(text: str, variant: int = 0) -> str:
    """``text``'s UTF-8 bytes decoded as Shift_JIS (``variant`` 0) or Latin-1 (1), undecodable bytes replaced."""
    data = text.encode("utf-8")
    return data.decode("cp932", errors="replace") if variant % 2 == 0 else data.decode("latin-1")


def garbage_reply(kind: str, sample: GoldSample, others: Sequence[GoldSample], salt: str = "check") -> str:
    """One garbage reply of ``kind`` for ``sample`` (``others``: the pool ``other`` replies are drawn from)."""
    rng = _rng(salt, f"{kind}:{sample.id}")
    reply = sample.output_text
    if kind == "constant":
        return "x"
    if kind == "random":
        alphabet = _ALPHABETS.get(sample.language, _ALPHABET)
        return "".join(rng.choice(alphabet) for _ in range(max(len(reply), 4)))
    if kind == "shuffled":
        chars = list(reply)
        rng.shuffle(chars)
        return "".join(chars)
    if kind == "mojibake":
        garbled = mojibake(reply, rng.randrange(2))
        if garbled == reply and sample.language != "ja":
            # ASCII text reads the same in Shift_JIS and Latin-1: garble it as EBCDIC (cp037) instead; Japanese
            # data keeps the rule the shipped offline-v3 gate was trained with
            return reply.encode("utf-8").decode("cp037")
        return garbled
    if kind == "other":
        pool = [o for o in others if o.domain != sample.domain and o.id != sample.id] or [
            o for o in others if o.id != sample.id
        ]
        return rng.choice(pool).output_text if pool else ""
    if kind == "same_domain":
        near = [o for o in others if o.domain == sample.domain and o.input_text != sample.input_text]
        return rng.choice(near).output_text if near else ""
    raise ValueError(f"unknown garbage kind {kind!r}; known: {', '.join(KINDS + INFORMATIONAL_KINDS)}")
