"""Surface statistics of a text that tell language from noise: character scripts, mojibake, character bigrams.

Used by the offline annotator to leave text that performs no act (random characters, mojibake, shuffled
characters) without steps. Pure functions; the bigram table is a fixed-size bit set of hashed character bigrams
seen in the training replies (stored in the artefact).
"""

from __future__ import annotations

import functools
import re
import unicodedata

import numpy as np

BIGRAM_BITS = 18
"""log2 of the size of the hashed bigram table."""

_MOJIBAKE = re.compile(
    r"[縺繧繝蜈譁螟髮莉閨鬮ｰ-ﾟ]|[ÃÂâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ][\x80-\xbf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]|\ufffd"
)
"""Characters typical of UTF-8 read as Shift_JIS / Latin-1, or of undecodable bytes."""

_ODD_START = frozenset("ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヶーんン、。，．！？!?・」』）)")
"""Characters Japanese text does not start with (a shuffled or cut-up text often does)."""

_ODD_START_BY_LANGUAGE = {
    "ja": _ODD_START,
    # English: punctuation, or a lower-case letter (a sentence starts with a capital; a shuffled text rarely does)
    "en": frozenset(",.;:!?)]}'\"-" + "abcdefghijklmnopqrstuvwxyz"),
    # Mandarin: punctuation, and particles and suffixes that end or join words (了 吗 呢 吧 的 们 着 过 得 地)
    "zh": frozenset("，。、；：！？!?）」』”》了吗呢吧的们着过得地啊呀"),
}
"""Per language, the characters its text does not start with."""

SURFACE_FEATURES = (
    "hiragana",
    "katakana",
    "kanji",
    "latin",
    "digit",
    "punct",
    "other",
    "mojibake",
    "bigram_known",
    "log_unknown_bigrams",
    "odd_start",
    "log_chars",
)
"""Columns of :func:`surface_features`."""


@functools.lru_cache(maxsize=1 << 16)
def _script(ch: str) -> str:
    code = ord(ch)
    if 0x3041 <= code <= 0x309F:
        return "hiragana"
    if 0x30A0 <= code <= 0x30FF or 0xFF66 <= code <= 0xFF9F:
        return "katakana"
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or ch in "々〆":
        return "kanji"
    if (ch.isascii() and ch.isalpha()) or 0xFF21 <= code <= 0xFF5A:
        return "latin"
    if ch.isdigit():
        return "digit"
    if unicodedata.category(ch)[0] in "PZ" or ch in "ー〜～・":
        return "punct"
    return "other"


def bigram_hashes(text: str) -> np.ndarray:
    """Hashed character bigrams of ``text`` (whitespace removed), as table indices."""
    chars = "".join(text.split())
    if len(chars) < 2:
        return np.zeros(0, dtype=np.int64)
    codes = np.frombuffer(chars.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    hashed: np.ndarray = (codes[:-1] * 1_000_003 + codes[1:] * 7919) % (1 << BIGRAM_BITS)
    return hashed


def bigram_table(texts: list[str], min_docs: int = 2) -> np.ndarray:
    """Bit table of hashed bigrams that occur in at least ``min_docs`` of ``texts``."""
    counts = np.zeros(1 << BIGRAM_BITS, dtype=np.int32)
    for text in texts:
        counts[np.unique(bigram_hashes(text))] += 1
    return counts >= min_docs


def surface_features(text: str, table: np.ndarray, language: str = "ja") -> list[float]:
    """Script shares, mojibake share, share of known bigrams and log length of ``text`` (see SURFACE_FEATURES)."""
    chars = [ch for ch in text if not ch.isspace()]
    n = max(len(chars), 1)
    shares = dict.fromkeys(SURFACE_FEATURES[:7], 0.0)
    for ch in chars:
        shares[_script(ch)] += 1.0 / n
    hashes = bigram_hashes(text)
    hits = table[hashes] if len(hashes) and len(table) else np.zeros(0, dtype=bool)
    hit_count = int(np.count_nonzero(hits))
    known = hit_count / len(hits) if len(hits) else 0.0
    unknown = float(np.log1p(len(hits) - hit_count))
    mojibake = len(_MOJIBAKE.findall(text)) / n
    odd_start = 1.0 if chars and chars[0] in _ODD_START_BY_LANGUAGE[language] else 0.0
    return [*shares.values(), mojibake, known, unknown, odd_start, float(np.log1p(len(chars)))]
