"""The style-judge extension point."""

from __future__ import annotations

from typing import Any, Protocol

from voxeval.registry import Registry
from voxeval.style._types import Judgement, StyleItem


class StyleJudge(Protocol):
    """Scores a spoken response against a style instruction with the spec's 1–5 rubric."""

    name: str
    """Spec-like name recorded with every judgement."""
    concurrency: int
    """Judgements the runner may have in flight at once."""

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        """Judge one response (WAV bytes). Failures are returned as ``status="failed"`` judgements."""
        ...

    def describe(self) -> dict[str, Any]:
        """Model / measurement settings, versions and prompt hashes for ``config.json``."""
        ...


judges: Registry = Registry("style judge")
"""Judge factories by name; a factory takes the text after ``NAME:`` (may be empty) and keyword options."""


def judge_from_spec(spec: str, **options: Any) -> StyleJudge:
    """``acoustic`` (offline default) or ``lalm:MODEL_SPEC`` (an audio LLM, e.g. ``lalm:gemini:gemini-2.5-pro``)."""
    name, _, arg = spec.partition(":")
    judge: StyleJudge = judges.get(name)(arg, **options)
    return judge
