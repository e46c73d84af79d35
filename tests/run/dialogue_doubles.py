"""Test doubles for dialogue runs (importable as python:tests.run.dialogue_doubles:NAME)."""

from __future__ import annotations

import hashlib
from typing import Any

from voxeval.data import builtin_path, load_dialogues
from voxeval.systems import Turn
from voxeval.testing.realtime import MockReply, tone

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


REFERENCES = sorted({reply.text for d in _DIALOGUES.values() for _, reply in d.exchanges})
"""Every reference reply of ja-dialogues (the gold annotator labels each)."""


def by_session(turn: Any) -> MockReply:
    """A mock session's reply chosen by the turn's audio AND what the session heard before it: the same dialogue
    gets the same replies in any session that heard the same turns, so a resumed run scores as a clean one."""
    heard = b"".join(s.pcm for s in turn.history if s.role == "user") + turn.pcm
    index = int.from_bytes(hashlib.sha256(heard).digest()[:4], "big") % len(REFERENCES)
    return MockReply(REFERENCES[index], tone(0.2))
