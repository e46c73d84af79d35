"""Rules for the labelling guide's second round of settled cases (``shared/da-labelling-guide.md``).

Registered in :data:`training.annotator.conformance.RULES` beside the first round's rules. Each is narrow on
purpose: it fires only where the text alone decides the case (the user asked for advice and the reply gives it
as a Suggestion; a recipe scaled on command read out as Inform; "check X" after a failure labelled Request; a
general offer of more help, an echo acknowledgement or a capability offer labelled as a task act). What needs
judgement (is this offer the same listing or new content?) is left to review.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from training.annotator.conformance import Reply

_SENTENCE = re.compile(r"[^。！？!?]+[。！？!?]*")

ADVICE_ASKED = re.compile(
    r"(どうしよう|どうしたら|どうすれば|何がいい|なにがいい|何か作れる|なんか作れる|何しよう|なにしよう"
    r"|何食べ|なに食べ|(いる|要る)[？?]|ほうがいい[？?]|方がいい[？?]|べき[？?]|おすすめ(は|ある)|オススメ(は|ある))"
)
"""An input asking the assistant for advice (「傘いる？」, 「どうしよう」, 「夜食何がいいかな」)."""

INFO_COMMAND = re.compile(r"(人分に|換算して|計算して|に直して|訳して|翻訳して)")
"""A command whose purpose is information (scale, convert, calculate, translate)."""

_FAILED = re.compile(r"(でき(ません|ず|ない)|られ(ません|ず)|れないんです|ませんでした|かねます|失敗|見つかりません)")
OWN_OFFER = re.compile(r"(ましょうか|しますか|いたしますか)[？?]$")
_CHECK_STEP = re.compile(
    r"(確認して|確かめて|お試し|試して|再起動|オンにして|入れて(ください|くださいね)|充電|補充|交換して|許可して"
    r"|見直して|更新して|つなぎ直して|接続し直して|差し直して)"
)
_POLITE_QUESTION = re.compile(r"(いただけ|もらえ|くださいます|くださいません)[^。]*[？?]$")
_GENERAL_OFFER = re.compile(
    r"^((ほか|他)に(も)?|何か|なにか|(わから|分から)ないところ|困ったこと)[^。！？]{0,24}(あれば|あったら)、?"
    r"[^。！？]{0,16}(いつでも|お気軽に|気軽に)[^。！？]{0,14}(ください|どうぞ)(ね)?[！!。]$"
    r"|^いつでも(どうぞ|お声がけください)[！!。]$"
)
_ECHO = re.compile(r"^(はい|はーい|ええ)?、?(?P<x>[^、。！？!?]{2,14})ですね[！!。]$")
_CAPABILITY = re.compile(
    r"((こと|の)もできますよ|(お|ご)[一-龥]{1,4}できますよ)[！!。]$"
    r"|^(必要でしたら|必要なら|必要であれば|ご希望でしたら|ご希望なら|もしよければ|よかったら)、[^。]*(します|いたします)(よ|ね)?[！!。]$"
)


def sentences(text: str) -> list[str]:
    """The sentences of a text, each with its final punctuation."""
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def last_sentence(text: str) -> str:
    """The final sentence of a text (the text itself when it has none)."""
    found = sentences(text)
    return found[-1] if found else text.strip()


def _acts(reply: Reply) -> list[int]:
    return [i for i, s in enumerate(reply.segments) if s.act is not None]


def _failed(reply: Reply, before: int | None = None) -> bool:
    """Whether a Commissive span before ``before`` (or anywhere) reports a failure or refusal."""
    segs = reply.segments[:before]
    return any(s.act == "Commissive" and _FAILED.search(s.text) for s in segs)


def advice_asked(reply: Reply) -> Iterator[tuple[int, str]]:
    """Advice the user asked for is Answer: a reply to 「どうしよう」 whose advice is labelled Suggestion."""
    labels = [reply.segments[i].act for i in _acts(reply)]
    if not ADVICE_ASKED.search(reply.input_text) or "Answer" in labels or _failed(reply):
        return
    for i in _acts(reply):
        seg = reply.segments[i]
        if seg.act == "Suggestion" and not OWN_OFFER.search(last_sentence(seg.text)):
            yield i, "advice the user asked for, labelled Suggestion: it is Answer"
            return


def info_command(reply: Reply) -> Iterator[tuple[int, str]]:
    """A command whose purpose is information (scale a recipe, convert, translate) is answered with Answer."""
    labels = [reply.segments[i].act for i in _acts(reply)]
    if not INFO_COMMAND.search(reply.input_text) or "Answer" in labels or "Request" in labels or _failed(reply):
        return
    for i in _acts(reply)[1:]:
        if reply.segments[i].act == "Inform" and not reply.segments[i].text.startswith(("ちなみに", "なお")):
            yield i, "the information the user's command asked for, labelled Inform: it is Answer"
            return


def request_after_failure(reply: Reply) -> Iterator[tuple[int, str]]:
    """After a failure or refusal the task has ended: "check X" / "try again" is Suggestion, not Request."""
    for i in _acts(reply):
        seg = reply.segments[i]
        later = [reply.segments[j].act for j in _acts(reply) if j > i]
        if seg.act != "Request" or "Commissive" in later or not _failed(reply, i):
            continue
        if _CHECK_STEP.search(seg.text) and not _POLITE_QUESTION.search(last_sentence(seg.text)):
            yield i, "a step for the user after a failure or refusal, labelled Request: the task has ended, Suggestion"


def general_offer_chatter(reply: Reply) -> Iterator[tuple[int, str]]:
    """General offers of more help (「ほかにも何かあれば、いつでも声をかけてくださいね。」) stay outside spans."""
    for i in _acts(reply):
        for sent in sentences(reply.segments[i].text):
            if _GENERAL_OFFER.match(sent):
                yield i, f"a general offer of more help {sent!r} inside a {reply.segments[i].act} span: outside"
                break


def echo_acknowledgement(reply: Reply) -> Iterator[tuple[int, str]]:
    """An echo acknowledgement of the request (「お電話ですね。」) is chatter outside every span."""
    for i in _acts(reply):
        found = _ECHO.match(reply.segments[i].text.strip())
        if found and _shares_words(found["x"], reply.input_text):
            yield i, f"an echo acknowledgement labelled {reply.segments[i].act}: it stays outside every span"


def _shares_words(echo: str, input_text: str) -> bool:
    """Whether the echo repeats three characters in a row of the input (kana particles ignored)."""
    text = re.sub(r"[のをにがはへと]", "", echo)
    return any(text[k : k + 3] in input_text for k in range(len(text) - 2))


def capability_offer(reply: Reply) -> Iterator[tuple[int, str]]:
    """Capability offers (「…もできますよ。」) and conditional offers (「必要でしたら、…します。」) are Suggestion."""
    for i in _acts(reply):
        seg = reply.segments[i]
        if seg.act in ("Inform", "Commissive") and _CAPABILITY.search(last_sentence(seg.text)):
            yield i, f"a capability or conditional offer labelled {seg.act}: it is Suggestion"


ROUND2 = (
    ("advice-asked", "Settled cases, second round: Advice the user asked for is Answer", advice_asked),
    ("info-command", "Settled cases, second round: A command whose purpose is information", info_command),
    ("request-after-failure", "Settled cases, second round: After a failure or refusal", request_after_failure),
    ("general-offer-chatter", "Settled cases, second round: Chatter outside spans", general_offer_chatter),
    ("echo-acknowledgement", "Settled cases, second round: Chatter outside spans", echo_acknowledgement),
    ("capability-offer", "Settled cases, second round: Capability offers", capability_offer),
)
"""The second round's rules: (name, guide section, check)."""
