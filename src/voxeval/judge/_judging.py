"""Rubric bookkeeping shared by judges (pure): prompt choice, the instruction-type line, reasons, repeats."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace
from typing import Any

from voxeval.style._types import Judgement, Status

PROMPT_BY_LANGUAGE: dict[str, str] = {
    "zh": "style/judge_acoustic.zh-values.v1",
    "ja": "style/judge_acoustic.zh-values.v1",
    "en": "style/judge_acoustic.en-values.v1",
}
"""Judge prompt per item language: the seed's Chinese attribute values for zh and ja (as VStyle's Chinese
data), an English rendering of the values for en. Other languages use the English one."""

REASK_PROMPT = "style/judge_reask.v1"
"""Follow-up message after a reply without a valid final score (slot ``{error}``)."""

INSTRUCTION_TYPES: dict[str, str] = {
    "acoustic_attributes/age": "Age",
    "acoustic_attributes/gender": "Gender",
    "acoustic_attributes/pitch": "Pitch",
    "acoustic_attributes/speed": "Speaking rate",
    "acoustic_attributes/volume": "Volume",
    "acoustic_attributes/emotion": "Emotion",
    "acoustic_attributes/composite_properties": "Composite_properties",
    "instruction/emotion": "Instruction: emotion",
    "instruction/variation": "Instruction: variation",
    "instruction/style": "Instruction: style",
    "role_play/character": "Role play: character",
    "role_play/scenario": "Role play: scenario",
    "empathy/anger": "Empathy: anger",
    "empathy/sadness_disappointment": "Empathy: sadness/disappointment",
    "empathy/anxiety_fear": "Empathy: anxiety/fear",
    "empathy/joy_excitement": "Empathy: joy/excitement",
}
"""The prompt's ``{instruction_type}`` per ability: an acoustic ability is named as in the prompt's attribute
set (``speed`` → ``Speaking rate``); the other categories as ``Category: sub-ability``."""

RUBRIC_REASONS: dict[int, str] = {
    1: "rubric 1: the response does not address the instruction (language or content check failed)",
    2: "rubric 2: the response addresses the instruction but follows none of the style requirements",
    3: "rubric 3: the style requirements are met only partly or only to some extent",
    4: "rubric 4: all style requirements are met, but the naturalness is insufficient",
    5: "rubric 5: all style requirements are met and the speech is highly natural",
}
"""What each score of the spec's rubric means (the step that decided it)."""


def prompt_for(language: str) -> str:
    """The judge prompt name for an item language."""
    return PROMPT_BY_LANGUAGE.get(language, PROMPT_BY_LANGUAGE["en"])


def instruction_type(ability: str) -> str:
    """The ``{instruction_type}`` text of an ability (unknown abilities are shown as they are)."""
    return INSTRUCTION_TYPES.get(ability, ability)


def _run_summary(judgement: Judgement) -> dict[str, Any]:
    return {
        "status": judgement.status,
        "score": judgement.score,
        "reason": judgement.reason,
        "model_version": judgement.meta.get("model_version"),
        "raw": judgement.raw,
    }


def combine_repeats(runs: list[Judgement]) -> Judgement:
    """One judgement from ``k`` judgements of the same item.

    ``score`` stays the integer of the first valid (``ok``) judgement, in repeat order; the valid ``scores``, their
    ``mean`` and population standard deviation ``std`` go to ``meta``, with every run's status, score and raw text
    under ``meta["runs"]``. When no run is valid the result is ``failed`` (``not_measured`` if
    every run was). One run is returned unchanged.
    """
    if not runs:
        raise ValueError("combine_repeats needs at least one judgement")
    if len(runs) == 1:
        return runs[0]
    valid = [r for r in runs if r.status == "ok" and r.score is not None]
    scores = [r.score for r in valid if r.score is not None]
    spread: dict[str, Any] = {
        "repeats": len(runs),
        "scores": scores,
        "mean": math.fsum(scores) / len(scores) if scores else None,
        "std": statistics.pstdev(scores) if scores else None,
        "failed_repeats": len(runs) - len(valid),
        "runs": [_run_summary(r) for r in runs],
    }
    if not valid:
        last = runs[-1]
        status: Status = "not_measured" if all(r.status == "not_measured" for r in runs) else "failed"
        reason = f"no valid judgement in {len(runs)} repeats; last: {last.reason}"
        return replace(last, score=None, status=status, reason=reason, meta={**last.meta, **spread})
    first = valid[0]
    return replace(first, meta={**first.meta, **spread})
