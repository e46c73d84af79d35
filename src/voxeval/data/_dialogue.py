"""Multi-turn dialogues (issue 41): a scenario, user turns and the assistant's reference replies, turn by turn.

One dialogue per JSONL line (docs/datasets.md, "Dialogue sets")::

    {"id": "ja-dlg-001", "locale": "ja-JP", "domain": "timer", "split": "dev",
     "scenario_context": {"background": "…"},
     "turns": [{"role": "USER", "text": "タイマーかけて"},
               {"role": "ASSISTANT", "text": "何分にセットしますか？", "context": "free", "phenomena": [],
                "output_dialogue_acts": {"steps": [{"act": "Question", "importance": 1.0, "span": "…"}]}},
               {"role": "USER", "text": "5分"},
               {"role": "ASSISTANT", "text": "5分のタイマーをスタートしました。", "context": "needed",
                "phenomena": ["slot_answer"], "output_dialogue_acts": {"steps": […]}}]}

Turns alternate user / assistant, starting with the user and ending with the assistant's reply to the last user
turn; a dialogue has 2–5 user turns. An assistant turn's steps follow the single-turn schema (the same parser).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from voxeval.acts import Acts, parse_acts
from voxeval.data._schema import GoldSample, parse_id
from voxeval.errors import InputError, Location
from voxeval.languages import language_of

Context = Literal["needed", "free"]
"""Whether the right reply depends on earlier turns (``needed``) or follows from the user's turn alone (``free``)."""

Phenomenon = Literal[
    "slot_answer",
    "correction",
    "ellipsis",
    "confirmation",
    "disconfirmation",
    "cancellation",
    "topic_change",
    "refusal",
    "chit_chat",
]
"""What an assistant turn answers: the user gives a slot the assistant asked for; corrects an earlier value; follows
up with ellipsis or anaphora; confirms or refuses a Check-Question; cancels; changes topic; a request the assistant
must refuse; chit-chat."""

PHENOMENA: tuple[Phenomenon, ...] = get_args(Phenomenon)
"""Every phenomenon tag, in documentation order."""

CONTEXTS: tuple[Context, ...] = get_args(Context)
"""The two context values."""

NEEDS_CONTEXT: frozenset[str] = frozenset(
    {"slot_answer", "correction", "ellipsis", "confirmation", "disconfirmation", "cancellation"}
)
"""Phenomena whose reply cannot be right without the earlier turns (their turns must be ``context: needed``)."""

ANSWERS_PREVIOUS_ACT: dict[str, frozenset[str]] = {
    "slot_answer": frozenset({"Question", "Check-Question", "Request"}),
    "confirmation": frozenset({"Check-Question"}),
    "disconfirmation": frozenset({"Check-Question"}),
}
"""Phenomena that answer an act of the previous assistant turn, and the acts that turn must hold."""

MIN_USER_TURNS = 2
"""Fewest user turns in a dialogue (one exchange is a single-turn sample)."""
MAX_USER_TURNS = 5
"""Most user turns in a dialogue."""


@dataclass(frozen=True)
class UserTurn:
    """What the user says in one turn."""

    text: str
    """The utterance (rendered to the turn's input audio by the dataset's voice)."""
    audio: str | None = None
    """Path of the synthesised audio relative to the dataset file; derived, absent from the built-in files."""


@dataclass(frozen=True)
class AssistantTurn:
    """The assistant's reference reply to the user turn before it."""

    text: str
    """The reference reply."""
    acts: Acts
    """Its dialogue-act sequence, normalised (the single-turn schema's steps)."""
    context: Context
    """Whether the right reply depends on earlier turns."""
    phenomena: tuple[Phenomenon, ...] = ()
    """What this turn answers (:data:`PHENOMENA`); empty for a plain request."""


@dataclass(frozen=True)
class Dialogue:
    """One multi-turn dialogue: the scenario and its exchanges (a user turn and the assistant's reply each)."""

    id: str
    """Stable dialogue id."""
    locale: str
    """The user's locale (``ja-JP``, ``en-US``, ``zh-CN``)."""
    background: str
    """``scenario_context.background``: the situation the dialogue happens in."""
    exchanges: tuple[tuple[UserTurn, AssistantTurn], ...]
    """The turns in order, paired: user turn k and the assistant's reply to it."""
    domain: str | None = None
    """Topic domain of the dialogue's first request (timer, weather, …)."""
    split: str | None = None
    """``dev`` / ``test`` for built-in data."""
    line: int | None = None
    """Line of the row in its file, for error messages."""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """The row as read, for export."""

    @property
    def language(self) -> str:
        """ISO 639-1 code of the locale (``ja-JP`` → ``ja``)."""
        return language_of(self.locale)

    @property
    def phenomena(self) -> frozenset[Phenomenon]:
        """Every phenomenon some assistant turn of the dialogue answers."""
        return frozenset(p for _, reply in self.exchanges for p in reply.phenomena)


def turn_samples(dialogue: Dialogue) -> list[GoldSample]:
    """Each assistant turn as a single-turn sample (id ``DIALOGUE/K``, K from 1; input = the user turn before it),
    with ``raw`` in the single-turn schema so single-turn checks (spans, conformance) read it unchanged."""
    out = []
    for k, (user, reply) in enumerate(dialogue.exchanges, start=1):
        raw = dialogue.raw["turns"][2 * k - 1]
        row = {
            "id": f"{dialogue.id}/{k}",
            "domain": dialogue.domain,
            "split": dialogue.split,
            "scenario_context": {"background": dialogue.background},
            "input": {"role": "USER", "text": user.text, "locale": dialogue.locale},
            "output": {"role": "ASSISTANT", "text": reply.text},
            "output_dialogue_acts": raw["output_dialogue_acts"],
        }
        out.append(
            GoldSample(
                f"{dialogue.id}/{k}",
                user.text,
                reply.text,
                reply.acts,
                dialogue.background,
                dialogue.locale,
                dialogue.domain,
                dialogue.split,
                user.audio,
                dialogue.line,
                row,
            )
        )
    return out


def is_dialogue_row(row: dict[str, Any]) -> bool:
    """A row of a dialogue set (it has ``turns``) rather than a single-turn sample."""
    return "turns" in row


def _string(obj: dict[str, Any], key: str, where: Location, *, required: bool = True) -> str | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(where.child(key), "missing" if value is None else f"must be a non-empty string, got {value!r}")
    return value


def _user_turn(turn: dict[str, Any], where: Location) -> UserTurn:
    audio = turn.get("audio")
    if audio is not None and (not isinstance(audio, str) or "\x00" in audio):
        raise InputError(where.child("audio"), f"must be a path string without NUL bytes, got {audio!r}")
    return UserTurn(str(_string(turn, "text", where)), audio)


def _phenomena(turn: dict[str, Any], where: Location) -> tuple[Phenomenon, ...]:
    value = turn.get("phenomena", [])
    if not isinstance(value, list):
        raise InputError(where, f"must be a list of tags, got {type(value).__name__}")
    for tag in value:
        if tag not in PHENOMENA:
            raise InputError(where, f"unknown phenomenon {tag!r}; known: {', '.join(PHENOMENA)}")
    if len(set(value)) < len(value):
        raise InputError(where, f"a tag is repeated in {value!r}")
    return tuple(value)


def _assistant_turn(turn: dict[str, Any], where: Location, first: bool, before: Acts | None) -> AssistantTurn:
    text = str(_string(turn, "text", where))
    reference = turn.get("output_dialogue_acts")
    if not isinstance(reference, dict) or "steps" not in reference:
        raise InputError(
            where.child("output_dialogue_acts.steps"), "missing: an assistant turn needs its reference steps"
        )
    acts = parse_acts(reference["steps"], where.child("output_dialogue_acts.steps"), allow_empty=False)
    context = turn.get("context")
    if context not in CONTEXTS:
        raise InputError(where.child("context"), f"must be 'needed' or 'free', got {context!r}")
    if first and context == "needed":
        raise InputError(where.child("context"), "the first reply has no earlier turns to need: it is 'free'")
    tags = _phenomena(turn, where.child("phenomena"))
    for tag in tags:
        _check_tag(tag, context, first, before, where.child("phenomena"))
    return AssistantTurn(text, acts, context, tags)


def _check_tag(tag: str, context: str, first: bool, before: Acts | None, where: Location) -> None:
    """A tag must agree with the turn's context and with the previous reply (a confirmation answers a check)."""
    if tag in NEEDS_CONTEXT and (first or context != "needed"):
        why = "the first reply has nothing before it" if first else "its context must be 'needed'"
        raise InputError(where, f"{tag!r} answers earlier turns: {why}")
    if tag == "topic_change" and (first or context != "free"):
        raise InputError(where, "'topic_change' starts a new topic: not on the first reply, and its context is 'free'")
    wanted = ANSWERS_PREVIOUS_ACT.get(tag)
    if wanted and before is not None and not any(a.act in wanted for a in before):
        raise InputError(where, f"{tag!r} answers the previous reply, which has no {' / '.join(sorted(wanted))}")


def _turns(row: dict[str, Any], where: Location) -> tuple[tuple[UserTurn, AssistantTurn], ...]:
    turns = row.get("turns")
    if not isinstance(turns, list) or not turns:
        raise InputError(where.child("turns"), "missing" if turns is None else "must be a non-empty list of turns")
    exchanges: list[tuple[UserTurn, AssistantTurn]] = []
    user: UserTurn | None = None
    for i, turn in enumerate(turns):
        here = where.child(f"turns[{i}]")
        expected = "USER" if i % 2 == 0 else "ASSISTANT"
        if not isinstance(turn, dict):
            raise InputError(here, f"must be an object, got {type(turn).__name__}")
        if turn.get("role") != expected:
            raise InputError(
                here.child("role"),
                f"turns out of order: {turn.get('role')!r} where {expected!r} belongs "
                "(turns alternate USER / ASSISTANT, starting with the user)",
            )
        if expected == "USER":
            user = _user_turn(turn, here)
            continue
        before = exchanges[-1][1].acts if exchanges else None
        assert user is not None  # the USER turn before it set it
        exchanges.append((user, _assistant_turn(turn, here, not exchanges, before)))
    if len(turns) % 2:
        raise InputError(
            where.child(f"turns[{len(turns)}]"), "missing turn: the assistant's reply to the last user turn"
        )
    if not MIN_USER_TURNS <= len(exchanges) <= MAX_USER_TURNS:
        raise InputError(
            where.child("turns"), f"{len(exchanges)} user turns; a dialogue has {MIN_USER_TURNS}–{MAX_USER_TURNS}"
        )
    return tuple(exchanges)


def parse_dialogue(row: dict[str, Any], where: Location) -> Dialogue:
    """Parse one dialogue row; the first problem raises :class:`InputError` naming file, line and field."""
    dialogue_id = parse_id(row, where)
    locale = str(_string(row, "locale", where))
    scenario = row.get("scenario_context")
    if not isinstance(scenario, dict):
        raise InputError(where.child("scenario_context"), "missing" if scenario is None else "must be an object")
    background = str(_string(scenario, "background", where.child("scenario_context")))
    optional = {key: _string(row, key, where, required=False) for key in ("domain", "split")}
    return Dialogue(
        dialogue_id, locale, background, _turns(row, where), optional["domain"], optional["split"], where.line, row
    )


def load_dialogues(path: str | Path) -> list[Dialogue]:
    """Every dialogue of a JSONL file; ids must be unique and the file non-empty."""
    from voxeval.data._load import load_unique

    return load_unique(path, parse_dialogue, "a dialogue file needs at least one dialogue")
