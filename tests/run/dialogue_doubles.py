"""Test doubles for dialogue runs (importable as python:tests.run.dialogue_doubles:NAME)."""

from __future__ import annotations

from voxeval.data import builtin_path, load_dialogues
from voxeval.systems import Turn

_DIALOGUES = {d.id: d for d in load_dialogues(builtin_path("ja-dialogues"))}


def context_oracle(turn: Turn) -> str:
    """The reference reply when it has what the turn needs: a context-needed turn heard without the dialogue so far
    gets the reply to the dialogue's FIRST turn instead (a model that lost the thread)."""
    dialogue_id, _, k = turn.id.rpartition("/")
    dialogue = _DIALOGUES[dialogue_id]
    _, reference = dialogue.exchanges[int(k) - 1]
    if reference.context == "needed" and not turn.history:
        return dialogue.exchanges[0][1].text
    return reference.text
