"""The style-judge extension point."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol

from voxeval.registry import Registry
from voxeval.style._types import Judgement, StyleItem


class StyleJudge(Protocol):
    """Scores a spoken response against a style instruction with the spec's 1–5 rubric."""

    name: str
    """Spec-like name recorded with every judgement."""
    concurrency: int
    """Judgements the runner may have in flight at once."""
    relative: bool
    """Judgements depend on the system's other replies (e.g. volume against their median): the runner then gives
    all of a system's replies to :meth:`judge_batch` at once; otherwise each reply to :meth:`judge`."""

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        """Judge one response (WAV bytes). Failures are returned as ``status="failed"`` judgements."""
        ...

    async def judge_batch(self, replies: Sequence[tuple[StyleItem, bytes]]) -> list[Judgement]:
        """Judge one system's replies together, in order."""
        ...

    def describe(self) -> dict[str, Any]:
        """Model / measurement settings, versions and prompt hashes for ``config.json``."""
        ...


class EachReply:
    """For judges whose judgements are independent: ``relative`` is False and a batch is judged reply by reply."""

    relative = False
    concurrency = 1

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        """Judge one response."""
        raise NotImplementedError

    async def judge_batch(self, replies: Sequence[tuple[StyleItem, bytes]]) -> list[Judgement]:
        """Each reply judged on its own, ``concurrency`` at a time."""
        gate = asyncio.Semaphore(max(1, self.concurrency))

        async def one(item: StyleItem, audio: bytes) -> Judgement:
            async with gate:
                return await self.judge(item, audio)

        return list(await asyncio.gather(*(one(i, a) for i, a in replies)))


judges: Registry = Registry("style judge")
"""Judge factories by name; a factory takes the text after ``NAME:`` (may be empty) and keyword options."""


def judge_from_spec(spec: str, **options: Any) -> StyleJudge:
    """``acoustic`` (offline default) or ``lalm:MODEL_SPEC`` (an audio LLM, e.g. ``lalm:gemini:gemini-2.5-pro``)."""
    name, _, arg = spec.partition(":")
    judge: StyleJudge = judges.get(name)(arg, **options)
    return judge
