"""The annotator extension point: a reply's text → its dialogue-act sequence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from voxeval.acts import Acts
from voxeval.registry import Registry


@dataclass(frozen=True)
class Reference:
    """A reference reply to the same input, with its gold acts: context for judging what the reply answers."""

    text: str
    """The reference reply's text."""
    acts: Acts
    """Its gold dialogue acts, with spans where the dataset gives them."""


@dataclass(frozen=True)
class AnnotationInput:
    """What an annotator sees: the reply to label, and the exchange it belongs to."""

    reply: str
    """The assistant reply to annotate."""
    user_input: str = ""
    """The user's utterance (text of the input), which an annotator may use."""
    background: str = ""
    """The scenario background, which an annotator may use."""
    reference: Reference | None = None
    """A reference reply to the same input (a benchmark sample's gold reply), or None; an annotator may use it to
    tell an answer to *this* request from an aside, never to copy its acts."""
    language: str = "ja"
    """ISO 639-1 code of the exchange's language (the dataset's); chooses an LLM annotator's prompt."""


@dataclass(frozen=True)
class Annotation:
    """An annotator's output for one reply."""

    acts: Acts
    """Normalised acts in reply order, with spans where the annotator knows them."""
    raw: str | None = None
    """The annotator's raw output (an LLM's reply text), kept for audit."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Extra facts about the call (attempts, model version, usage)."""


class AnnotationFailed(Exception):
    """The annotator could not produce a valid annotation; keeps the raw output for the report."""

    def __init__(self, message: str, raw: str | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.raw = raw
        self.attempts = attempts


class Annotator(Protocol):
    """Labels a reply with dialogue acts. Implementations must be safe to call concurrently."""

    name: str
    """Spec-like name recorded in results (e.g. ``offline`` or ``llm:openai:gpt-5-nano``)."""

    async def annotate(self, item: AnnotationInput) -> Annotation:
        """Annotate one reply; raise :class:`AnnotationFailed` when no valid annotation can be produced."""
        ...

    def describe(self) -> dict[str, Any]:
        """Settings, versions and prompt hashes, for ``config.json``."""
        ...


annotators: Registry = Registry("annotator")
"""Annotator factories by name; a factory takes the text after ``NAME:`` (or ``""``) and keyword options."""


def annotator_from_spec(spec: str, **options: Any) -> Annotator:
    """Build an annotator from ``NAME[:ARG]``, e.g. ``offline``, ``llm:openai:gpt-5-nano``, ``gold``."""
    name, _, arg = spec.partition(":")
    annotator: Annotator = annotators.get(name)(arg, **options)
    return annotator
