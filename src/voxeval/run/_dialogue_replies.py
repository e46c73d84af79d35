"""The reply stage of a dialogue run: turn by turn under three history conditions (docs/dialogues.md).

- ``gold`` and ``none``: every turn is its own task, as a single-turn reply (``gold`` sends the reference dialogue so
  far with it, ``none`` nothing), so a killed run resumes at the next unfinished turn.
- ``own``: a dialogue is one task. The system answers its turns in order in ONE conversation
  (:func:`voxeval.systems.open_conversation`: one session of a realtime or live system; for a system without state,
  each turn resent with the dialogue so far and the system's own earlier replies). The task's rows are written
  together when the dialogue ends, so a dialogue killed mid-way is redone from its first turn and rows of two
  sessions never mix. When a turn fails, the session is over: the turn keeps its reason, the later turns are
  recorded as not attempted, and the earlier ones as belonging to a broken session (their text kept); all of them
  have ``status: failed``, so ``--retry-failed`` reruns the dialogue from its first turn in a new session.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from voxeval.run._executor import Row, Task
from voxeval.run._keys import check_run_row, reply_key
from voxeval.run._outcomes import max_reply_bytes
from voxeval.run._replies import ReplyItem, ReplyWorker, generate_replies, in_flight
from voxeval.run._stage import Stage, StageRun, run_stage
from voxeval.systems import Reply, SpokenDialogueSystem, Turn, open_conversation

HISTORIES = ("gold", "own", "none")
"""The history conditions, in report order."""


class HistoryCondition:
    """A system under one history condition: its name carries the condition (``NAME history=gold``), so each
    condition is its own column of results in every log, table and comparison."""

    def __init__(self, system: SpokenDialogueSystem, history: str) -> None:
        if history not in HISTORIES:
            raise ValueError(f"unknown history condition {history!r}; one of {', '.join(HISTORIES)}")
        self.system = system
        self.history = history
        self.name = conditioned_name(system.name, history)
        self.concurrency = system.concurrency
        self.cpu_bound = bool(getattr(system, "cpu_bound", False))

    async def respond(self, turn: Turn) -> Reply:
        """``none``: the turn without its history; ``gold`` and ``own``: as given."""
        return await self.system.respond(turn if self.history != "none" else replace(turn, history=()))

    def describe(self) -> dict[str, Any]:
        """The system's description and the condition."""
        return {**self.system.describe(), "history": self.history}

    def __reduce__(self) -> tuple[Any, tuple[SpokenDialogueSystem, str]]:
        return (HistoryCondition, (self.system, self.history))


def conditioned_name(system: str, history: str) -> str:
    """The result name of ``system`` under ``history``.

    >>> conditioned_name("cascade", "gold")
    'cascade history=gold'
    """
    return f"{system} history={history}"


def split_conditioned(name: str) -> tuple[str, str]:
    """``(system, history)`` of a conditioned name.

    >>> split_conditioned("openai:gpt-4o history=own")
    ('openai:gpt-4o', 'own')
    """
    system, sep, history = name.rpartition(" history=")
    if not sep or history not in HISTORIES:
        raise ValueError(f"{name!r} is not a system under a history condition")
    return system, history


@dataclass
class DialogueWorker:
    """Answers the turns of one dialogue in one conversation (``--history own``); payload: the dialogue's items."""

    replies: ReplyWorker
    """The single-turn worker (input audio, prompts, classification, reply audio)."""
    cpu_bound: bool = False
    """A local system (the offline cascade) runs its dialogues on the CPU executor."""

    def setup(self) -> None:
        """Nothing to load: the system was built by the driver (or unpickled with its own engines)."""

    async def __call__(self, items: list[ReplyItem]) -> list[Row]:
        """One row per turn, all written together (see the module docstring for a broken session)."""
        condition = self.replies.system
        assert isinstance(condition, HistoryCondition)
        conversation = open_conversation(condition.system, dialogue_of(items[0]))
        rows: list[Row] = []
        try:
            for item in items:
                row = await self.replies.reply_row(item, self.replies.turn(item, history=()), conversation.respond)
                rows.append(row)
                if row["status"] == "failed":
                    break
        finally:
            await conversation.close()
        return _whole_session(rows, items, self.replies)


def _whole_session(rows: list[Row], items: list[ReplyItem], worker: ReplyWorker) -> list[Row]:
    """The rows of a dialogue: unchanged when every turn was answered; else every turn marked failed with why."""
    if len(rows) == len(items) and rows[-1]["status"] != "failed":
        return rows
    broken = len(rows)
    reason = rows[-1].get("error") or rows[-1].get("outcome")
    for row in rows[:-1]:
        row.update(
            status="failed",
            error=f"the dialogue's session broke at turn {broken} ({reason}); own-history dialogues are scored as "
            "whole sessions (--retry-failed reruns it from its first turn)",
        )
    for item in items[broken:]:
        key = reply_key(item.dataset, worker.system.name, item.id)
        rows.append(
            {
                "key": key,
                "dataset": item.dataset,
                "system": worker.system.name,
                "id": item.id,
                "status": "failed",
                "outcome": "failed",
                "text": "",
                "error": f"not attempted: the dialogue's session broke at turn {broken} ({reason})",
            }
        )
    return rows


def dialogue_of(item: ReplyItem) -> str:
    """The dialogue a turn item belongs to (its id is ``DIALOGUE/K``)."""
    return item.id.rpartition("/")[0]


async def dialogue_replies(
    run_dir: Path,
    items: list[ReplyItem],
    systems: list[SpokenDialogueSystem],
    inputs: dict[str, dict[str, Any]],
    prompts: tuple[str, str],
    *,
    how: StageRun,
    concurrency: int | None,
) -> dict[str, Row]:
    """Every missing reply of a dialogue run; ``systems`` are :class:`HistoryCondition` s."""
    own = [s for s in systems if isinstance(s, HistoryCondition) and s.history == "own"]
    per_turn = [s for s in systems if s not in own]
    rows = await generate_replies(run_dir, items, per_turn, inputs, prompts, how=how, concurrency=concurrency)
    dialogues: dict[tuple[str, str], list[ReplyItem]] = {}
    for item in items:
        dialogues.setdefault((item.dataset, dialogue_of(item)), []).append(item)
    for system in own:
        stage = Stage(f"replies {system.name}", run_dir / "replies.jsonl", trace=True, check=check_run_row)
        tasks = [
            Task(
                tuple(reply_key(i.dataset, system.name, i.id) for i in turns),
                turns,
                {"dataset": dataset, "system": system.name},
                {reply_key(i.dataset, system.name, i.id): {"id": i.id} for i in turns},
            )
            for (dataset, dialogue), turns in dialogues.items()
        ]
        replies = ReplyWorker(system, run_dir, inputs, prompts, system.cpu_bound, max_reply_bytes=max_reply_bytes())
        worker = DialogueWorker(replies, system.cpu_bound)
        rows = await run_stage(stage, tasks, worker, limit=in_flight(system, concurrency, how), how=how)
    return rows
