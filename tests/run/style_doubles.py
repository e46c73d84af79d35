"""Test doubles for the style benchmark: systems that speak (or not) and a judge that reads the reply's pitch."""

from __future__ import annotations

from typing import Any, ClassVar

from voxeval.judge import EachReply, Judgement, StyleItem, judges
from voxeval.systems import Reply, Turn
from voxeval.testing.mockserver import sine_wav


def high_voice(turn: Turn) -> Reply:
    """Speaks a 300 Hz tone."""
    return Reply("content", sine_wav(0.5, frequency=300.0))


def low_voice(turn: Turn) -> Reply:
    """Speaks a 100 Hz tone."""
    return Reply("content", sine_wav(0.5, frequency=100.0))


def mute(turn: Turn) -> Reply:
    """Returns text but no audio."""
    return Reply("content")


class ToneJudge(EachReply):
    """Scores 5 when the reply's loudest frequency matches the item's pitch requirement (high > 200 Hz), else 2."""

    name = "tone"
    concurrency = 4

    async def judge(self, item: StyleItem, audio: bytes) -> Judgement:
        import io

        import numpy as np
        import soundfile

        samples, rate = soundfile.read(io.BytesIO(audio))
        peak = float(np.argmax(np.abs(np.fft.rfft(samples))) * rate / len(samples))
        wanted_high = item.requirements.get("pitch", "normal") in ("high", "very_high")
        if "pitch" not in item.requirements:
            return Judgement(
                item.id, item.ability, None, "not_measured", self.name, item.model_name, reason="no pitch requirement"
            )
        score = 5 if (peak > 200) == wanted_high else 2
        return Judgement(item.id, item.ability, score, "ok", self.name, item.model_name, {"peak_hz": peak})

    def describe(self) -> dict[str, Any]:
        return {"judge": "tone"}


if "tone" not in judges.names():
    judges.register("tone")(lambda arg, **options: ToneJudge())


class BatchToneJudge(ToneJudge):
    """ToneJudge with a batch entry point that remembers how many replies each batch held."""

    name = "batchtone"
    relative = True
    batches: ClassVar[list[int]] = []

    async def judge_batch(self, replies: list[tuple[StyleItem, bytes]]) -> list[Judgement]:
        BatchToneJudge.batches.append(len(replies))
        return [await self.judge(item, audio) for item, audio in replies]


if "batchtone" not in judges.names():
    judges.register("batchtone")(lambda arg, **options: BatchToneJudge())
