"""Style requirements read from a free-text instruction (en / zh / ja): attribute → canonical level.

Rule based and best effort: each language has a table of phrases (``very slow`` → speed, ``低沉`` → pitch,
``小さな声`` → volume, ``小女孩`` → gender and age, emotions). A degree word right before a gradable phrase
(``very``, ``非常`` / ``很``, ``とても``…) or right after it in Chinese (``快极了``) turns a plain level into its
``very_*`` level; a negation right before it (``not too fast``, ``不要太快``) drops it. Text inside quotation marks
(“…”, 「…」, ``"…"``) is the content to speak, not the style, and is skipped unless it is the whole instruction.
When an attribute is stated more than once, its first statement wins, unless a later one states the same level
more strongly ("in a hushed whisper": quiet, then very quiet → ``very_quiet``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from voxeval.style._types import ATTRIBUTES, LEVELS


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    """Where the phrase is; an optional group ``k`` marks the word a degree or negation attaches to."""
    levels: dict[str, str]
    """Attribute → level the phrase states."""
    gradable: bool
    """Whether a degree word turns the (plain) levels into ``very_*``."""


def _r(pattern: str, *, gradable: bool = False, **levels: str) -> _Rule:
    return _Rule(re.compile(pattern), levels, gradable)


_AS_POSSIBLE = r"(?:possible|(?:you|it|your voice) (?:possibly )?(?:can|could|will)(?: go)?)\b"
"""The tail of "as fast as you can", "as low as it can go", "as loud as possible"."""

_EN: tuple[_Rule, ...] = (
    _r(rf"\bas (?:fast|quickly|rapidly) as {_AS_POSSIBLE}", speed="very_fast"),
    _r(rf"\bas slowly? as {_AS_POSSIBLE}", speed="very_slow"),
    _r(rf"\bas (?:high|high-pitched) as {_AS_POSSIBLE}", pitch="very_high"),
    _r(rf"\bas (?:low|deep|low-pitched) as {_AS_POSSIBLE}", pitch="very_low"),
    _r(rf"\bas (?:loud|loudly) as {_AS_POSSIBLE}", volume="very_loud"),
    _r(rf"\bas (?:quiet|quietly|soft|softly) as {_AS_POSSIBLE}", volume="very_quiet"),
    _r(r"\b(?:normal|moderate|average|steady|regular) (?:speaking )?(?:speed|pace|rate|tempo)\b", speed="normal"),
    _r(r"\b(?P<k>slow(?:ly|[- ]paced)?|unhurried(?:ly)?|leisurely|sluggish(?:ly)?)\b", gradable=True, speed="slow"),
    _r(r"\b(?P<k>fast(?:[- ]paced)?|quick(?:ly)?|rapid(?:ly)?|hurried(?:ly)?|brisk(?:ly)?|speedy)\b", gradable=True,
       speed="fast"),
    _r(r"\b(?:normal|medium|natural|regular|usual) (?:speaking )?pitch\b", pitch="normal"),
    _r(r"\b(?:pitch|voice|tone)\s+(?:[a-z]+\s+)?(?P<k>high|low)\b(?! (?:volume|speed))", gradable=True,
       pitch="{high|low}"),
    _r(r"\b(?P<k>higher|lower)(?:[- ]pitched)?\s+(?:pitch|voice|tone)\b", pitch="{high|low}"),
    _r(r"\b(?P<k>low[- ]pitched|low pitch|deep(?:ly)?[- ]voiced|deep|low)\b(?=(?:[\s,-]+[a-z]+){0,2}?[\s,-]+"
       r"(?:voice|tone|timbre|register|pitch)\b)|\b(?P<k2>low[- ]pitched|deep[- ]voiced|baritone|bass)\b",
       gradable=True, pitch="low"),
    _r(r"\b(?P<k>high[- ]pitched|high pitch|high)\b(?=(?:[\s,-]+[a-z]+){0,2}?[\s,-]+(?:voice|tone|register|pitch)\b)"
       r"|\b(?P<k2>high[- ]pitched|shrill|squeaky|falsetto)\b", gradable=True, pitch="high"),
    _r(r"\b(?:at the top of (?:your|his|her|their) lungs|shout(?:s|ed|ing)?|yell(?:s|ed|ing)?|scream(?:s|ed|ing)?)\b",
       volume="very_loud"),
    _r(r"\bwhisper(?:s|ed|ing)?\b", volume="very_quiet"),
    _r(r"\b(?:normal|moderate|medium|regular|usual) (?:speaking )?(?:volume|loudness)\b", volume="normal"),
    _r(r"\b(?P<k>loud(?:ly)?|booming|boisterous(?:ly)?)\b", gradable=True, volume="loud"),
    _r(r"\b(?P<k>quiet(?:ly)?|soft(?:ly)?|hushed|low[- ]volume)\b", gradable=True, volume="quiet"),
    _r(r"\b(?:little|young|small) girl\b", gender="female", age="child"),
    _r(r"\b(?:little|young|small) boy\b", gender="male", age="child"),
    _r(r"\b(?:old|elderly) (?:man|gentleman)\b|\bgrand(?:father|pa|dad)\b", gender="male", age="elderly"),
    _r(r"\b(?:old|elderly) (?:woman|lady)\b|\bgrand(?:mother|ma|ma's)\b", gender="female", age="elderly"),
    _r(r"\byoung (?:man|guy|gentleman)\b", gender="male", age="young_adult"),
    _r(r"\byoung (?:woman|lady)\b", gender="female", age="young_adult"),
    _r(r"\bmiddle[- ]aged\b", age="middle_aged"),
    _r(r"\b(?:elderly|old|aged|senior)\b(?=[\s,-]+(?:[a-z]+[\s,-]+)?(?:person|voice|speaker|people|citizen))"
       r"|\b(?:elderly|senior citizen)\b", age="elderly"),
    _r(r"\b(?:teenager|teenaged?|teen|adolescent)s?\b", age="teenager"),
    _r(r"\b(?:child(?:ren)?|child[- ]?like|kids?|toddler)\b", age="child"),
    _r(r"\byoung (?:adult|person|people)\b|\byouthful\b", age="young_adult"),
    _r(r"\b(?:male|man|men|masculine|gentleman|guy|boy)\b", gender="male"),
    _r(r"\b(?:female|woman|women|feminine|lady|girl)\b", gender="female"),
    _r(r"\b(?:happ(?:y|ily)|cheerful(?:ly)?|joyful(?:ly)?|joyous(?:ly)?|excited(?:ly)?|delighted|glad(?:ly)?|elated"
       r"|upbeat)\b", emotion="happy"),
    _r(r"\b(?:sad(?:ly)?|sorrowful(?:ly)?|melanchol(?:y|ic)|tearful(?:ly)?|crying|heartbroken|gloomy|depressed"
       r"|mournful(?:ly)?)\b", emotion="sad"),
    _r(r"\b(?:angry|angrily|furious(?:ly)?|annoyed|irritated|enraged|mad)\b", emotion="angry"),
    _r(r"\b(?:surprised|astonished|amazed|shocked|in disbelief)\b", emotion="surprised"),
    _r(r"\b(?:fearful(?:ly)?|scared|afraid|frightened|terrified|panicked|nervous(?:ly)?)\b", emotion="fearful"),
    _r(r"\b(?:disgusted|disgust|revolted|repulsed|grossed out)\b", emotion="disgusted"),
    _r(r"\b(?:neutral|emotionless|monotone|flat tone|calm(?:ly)?)\b", emotion="neutral"),
)  # fmt: skip

_ZH: tuple[_Rule, ...] = (
    _r(r"正常(?:的)?(?:语速|速度)|(?:语速|速度)正常", speed="normal"),
    _r(
        r"(?:语速|速度|说话|讲话|说得|讲得|念得|读得|节奏)[^，。,.!?！？\s]{0,5}?(?P<k>快|慢)(?!乐|活)",
        gradable=True,
        speed="{fast|slow}",
    ),
    _r(r"(?<![缓飞])(?P<k>快|慢)(?:一点|一些|些)?的(?:语速|速度|节奏)", gradable=True, speed="{fast|slow}"),
    _r(r"(?:说|讲|念|读)得?(?P<k>快|慢)(?:一点|一些|点)", gradable=True, speed="{fast|slow}"),
    _r(r"(?P<k>快)(?:速|点|一点)?(?:地)?(?:说|讲|念|读|回答)", gradable=True, speed="fast"),
    _r(r"(?P<k>飞快|急促|迅速|快速|语速快)", gradable=True, speed="fast"),
    _r(r"(?P<k>慢慢|缓慢|慢悠悠|慢吞吞|慢条斯理)", gradable=True, speed="slow"),
    _r(r"正常(?:的)?(?:音调|音高|声调)|(?:音调|音高|声调)正常", pitch="normal"),
    _r(r"正常(?:的)?(?:音量|声量)|(?:音量|声量)正常", volume="normal"),
    _r(r"(?:音调|音高|声调|嗓音|调子)[^，。,.!?！？\s]{0,4}?(?P<k>高|低)", gradable=True, pitch="{high|low}"),
    _r(r"(?P<k>高|低)(?:一点|一些)?的(?:音调|音高|声调|嗓音|调子|声音)", gradable=True, pitch="{high|low}"),
    _r(r"(?P<k>低沉|浑厚|深沉|低音)", gradable=True, pitch="low"),
    _r(r"(?P<k>高亢|尖细|尖锐|尖声|高音|高昂)", gradable=True, pitch="high"),
    _r(r"耳语|悄悄话|窃窃私语", volume="very_quiet"),
    _r(r"大喊|喊叫|呐喊|吼|咆哮|尖叫|扯着嗓子", volume="very_loud"),
    _r(r"(?P<k>大声|响亮|洪亮|高声)", gradable=True, volume="loud"),
    _r(r"(?P<k>小声|轻声|低声|悄声|悄悄|轻轻)", gradable=True, volume="quiet"),
    _r(r"(?:音量|声音)[^，。,.!?！？\s]{0,4}?(?P<k>大|小)(?!声)", gradable=True, volume="{loud|quiet}"),
    _r(r"(?P<k>大|小)(?:一点|一些)?的(?:声音|音量)", gradable=True, volume="{loud|quiet}"),
    _r(r"小女孩|小姑娘|女童", gender="female", age="child"),
    _r(r"小男孩|男童", gender="male", age="child"),
    _r(r"少女", gender="female", age="teenager"),
    _r(r"(?<!青)少年", gender="male", age="teenager"),
    _r(r"年轻(?:的)?(?:女性|女子|女人|姑娘)", gender="female", age="young_adult"),
    _r(r"年轻(?:的)?(?:男性|男子|男人)|小伙子?", gender="male", age="young_adult"),
    _r(r"中年(?:男性|男人|男子)|大叔", gender="male", age="middle_aged"),
    _r(r"中年(?:女性|女人|妇女)|阿姨|大妈", gender="female", age="middle_aged"),
    _r(r"老爷爷|爷爷|老爷子|老头|老大爷|老先生|外公|老年男性", gender="male", age="elderly"),
    _r(r"老奶奶|奶奶|老太太|老婆婆|外婆|老年女性", gender="female", age="elderly"),
    _r(r"女孩子", gender="female"),
    _r(r"男孩子", gender="male"),
    _r(r"青少年|中学生|高中生", age="teenager"),
    _r(r"小朋友|小孩|孩子|儿童|童声|孩童|幼儿", age="child"),
    _r(r"年轻人|青年|年轻", age="young_adult"),
    _r(r"中年", age="middle_aged"),
    _r(r"老人|老年|老者|年迈|苍老", age="elderly"),
    _r(r"男性|男生|男人|男声|男子|男士|男孩", gender="male"),
    _r(r"女性|女生|女人|女声|女子|女士|女孩", gender="female"),
    _r(r"开心|高兴|快乐|愉快|兴奋|欢快|喜悦|欢乐|激动", emotion="happy"),
    _r(r"伤心|难过|悲伤|哀伤|沮丧|失落|哭腔|哽咽|悲痛", emotion="sad"),
    _r(r"生气|愤怒|恼火|气愤|发火|暴躁", emotion="angry"),
    _r(r"惊讶|吃惊|震惊|惊奇|诧异", emotion="surprised"),
    _r(r"害怕|恐惧|惊恐|胆怯|畏惧|紧张", emotion="fearful"),
    _r(r"厌恶|嫌弃|恶心|反感", emotion="disgusted"),
    _r(r"平静|中性|冷静|平淡|没有感情|毫无感情", emotion="neutral"),
)

_JA: tuple[_Rule, ...] = (
    _r(r"普通の(?:速さ|スピード)", speed="normal"),
    _r(r"(?P<k>早口|速く|速め|早く|速い|素早く|急いで)", gradable=True, speed="fast"),
    _r(r"(?P<k>ゆっくり|ゆったり|遅く|遅め|のんびり)", gradable=True, speed="slow"),
    _r(r"普通の(?:高さ|トーン|音程|声の高さ)", pitch="normal"),
    _r(r"普通の(?:音量|声の大きさ|大きさ)", volume="normal"),
    _r(
        r"(?P<k>甲高い|高い|高め|高音)の?(?=(?:男性の|女性の|男の|女の|子供の)?(?:声|トーン|音程|調子))|(?P<k2>甲高い|高音)",
        gradable=True,
        pitch="high",
    ),
    _r(
        r"(?P<k>低い|低め|低音)の?(?=(?:男性の|女性の|男の|女の)?(?:声|トーン|音程|調子))|(?P<k2>低音)",
        gradable=True,
        pitch="low",
    ),
    _r(r"ささや|囁|ひそひそ", volume="very_quiet"),
    _r(r"叫ん|叫ぶ|絶叫", volume="very_loud"),
    _r(r"(?P<k>大きな|大きい|大きめの)声|(?P<k2>大声)", gradable=True, volume="loud"),
    _r(r"(?P<k>小さな|小さい|小さめの)声|(?P<k2>小声)", gradable=True, volume="quiet"),
    _r(r"おじいさん|おじいちゃん|お爺さん|祖父", gender="male", age="elderly"),
    _r(r"おばあさん|おばあちゃん|お婆さん|祖母", gender="female", age="elderly"),
    _r(r"おじさん|中年男性", gender="male", age="middle_aged"),
    _r(r"おばさん|中年女性", gender="female", age="middle_aged"),
    _r(r"男の子", gender="male", age="child"),
    _r(r"女の子", gender="female", age="child"),
    _r(r"少年", gender="male", age="teenager"),
    _r(r"少女", gender="female", age="teenager"),
    _r(r"若い男性|若い男", gender="male", age="young_adult"),
    _r(r"若い女性|若い女", gender="female", age="young_adult"),
    _r(r"お年寄り|老人|高齢|年配", age="elderly"),
    _r(r"中年", age="middle_aged"),
    _r(r"高校生|中学生|ティーンエイジャー|十代", age="teenager"),
    _r(r"子ども|子供|こども|幼い|幼児", age="child"),
    _r(r"若者|青年|若い", age="young_adult"),
    _r(r"男性|男の人|男声", gender="male"),
    _r(r"女性|女の人|女声", gender="female"),
    _r(r"嬉し|うれし|楽しそう|楽しげ|喜ん|喜び|明るく|元気よく|興奮", emotion="happy"),
    _r(r"悲し|泣きそう|泣き|しょんぼり|落ち込ん", emotion="sad"),
    _r(r"怒っ|怒り|腹を立て|イライラ|いらいら|不機嫌", emotion="angry"),
    _r(r"驚い|驚き|びっくり", emotion="surprised"),
    _r(r"怖が|怖そう|怯え|おびえ|恐怖|怖い", emotion="fearful"),
    _r(r"嫌そう|嫌悪|うんざり|気持ち悪そう", emotion="disgusted"),
    _r(r"淡々と|落ち着い|平静|無感情", emotion="neutral"),
)

_RULES = {"en": _EN, "zh": _ZH, "ja": _JA}

_DEGREE_BEFORE = {
    "en": re.compile(
        r"(?:\b(?:very|extremely|really|super|incredibly|especially|exceptionally|remarkably|extra|ultra|insanely"
        r"|painfully|blazingly|terribly|awfully)[\s,-]+)+$"
    ),
    "zh": re.compile(r"(?:非常|很|特别|极其|极为|极|超级|超|十分|格外|异常|无比|巨|最)$"),
    "ja": re.compile(
        r"(?:とても|すごく|すっごく|ものすごく|非常に|かなり|めちゃくちゃ|めっちゃ|極めて|超|思いっきり|思い切り"
        r"|できるだけ|できる限り)\s*$"
    ),
}
_DEGREE_AFTER = {"zh": re.compile(r"^(?:极了|得很|得不得了|得飞起|死了)")}
_NEGATION_BEFORE = {
    "en": re.compile(r"(?:\b(?:not|never|no|dont|without)\b|n[’']t\b)(?:\s+[a-z’']+){0,2}\s*$"),
    "zh": re.compile(r"(?:不要|(?<![特区性级])别|不能|切勿|不用|不必|不|没)[太很那么]{0,2}$"),  # 特别 is "very"
}
_NEGATION_AFTER = {"ja": re.compile(r"^[^、。]{0,6}?(?:ないで|ずに)")}

_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|‘[^’]*’|\"[^\"]*\"")


def _mask_quotes(text: str) -> str:
    """Blank out quoted content (keeping positions); the whole text when nothing would remain."""
    masked = _QUOTED.sub(lambda m: " " * len(m.group(0)), text)
    return masked if masked.strip() else text


def _word_span(match: re.Match[str]) -> tuple[int, int, str]:
    for name in ("k", "k2"):
        if name in match.re.groupindex and match.group(name):
            return match.start(name), match.end(name), match.group(name)
    return match.start(), match.end(), match.group(0)


def _level(attribute: str, level: str, word: str, intense: bool) -> str:
    if level.startswith("{"):  # "{fast|slow}": the first for 快/高/大, the second for 慢/低/小
        first, second = level.strip("{}").split("|")
        level = first if word in ("快", "高", "大", "high", "higher") else second
    very = f"very_{level}"
    return very if intense and very in LEVELS[attribute] else level


def _matches(text: str, language: str) -> list[tuple[int, str, str]]:
    """``(position, attribute, level)`` of every phrase, each stretch of text used by one phrase at most."""
    claimed: list[tuple[int, int]] = []
    found: list[tuple[int, str, str]] = []
    for rule in _RULES[language]:
        for match in rule.pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in claimed):
                continue
            claimed.append((start, end))
            k_start, k_end, word = _word_span(match)
            before, after = text[max(0, k_start - 40) : k_start], text[k_end : k_end + 12]
            negation_before, negation_after = _NEGATION_BEFORE.get(language), _NEGATION_AFTER.get(language)
            if (negation_before and negation_before.search(before)) or (negation_after and negation_after.match(after)):
                continue
            degree_after = _DEGREE_AFTER.get(language)
            intense = rule.gradable and bool(
                _DEGREE_BEFORE[language].search(before) or (degree_after and degree_after.match(after))
            )
            found.extend((start, a, _level(a, lvl, word, intense)) for a, lvl in rule.levels.items())
    return found


def parse_requirements(text: str, language: str) -> dict[str, str]:
    """Attribute → canonical level stated by a style instruction in ``en``, ``zh`` or ``ja``.

    >>> parse_requirements("Say it in a very slow, deep voice.", "en")
    {'pitch': 'low', 'speed': 'very_slow'}
    >>> parse_requirements("请用非常快的语速说", "zh")
    {'speed': 'very_fast'}
    """
    if language not in _RULES:
        raise ValueError(f"no requirement rules for language {language!r}; known: {', '.join(_RULES)}")
    normalised = unicodedata.normalize("NFKC", text)
    normalised = _mask_quotes(normalised.lower() if language == "en" else normalised)
    found = sorted(_matches(normalised, language))
    first: dict[str, str] = {}
    for _, attribute, level in found:
        first.setdefault(attribute, level)
    for _, attribute, level in found:  # "a squeaky, very high-pitched voice": the same level, stated stronger
        if level == f"very_{first[attribute]}":
            first[attribute] = level
    return {a: first[a] for a in ATTRIBUTES if a in first}
