"""The ``python:`` system the served tests answer with: says what it heard, spoken as a tone."""

from __future__ import annotations

from voxeval.systems import Reply, Turn
from voxeval.testing.mockserver import sine_wav


def answer(turn: Turn) -> Reply:
    """A reply naming the turn's history, prompt, instructions and language; a tone of 0.5 s, or of 5 s when the
    instructions say ``long`` (a reply to barge in on)."""
    text = f"history={len(turn.history)} prompt={turn.user_prompt} system={turn.system_prompt} lang={turn.language}"
    return Reply(text, sine_wav(5.0 if "long" in turn.system_prompt else 0.5))
