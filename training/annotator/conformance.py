"""Conformance of labelled replies to the labelling guide's settled cases (``shared/da-labelling-guide.md``).

    python -m training.annotator.conformance            # the authored training rows (train split)
    python -m training.annotator.conformance --all      # also the validation rows, ja-assistant and ja-probe
    python -m training.annotator.conformance FILE ...   # any authored or dataset-schema JSONL file, every row

Each rule is a check on the Japanese text and the labels that a machine can decide with few false alarms; what
needs judgement (is this imperative for the user's benefit? does this aside answer the question?) is left to
review. A finding names file, line, reply id, field, the rule and the guide section it enforces; the command exits
1 when there is any. Rules were kept only when every hit on the shipped data was a real departure from the guide.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.annotator.data import AUTHORED_DIR, read_rows, split_group, split_of
from training.annotator.settled2 import ROUND2
from voxeval.data import builtin_path

BUILTIN = ("ja-assistant", "ja-probe")
"""Built-in datasets checked by ``--all``."""


@dataclass(frozen=True)
class Segment:
    """A piece of a reply: an act's span or chatter outside every span (``act`` None)."""

    text: str
    """The exact text (a span, or the gap between spans)."""
    act: str | None
    """The label, or None outside every span."""
    field: str
    """Where it sits in the row (``segments[2]``, ``output_dialogue_acts.steps[1]``, ``output.text[0:12]``)."""


@dataclass(frozen=True)
class Reply:
    """One labelled reply, whatever file format it came from."""

    file: Path
    """The JSONL file."""
    line: int
    """1-based line in the file."""
    id: str
    """The row id."""
    split: str
    """``train`` / ``validation`` for authored rows (by ``data.split_of``), else the row's ``split``."""
    input_text: str
    """The user's utterance."""
    flaw: str | None
    """The named flaw of an authored ``flawed`` row."""
    segments: tuple[Segment, ...]
    """The reply in order; their texts concatenate to the reply."""


@dataclass(frozen=True)
class Finding:
    """One departure from the guide."""

    reply: Reply
    """The reply it was found in."""
    field: str
    """The segment's field."""
    rule: str
    """The rule's name (see :data:`RULES`)."""
    message: str
    """What is wrong and what the guide wants."""

    def __str__(self) -> str:
        r = self.reply
        section = RULES[self.rule].section
        return f"{r.file}:{r.line}: {r.id} [{r.split}] {self.field}: {self.rule} ({section}): {self.message}"


def reply_from_row(path: Path, line: int, row: dict[str, Any]) -> Reply:
    """An authored row (``segments``) or a row in voxeval's dataset schema (spans rebuilt with the gaps)."""
    if "segments" in row:
        segs = tuple(Segment(s["text"], s.get("act"), f"segments[{i}]") for i, s in enumerate(row["segments"]))
        split = split_of(split_group(row))
        return Reply(path, line, row["id"], split, row["input_text"], row.get("flaw"), segs)
    reply, cursor, out = row["output"]["text"], 0, []
    for i, step in enumerate(row["output_dialogue_acts"]["steps"]):
        span = step.get("span") or ""
        found = reply.find(span, cursor) if span else -1
        if found < 0:  # no span: nothing to check by text
            continue
        if reply[cursor:found].strip():
            out.append(Segment(reply[cursor:found], None, f"output.text[{cursor}:{found}]"))
        out.append(Segment(span, step["act"], f"output_dialogue_acts.steps[{i}]"))
        cursor = found + len(span)
    if reply[cursor:].strip():
        out.append(Segment(reply[cursor:], None, f"output.text[{cursor}:{len(reply)}]"))
    return Reply(path, line, row["id"], row.get("split", ""), row["input"]["text"], row.get("flaw"), tuple(out))


# --- text helpers -------------------------------------------------------------------------------------------------

_SENTENCE = re.compile(r"[^。！？!?]+[。！？!?]*")


def sentences(text: str) -> list[str]:
    """The sentences of a text, each with its final punctuation."""
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def last_sentence(text: str) -> str:
    """The final sentence of a text (the text itself when it has none)."""
    found = sentences(text)
    return found[-1] if found else text.strip()


_ACCEPTANCE = re.compile(
    r"^(はい|ええ)?[、，]?(承知(いた)?しました|かしこまりました|わかりました|分かりました|了解(しました|です)?"
    r"|いいですよ|お任せください|オーケー|OK)[！!。]*$"
)
_GREETING = re.compile(
    r"^(はい、)?(おはようございます|こんにちは|こんばんは|おやすみなさい(ませ)?|(今日も(一日)?)?お疲れさま(でした|です)"
    r"|いってらっしゃい(ませ)?|お(帰|かえ)りなさい(ませ)?|いい質問ですね"
    r"|(それは)?(お)?(つらい|辛い|大変|残念)(です|でした)(よ)?ね"
    r"|[^、。！？]{1,15}、(素敵|すてき|楽しみ|素晴らしい|いい)ですね(〜)?)[！!。〜]*$"
)
_APOLOGY = re.compile(
    r"^(あれ|あっ|あ)?[、，]?(大変)?(申し訳(ありません|ございません)|すみません|ごめんなさい)(でした)?[。！!]*$"
)
_INABILITY = re.compile(r"(でき(ません|ない|ず)|られ(ません|ない)|かねます|ませんでした)")
_REASON_END = re.compile(r"(ので|ため|から)[、，]$")
_FILLER = re.compile(r"^(はい|いいえ|なお|ちなみに)[、，]?$")
_POLITE_REQUEST = re.compile(
    r"(いただけ(ます|ません)|もらえ(ます|ません)|くださいます|くださいません)(か|でしょうか)[？?]$"
)
_CONFIRMATION = re.compile(r"(よろしい(です|でしょう)か|ですね)[？?]$")
_WH = re.compile(r"(どちら|どっち|どれ|どの|どう|何|なに|なん|いつ|どこ|誰|だれ|いくつ|いくら)")
_CHOICE = re.compile(
    r"((どちら|どっち|どれ)(を|に|で|が|の)|どの|何を|何時に|いつ(?!も)|どこ)[^？?]*(ましょうか|しますか)[？?]$"
)
_CONTINUE = re.compile(r"(ほかの|他の|残りの|続き|続けて|もう(一|ひと|1)つ|以降|以下|もう1件|その前の)")
_READ_OUT = re.compile(r"(読み上げ|お読み|聞き|聞か|お聞き|お伝え|紹介)[^。？?]*[？?]$")
_OWN_INABILITY = re.compile(r"(お|ご)[一-龥ぁ-ん]{1,6}?(が|は)?(でき|いたしかね|できかね)ません[。！!]?$")
_APOLOGY_IN = re.compile(r"(申し訳|すみません|ごめんなさい)")
_OWN_FUTURE = re.compile(r"(お|ご)(?!願い)[一-龥][一-龥ぁ-ん]{0,4}?(します|いたします)(ね)?[。！!]$")
_JOKE_REQUEST = re.compile(r"(冗談|ダジャレ|だじゃれ|駄洒落|なぞなぞ|ジョーク|笑い話|小話)")


# --- rules --------------------------------------------------------------------------------------------------------

Check = Callable[[Reply], Iterator[tuple[int, str]]]
"""A rule's check: ``(segment index, message)`` for every departure in a reply."""


@dataclass(frozen=True)
class Rule:
    """A mechanical check of one settled case."""

    name: str
    """Short name printed in findings."""
    section: str
    """The guide section it enforces."""
    check: Check
    """The check."""


def _acts(reply: Reply) -> list[int]:
    return [i for i, s in enumerate(reply.segments) if s.act is not None]


def _acceptance_outside(reply: Reply) -> Iterator[tuple[int, str]]:
    for i, seg in enumerate(reply.segments):
        if seg.act is None and _ACCEPTANCE.match(seg.text.strip()):
            yield i, f"stand-alone acceptance {seg.text.strip()!r} outside every span: it is Commissive"


def _chatter_in_span(reply: Reply) -> Iterator[tuple[int, str]]:
    for i in _acts(reply):
        for sent in sentences(reply.segments[i].text):
            if _GREETING.match(sent):
                yield i, f"greeting/praise/empathy {sent!r} inside a {reply.segments[i].act} span: it stays outside"
                break


def _apology_before_refusal(reply: Reply) -> Iterator[tuple[int, str]]:
    segs = reply.segments
    for i, seg in enumerate(segs[:-1]):
        nxt = segs[i + 1]
        if seg.act is None and _APOLOGY.match(seg.text.strip()) and nxt.act and _INABILITY.search(nxt.text):
            yield i, f"apology {seg.text.strip()!r} outside the refusal/failure span that follows: it belongs to it"


def _reason_clause_split(reply: Reply) -> Iterator[tuple[int, str]]:
    acts = _acts(reply)
    for i in acts[:-1]:  # the last span has no main clause after it (a truncated reply)
        if _REASON_END.search(reply.segments[i].text.strip()):
            yield i, "a reason clause (〜ので、) split from its main clause: it stays in the main clause's span"


def _filler_alone(reply: Reply) -> Iterator[tuple[int, str]]:
    for i, seg in enumerate(reply.segments):
        if _FILLER.match(seg.text.strip()):
            yield i, f"a leading filler {seg.text.strip()!r} on its own: it belongs to the span that follows"


def _polite_request(reply: Reply) -> Iterator[tuple[int, str]]:
    for i in _acts(reply):
        seg = reply.segments[i]
        if seg.act != "Request" and _POLITE_REQUEST.search(last_sentence(seg.text)):
            yield i, f"a polite request phrased as a question labelled {seg.act}: it is Request"


def _confirmation(reply: Reply) -> Iterator[tuple[int, str]]:
    for i in _acts(reply):
        seg, last = reply.segments[i], last_sentence(reply.segments[i].text)
        if seg.act == "Question" and _CONFIRMATION.search(last) and not _WH.search(last):
            yield i, "a yes/no confirmation (〜でよろしいですか？, 〜ですね？) labelled Question: it is Check-Question"


def _offer_kind(reply: Reply) -> Iterator[tuple[int, str]]:
    answered = False  # a listing is only continued after the reply has read something out
    for i in _acts(reply):
        seg, last = reply.segments[i], last_sentence(reply.segments[i].text)
        if seg.act == "Suggestion" and _CHOICE.search(last):
            yield i, "asks the user to choose between the task's options, labelled Suggestion: it is Question"
        elif seg.act == "Suggestion" and answered and _CONTINUE.search(last) and _READ_OUT.search(last):
            yield i, "asks whether to continue the listing just read out, labelled Suggestion: it is Question"
        answered = answered or seg.act == "Answer"


def _own_action_as_inform(reply: Reply) -> Iterator[tuple[int, str]]:
    for i in _acts(reply):
        seg, last = reply.segments[i], last_sentence(reply.segments[i].text)
        if seg.act != "Inform":
            continue
        if _OWN_INABILITY.search(last) or (_APOLOGY_IN.search(seg.text) and _INABILITY.search(last)):
            yield i, "the assistant's own action is refused or impossible, labelled Inform: it is Commissive"
        elif _OWN_FUTURE.search(last):
            yield i, "the assistant's own future action (〜お知らせします。) labelled Inform: it is Commissive"


def _joke_not_answer(reply: Reply) -> Iterator[tuple[int, str]]:
    labels = [reply.segments[i].act for i in _acts(reply)]
    if _JOKE_REQUEST.search(reply.input_text) and "Answer" not in labels and "Inform" in labels:
        yield labels.index("Inform"), "a joke or riddle told on request labelled Inform: it is Answer"


def _off_topic_answer(reply: Reply) -> Iterator[tuple[int, str]]:
    if reply.flaw != "off_topic":
        return
    for i in _acts(reply):
        if reply.segments[i].act == "Answer":
            yield i, "off-topic content (the row's flaw) does not answer the user's request: it is Inform"


RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        Rule("acceptance-outside", "Settled cases: Chatter outside spans", _acceptance_outside),
        Rule("chatter-in-span", "Settled cases: Chatter outside spans", _chatter_in_span),
        Rule("apology-outside-refusal", "Steps and spans", _apology_before_refusal),
        Rule("filler-alone", "Steps and spans", _filler_alone),
        Rule("reason-clause-split", "Settled cases: Reason clauses", _reason_clause_split),
        Rule("polite-request-question", "Settled cases: Polite requests phrased as questions", _polite_request),
        Rule("confirmation-as-question", "Labels: Check-Question", _confirmation),
        Rule("offer-kind", "Settled cases: Offers", _offer_kind),
        Rule("own-action-as-inform", "Settled cases: The assistant's own future action; Labels", _own_action_as_inform),
        Rule("joke-not-answer", "Settled cases: A joke or riddle told on request", _joke_not_answer),
        Rule("off-topic-answer", "Labels: Answer / Inform; Settled cases: Reason clauses (asides)", _off_topic_answer),
        *(Rule(name, section, rule) for name, section, rule in ROUND2),
    )
}
"""Every rule by name."""


def check(reply: Reply) -> list[Finding]:
    """Every finding of every rule in one reply."""
    return [
        Finding(reply, reply.segments[i].field, rule.name, message)
        for rule in RULES.values()
        for i, message in rule.check(reply)
    ]


# --- command line -------------------------------------------------------------------------------------------------


def replies_in(paths: Iterable[Path]) -> list[Reply]:
    """Every row of the files (authored or dataset schema); ``ValueError`` for an English or Mandarin row: the rules
    match Japanese forms, so on other text they would find nothing and say the rows conform."""
    rows = read_rows(paths)
    for path, line, row in rows:
        user = row.get("input")
        locale = str((user.get("locale") if isinstance(user, dict) else None) or "ja-JP")
        source = str(row.get("source") or "")
        if (
            not locale.startswith("ja")
            or source.startswith(("en-", "zh-"))
            or str(row.get("author", ""))[:3]
            in (
                "en-",
                "zh-",
            )
        ):
            raise ValueError(f"{path}:{line}: the conformance rules are Japanese; this row is not (docs/annotators.md)")
    return [reply_from_row(path, line, row) for path, line, row in rows]


def default_replies(everything: bool) -> list[Reply]:
    """The authored train rows; with ``everything`` also their validation rows and the built-in datasets."""
    authored = replies_in(AUTHORED_DIR.glob("*.jsonl"))
    picked = authored if everything else [r for r in authored if r.split == "train"]
    if everything:
        picked += replies_in(builtin_path(name) for name in BUILTIN)
    return picked


def main(argv: Sequence[str] | None = None) -> int:
    """Print every finding and a count per rule; 1 if there is any finding."""
    parser = argparse.ArgumentParser(prog="python -m training.annotator.conformance", description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="JSONL files to check (every row)")
    parser.add_argument("--all", action="store_true", help="also validation rows and the built-in datasets")
    parser.add_argument("--json", action="store_true", help="one JSON object per finding")
    args = parser.parse_args(argv)
    replies = replies_in(args.paths) if args.paths else default_replies(args.all)
    findings = [f for r in replies for f in check(r)]
    for f in findings:
        if args.json:
            r = f.reply
            row = {"file": str(r.file), "line": r.line, "id": r.id, "split": r.split, "field": f.field}
            print(json.dumps({**row, "rule": f.rule, "message": f.message}, ensure_ascii=False))
        else:
            print(f)
    counts = Counter(f.rule for f in findings)
    summary = ", ".join(f"{name} {counts[name]}" for name in RULES)
    print(f"{len(replies)} replies, {len(findings)} findings ({summary})", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
