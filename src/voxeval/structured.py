"""Asking a chat model for structured output: parse, validate, feed the error back, retry, then fail loudly."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

T = TypeVar("T")

FEEDBACK = "Your previous reply was not valid: {error}\nReply again with the corrected JSON only, nothing else."
"""Message appended after an invalid reply (the model's own reply is kept in the conversation before it)."""

_FENCE = re.compile(r"^```(?:json|JSON)?\s*\n?(.*?)\n?```\s*$", re.DOTALL)


class StructuredOutputFailed(Exception):
    """No valid output after all attempts; keeps the last raw reply for the report."""

    def __init__(self, message: str, raw: str | None, attempts: int) -> None:
        super().__init__(message)
        self.raw = raw
        self.attempts = attempts


INVALID_CONTENT = (ValueError, ArithmeticError, RecursionError, TypeError, LookupError)
"""What a ``parse`` function raises on content it cannot use: ``ValueError`` by contract, and the errors numbers,
nesting and shapes chosen by the model can still provoke in it (a sum that overflows, a line nested 50,000 deep).
Each is an invalid answer: re-asked, then recorded with its raw text, never cached."""


def extract_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a model reply: bare, or inside a ```json fence. Raises ``ValueError`` otherwise.

    >>> extract_json_object('```json\\n{"a": 1}\\n```')
    {'a': 1}
    """
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not valid JSON (arrays or objects nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise ValueError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


async def complete_validated(
    model: Any, request: Any, parse: Callable[[str], T], *, attempts: int = 3
) -> tuple[T, str, int, Any]:
    """Call ``model`` until ``parse(reply_text)`` succeeds; returns (value, raw text, attempts used, response).

    ``parse`` raises ``ValueError`` with a message the model can act on. Provider errors propagate (the
    provider layer already retried them); only invalid *content* is retried here.
    """
    from voxeval.llm import ChatMessage

    raw: str | None = None
    error = "no attempt made"
    for attempt in range(1, attempts + 1):
        response = await model.complete(request)
        raw = response.text
        try:
            return parse(raw), raw, attempt, response
        except INVALID_CONTENT as exc:
            error = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            if hasattr(model, "forget"):
                model.forget(request)  # an invalid reply is not a result worth caching
            feedback = (ChatMessage("assistant", text=raw), ChatMessage("user", text=FEEDBACK.format(error=error)))
            request = replace(request, messages=tuple(request.messages) + feedback)
    raise StructuredOutputFailed(f"invalid output after {attempts} attempt(s): {error}", raw, attempts)
