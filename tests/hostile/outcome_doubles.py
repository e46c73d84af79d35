"""A ``python:`` system giving each outcome by sample id (``python:tests.hostile.outcome_doubles:answer``)."""

from __future__ import annotations

from voxeval.systems import NoReply, Turn

OK_TEXT = "Timer set for three minutes."
"""The ``ok`` sample's reply (its gold reply)."""
HUGE = "x" * 8000
"""Over the 4096-byte reply cap the outcome tests set."""


def answer(turn: Turn) -> str | None:
    """The reply for each outcome sample."""
    kind = turn.id
    if kind == "refused":
        raise NoReply("refused", "I cannot help with that")
    if kind == "truncated":
        raise NoReply("truncated", "the output budget ran out before any text")
    return {
        "ok": OK_TEXT,
        "empty": "",
        "null": None,
        "blank": " \n\t ",
        "undecodable": "abc\ufffd",
        "oversized": HUGE,
    }.get(kind, "abc\udcff")


def huge(turn: Turn) -> str:
    """A 50 MB reply (a runaway model)."""
    return "x" * (50 << 20) if turn.id == "s0" else OK_TEXT
