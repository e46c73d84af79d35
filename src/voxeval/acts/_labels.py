"""The seven dialogue-act labels of the spec (section 3.2) and lenient label matching."""

from __future__ import annotations

import re
from typing import Literal, get_args

Label = Literal["Question", "Check-Question", "Answer", "Inform", "Request", "Suggestion", "Commissive"]
"""A dialogue-act label, spelled as in the paper."""

LABELS: tuple[Label, ...] = get_args(Label)
"""All seven labels in the paper's order."""

_KEY = re.compile(r"[\s_\-‐－]+")


def _key(text: str) -> str:
    return _KEY.sub("", text).casefold()


_BY_KEY: dict[str, Label] = {_key(label): label for label in LABELS}


def parse_label(value: object) -> Label | None:
    """Return the canonical label for ``value``, or ``None`` when it is not one of the seven.

    Matching ignores case and treats hyphens, underscores and spaces alike, so ``check question``,
    ``CHECK_QUESTION`` and ``Check-Question`` all give ``Check-Question``.

    >>> parse_label("check question")
    'Check-Question'
    >>> parse_label("Greeting") is None
    True
    """
    if not isinstance(value, str):
        return None
    return _BY_KEY.get(_key(value))
