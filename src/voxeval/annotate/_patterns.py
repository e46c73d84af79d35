"""The offline annotator's named patterns per language: the Japanese tables and the :class:`PatternSet` of each
language (English and Mandarin tables: ``_lang_rules``).

Japanese: sentence-final pattern flags (か／ですね／ください／しました／しましょうか／よろしいですか …) over a
segment, flags about the user's input (a question? a 教えて-style request?), and the interactions of the two that
``_features`` turns into a segment's feature row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from voxeval.annotate import _lang_rules as rules

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
    """One language's named patterns: what ``_features.segment_flags``, ``user_flags`` and ``hand_features``
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
