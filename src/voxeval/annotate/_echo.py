"""Echo detection: a reply that only repeats the user's input performs no act of the assistant.

Weak speech models and cascades often answer a misheard or unclear input by repeating it (「タイマが決して」 →
「タイマが決して」). An annotator reading such a reply alone sees a sentence about the topic and labels it, so an
echo system can outscore a flawed but real one. :func:`detect_echo` is a pure, character-level check applied
before any annotator is called (:func:`annotate_guarded`), so every annotator (``offline``, ``llm:…``) and every
command that annotates (``voxeval run``, ``voxeval annotate``, ``voxeval annotator-check``) treats echoes alike.

Both texts are normalised (:func:`normalise`): NFKC, lower case, leading fillers (「はい、」「ええと」「うーん」…)
removed, then punctuation, spaces, the long-vowel mark 「ー」 and the particles in :data:`PARTICLES` dropped
(an echo with a particle changed or a vowel lengthened is the same echo). The similarity is one minus the
Levenshtein distance over the longer length; the reply is an echo when it reaches :data:`THRESHOLD` and the
normalised reply is at most :data:`MAX_LENGTH_RATIO` times the normalised input (a reply that quotes the input
and then answers is longer, so it is not an echo). Inputs shorter than :data:`MIN_INPUT_CHARS` after
normalisation, or that are a filler (「はい」, 「うん」), are never judged: every short reply would look like them.
The figures that chose the thresholds are in docs/annotators.md ("Echoes": echoes of every ja-assistant input
caught, genuine replies flagged).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from voxeval.annotate._protocol import Annotation, AnnotationInput, Annotator

THRESHOLD = 0.8
"""Minimum normalised similarity for a reply to count as an echo of the input."""

MAX_LENGTH_RATIO = 1.5
"""An echo's normalised reply is at most this many times as long as the normalised input."""

MIN_INPUT_CHARS = 2
"""Inputs shorter than this (normalised, particles kept) are not judged."""

FILLERS = ("はい", "ええと", "えっと", "ええ", "うーん", "うん", "あの", "えー", "そうですね", "了解")
"""Words that may open an echo (「はい、3分測って」) and are removed from its start, repeatedly."""

PARTICLES = "をがはにでともへのやねよ"
"""One-character particles (case and sentence-final) dropped before comparing (「タイマーを消して」 ≈
「タイマーが消して」)."""

_PUNCTUATION = re.compile(r"[\s\W_ー〜~]+")
_PARTICLE = re.compile(f"[{PARTICLES}]")

EN_FILLERS = ("yes", "yeah", "okay", "ok", "sure", "alright", "all right", "got it", "um", "uh", "so", "well", "oh")
"""English words that may open an echo (``Okay, set a timer for three minutes``)."""
EN_PARTICLES = ("a", "an", "the", "please", "to", "for")
"""English words dropped before comparing (an article or a ``please`` changed is the same echo)."""
ZH_FILLERS = ("好的", "好嘞", "好", "嗯", "嗯嗯", "行", "收到", "哦", "是的")
"""Mandarin words that may open an echo (``好的，定个三分钟的计时器``)."""
ZH_PARTICLES = "的吗吧呢啊呀哦个"
"""Mandarin particles (and the classifier 个) dropped before comparing (not 了: it marks a completed action)."""

_EN_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_EN_ASSISTANT = frozenset(
    ["i", "i'll", "i've", "i'm", "i'd", "we'll", "we've", "you", "you're", "you'll", "you've", "your", "sent", "done"]
)
"""English words of an assistant's own voice: a reply that adds one speaks for itself (``I'll remind you …``)."""
_EN_NUMBER = re.compile(
    r"^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred)$"
)
_ZH_ASSISTANT = re.compile(r"了|已|正在|为您|帮您|给您|您的")
"""Mandarin marks of a completed or ongoing action and of the assistant's own voice."""
_ZH_NUMBER = re.compile(r"[0-9〇零一二三四五六七八九十百千万两半几]")


def _zh_numbers(text: str) -> set[str]:
    """The numerals of a Mandarin text (一 of 一个 / 一下 / 一点 / 一些 is no number)."""
    return set(_ZH_NUMBER.findall(re.sub("一(?=[个下点些])", "", text)))


def _en_inflects(word: str, known: set[str]) -> bool:
    """Whether ``word`` is an inflected form of a word in ``known`` (``paused`` / ``calling`` of ``pause`` /
    ``call``): a confirmation, not a repetition."""
    for suffix in ("ing", "ed", "d", "s"):
        stem = word.removesuffix(suffix)
        if stem != word and (stem in known or stem + "e" in known or (len(stem) > 2 and stem[:-1] in known)):
            return True
    return False


def speaks_for_itself(reply: str, user_input: str, language: str) -> bool:
    """Whether an English or Mandarin reply adds what an echo never does: the assistant's own voice (I'll, your;
    了, 已, 正在, 帮您), an inflected form of the input's verb (``Paused.`` for ``Pause.``) or a number the input
    lacks (``Four more stops`` for ``How many stops``). Always ``False`` for Japanese (its rule predates these)."""
    if language == "en":
        said, heard = _EN_WORD.findall(reply.lower()), set(_EN_WORD.findall(user_input.lower()))
        new = [w for w in said if w not in heard]
        return any(w in _EN_ASSISTANT or _EN_NUMBER.match(w) or _en_inflects(w, heard) for w in new)
    if language == "zh":
        added = set(_ZH_ASSISTANT.findall(reply)) - set(_ZH_ASSISTANT.findall(user_input))
        return bool(added) or bool(_zh_numbers(reply) - _zh_numbers(user_input))
    return False


@dataclass(frozen=True)
class EchoRules:
    """One language's normalisation: the fillers removed from the start, the particles dropped."""

    fillers: tuple[str, ...]
    """Words removed from the start, repeatedly (a filler alone is kept)."""
    leading: re.Pattern[str]
    """Leading separators and fillers."""
    particle: re.Pattern[str]
    """What is dropped before comparing unless particles are kept."""


@dataclass(frozen=True)
class Echo:
    """How close a reply is to the user's input."""

    similarity: float | None
    """1 − Levenshtein distance / longer length, on the normalised texts; ``None`` when not computed (an input too
    short to judge, or lengths so different that the reply cannot be an echo)."""
    is_echo: bool
    """True when the reply only repeats the input (see the module docstring for the rule)."""


_SEPARATORS = " 、。,.!?！？…・"


def _leading(fillers: tuple[str, ...], word_end: str = "") -> re.Pattern[str]:
    """Leading separators and fillers, repeatedly (a filler is kept when nothing follows it: 「はい」 alone);
    ``word_end``: what must follow an English filler (a word boundary)."""
    body = "|".join(map(re.escape, sorted(fillers, key=len, reverse=True) if word_end else fillers))
    return re.compile(
        f"^(?:[{re.escape(_SEPARATORS)}]*(?:{body}){word_end}(?=.))*[{re.escape(_SEPARATORS)}]*", re.DOTALL
    )


_LEADING = _leading(FILLERS)
"""Japanese leading separators and fillers."""

_RULES = {
    "ja": EchoRules(FILLERS, _LEADING, _PARTICLE),
    "en": EchoRules(EN_FILLERS, _leading(EN_FILLERS, r"\b"), re.compile(rf"\b(?:{'|'.join(EN_PARTICLES)})\b")),
    "zh": EchoRules(ZH_FILLERS, _leading(ZH_FILLERS), re.compile(f"[{ZH_PARTICLES}]")),
}
"""Per language, the echo normalisation (an unknown language uses the Japanese rules, which only touch kana)."""


def normalise(text: str, *, particles: bool = False, language: str = "ja") -> str:
    """The text as compared: NFKC, lower case, leading fillers removed, punctuation/space/ー dropped, and the
    particles too unless ``particles`` (English: articles, ``please``, ``to``, ``for``, dropped as words).

    >>> normalise("はい、タイマーを消して。"), normalise("次は？", particles=True), normalise("はい", particles=True)
    ('タイマ消して', '次は', 'はい')
    >>> normalise("Okay, set the timer.", language="en"), normalise("好的，定个闹钟吧。", language="zh")
    ('settimer', '定闹钟')
    """
    rules = _RULES.get(language, _RULES["ja"])
    text = rules.leading.sub("", unicodedata.normalize("NFKC", text).lower().strip(), count=1)
    if not particles and language == "en":
        text = rules.particle.sub(" ", text)  # whole words, before the spaces go
    text = _PUNCTUATION.sub("", text)
    return text if particles or language == "en" else rules.particle.sub("", text)


@functools.lru_cache(maxsize=4096)
def _input_forms(user_input: str, language: str = "ja") -> tuple[str, str]:
    """The input without and with particles (inputs repeat across the systems of a run: computed once each)."""
    return normalise(user_input, language=language), normalise(user_input, particles=True, language=language)


def _levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def detect_echo(reply: str, user_input: str, language: str = "ja") -> Echo:
    """Whether ``reply`` only repeats ``user_input`` (both in ``language``: its fillers and particles).

    >>> detect_echo("はい、3分測って", "3分測って").is_echo
    True
    >>> detect_echo("3分のタイマーをスタートしました。", "3分測って").is_echo
    False
    """
    u, whole = _input_forms(user_input, language)
    r = normalise(reply, language=language)
    if len(whole) < MIN_INPUT_CHARS or whole in _RULES.get(language, _RULES["ja"]).fillers or not r:
        return Echo(None, False)  # too short to tell an echo from a short genuine reply («はい» → «はい»)
    if len(r) > MAX_LENGTH_RATIO * len(u) or 1.0 - abs(len(r) - len(u)) / max(len(r), len(u)) < THRESHOLD:
        return Echo(None, False)  # the lengths alone rule an echo out (the similarity is at most that bound)
    similarity = 1.0 - _levenshtein(r, u) / max(len(r), len(u))
    return Echo(similarity, similarity >= THRESHOLD and not speaks_for_itself(reply, user_input, language))


async def annotate_guarded(annotator: Annotator, item: AnnotationInput) -> Annotation:
    """The annotator's labels for ``item``, unless the reply is an echo of the user's input: then no acts.

    An echo's annotation carries ``meta["echo"] = True`` and the similarity, and the annotator is not called.
    Without a known user input nothing is judged.
    """
    if item.user_input:
        echo = detect_echo(item.reply, item.user_input, item.language)
        if echo.is_echo:
            return Annotation((), None, {"echo": True, "echo_similarity": round(echo.similarity or 0.0, 4)})
    return await annotator.annotate(item)


def echo_settings() -> dict[str, Any]:
    """The detector's thresholds, for ``config.json``."""
    return {
        "threshold": THRESHOLD,
        "max_length_ratio": MAX_LENGTH_RATIO,
        "min_input_chars": MIN_INPUT_CHARS,
        "particles": PARTICLES,
        "languages": {
            "en": {"fillers": list(EN_FILLERS), "words_dropped": list(EN_PARTICLES)},
            "zh": {"fillers": list(ZH_FILLERS), "particles": ZH_PARTICLES},
        },
    }
