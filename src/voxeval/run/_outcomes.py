"""What a system's answer to one turn counts as: one outcome taxonomy for every system kind (pure).

The reply stage classifies every answer here, whatever produced it (an API model, a ``python:`` callable, a
``replay:`` file, a cascade), so the same answer is recorded and scored the same way. A reply row keeps the
``outcome`` (what happened) and a ``status`` (how scoring treats it):

- ``ok`` (status ``ok``): text, scored.
- ``empty`` (``empty``): nothing said (``""``, whitespace, ``None``, an API's ``content: null``): scored as an
  empty prediction (WLCS 0, WED 1).
- ``refused`` (``empty``): the model or its provider declined: scored as an empty prediction, the reason kept.
- ``truncated`` (``failed``): the output budget ran out before any text: excluded from the means and listed.
- ``undecodable`` (``failed``): bytes that are not text (U+FFFD, lone surrogates): excluded, listed, not stored.
- ``oversized`` (``failed``): text over :func:`max_reply_bytes` as stored: excluded, listed, not stored.
- ``failed`` (``failed``): an error: excluded and listed.

Every ``failed``-status outcome is asked again by ``--retry-failed``; ``ok`` and ``empty`` ones are final.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from voxeval.errors import InputError, Location
from voxeval.io import MAX_LINE_BYTES, dumps

Outcome = Literal["ok", "empty", "refused", "truncated", "undecodable", "oversized", "failed"]
"""What a system's answer to one turn was."""

STATUS: dict[Outcome, str] = {
    "ok": "ok",
    "empty": "empty",
    "refused": "empty",
    "truncated": "failed",
    "undecodable": "failed",
    "oversized": "failed",
    "failed": "failed",
}
"""How scoring treats each outcome: ``ok`` scores the text, ``empty`` an empty prediction, ``failed`` excludes it."""

MAX_REPLY_ENV = "VOXEVAL_MAX_REPLY_BYTES"
"""Environment variable overriding :data:`MAX_REPLY_BYTES`."""
MAX_REPLY_BYTES = 512 << 10
"""Longest reply text kept, in bytes as stored in ``replies.jsonl`` (a JSON string in UTF-8): 512 KiB. A spoken
reply of ten minutes is under 10 KB; a 50 MB reply once made a 157 MB log whose lines no reader accepted."""
MAX_META_BYTES = 64 << 10
"""Longest ``meta`` a reply row keeps; a longer (or non-JSON) one is replaced by a note."""
_ROW_HEADROOM = MAX_META_BYTES + (16 << 10)
"""Room left in a log line for the rest of a reply row (key, ids, meta, error)."""


def max_reply_bytes() -> int:
    """The reply cap in force: :data:`MAX_REPLY_BYTES`, or ``$VOXEVAL_MAX_REPLY_BYTES``.

    An override must leave the row within one log line (:data:`voxeval.io.MAX_LINE_BYTES`).
    """
    raw = os.environ.get(MAX_REPLY_ENV)
    if raw is None:
        return MAX_REPLY_BYTES
    ceiling = MAX_LINE_BYTES - _ROW_HEADROOM
    if not raw.strip().isdigit() or not 1 <= int(raw) <= ceiling:
        raise InputError(Location(MAX_REPLY_ENV), f"must be a whole number of bytes from 1 to {ceiling}, got {raw!r}")
    return int(raw)


@dataclass(frozen=True)
class Classified:
    """A classified answer: what to record in the reply row."""

    outcome: Outcome
    """What happened."""
    text: str
    """Text to store and score (``""`` unless ``ok``)."""
    reason: str | None = None
    """Why the answer is not ``ok`` text, when there is more to say than the outcome."""

    @property
    def status(self) -> str:
        """How scoring treats it (:data:`STATUS`)."""
        return STATUS[self.outcome]


def classify_text(text: object, cap: int) -> Classified:
    """The outcome of a reply's text (``None`` is an empty reply, like an API's ``content: null``).

    >>> classify_text("  はい。 ", 100), classify_text(None, 100).outcome, classify_text("x\\ufffd", 100).outcome
    (Classified(outcome='ok', text='はい。', reason=None), 'empty', 'undecodable')
    >>> classify_text("あ" * 40, 100).reason
    'reply text of 122 bytes stored, over the 100-byte cap ($VOXEVAL_MAX_REPLY_BYTES)'
    """
    if text is None:
        return Classified("empty", "")
    if not isinstance(text, str):
        return Classified("failed", "", f"reply text is a {type(text).__name__}, not a string")
    text = text.strip()
    if not text:
        return Classified("empty", "")
    size = len(text) + 2 if len(text) > cap else len(dumps(text).encode("utf-8", "surrogatepass"))
    if size > cap:
        return Classified(
            "oversized", "", f"reply text of {size} bytes stored, over the {cap}-byte cap (${MAX_REPLY_ENV})"
        )
    if "\ufffd" in text:
        return Classified("undecodable", "", "the reply text holds U+FFFD replacement characters (broken encoding)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return Classified("undecodable", "", f"the reply text holds a lone surrogate at character {exc.start}")
    return Classified("ok", text)


def classify_error(exc: BaseException) -> Classified:
    """The outcome of a system error: a deterministic no-reply kind, or ``failed``."""
    from voxeval.llm import ProviderError
    from voxeval.systems import NoReply

    if isinstance(exc, NoReply):
        return Classified(exc.kind, "", exc.reason)
    if isinstance(exc, ProviderError) and exc.kind in ("refused", "truncated", "undecodable"):
        return Classified(exc.kind, "", exc.message)
    return Classified("failed", "")


def recordable_meta(meta: Any) -> dict[str, Any]:
    """A reply's ``meta`` as a row can hold it: JSON, under :data:`MAX_META_BYTES`; else a note saying why not."""
    if not meta:
        return {}
    if not isinstance(meta, dict):
        return {"dropped": f"meta is a {type(meta).__name__}, not a dict"}
    try:
        size = len(dumps(meta).encode("utf-8"))
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        return {"dropped": f"meta is not JSON: {type(exc).__name__}: {str(exc)[:200]}"}
    if size > MAX_META_BYTES:
        return {"dropped": f"meta of {size} bytes is over the {MAX_META_BYTES}-byte limit"}
    return meta
