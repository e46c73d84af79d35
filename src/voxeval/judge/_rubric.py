"""The seed prompt's progressive 1–5 rubric as a pure function over measured verdicts.

Steps (seed prompt, "Evaluation Steps"): 3 language → 1 if inconsistent; 4 content → 1 if non-compliant;
5 style → 2 if no requirement is met, 3 if only some are or one is met only to a degree (an ordinal level
one step off), otherwise 6 naturalness → 5 if natural, else 4. A requirement that cannot be measured
offline (emotion, adult age groups) makes the item ``not_measured`` with no score, so it counts against
coverage instead of being guessed — unless the measured requirements already fix the score whatever the
unmeasured ones would be (steps 3–4 fail → 1; one measured requirement met and another not, or one met only to
a degree → 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from voxeval.judge._content import ContentVerdict
from voxeval.style._types import LEVELS, ORDINAL, Status

Verdict = Literal["met", "partly", "not_met", "not_measured"]
"""How one style requirement fared."""
Step = Literal["language", "content", "coverage", "style", "naturalness"]
"""The rubric step that decided the score."""


@dataclass(frozen=True)
class RubricInput:
    """Everything the rubric needs, already measured."""

    language_ok: bool
    """Step 3: the reply is in the instruction's language."""
    content: ContentVerdict
    """Step 4: ``compliant``, ``non_compliant`` or ``not_checked`` (open task: passes, and the reason says so)."""
    requirements: dict[str, Verdict] = field(default_factory=dict)
    """Step 5: verdict per required attribute."""
    natural: bool | None = None
    """Step 6: the naturalness proxy (None = not measurable, treated as not established)."""
    language_note: str = ""
    """Why the language step passed or failed."""
    content_note: str = ""
    """Why the content step passed or failed."""
    natural_note: str = ""
    """The naturalness measurements."""


@dataclass(frozen=True)
class RubricResult:
    """A score and the step that decided it."""

    score: int | None
    """1–5, or None when a requirement is not measurable."""
    status: Status
    """``ok`` or ``not_measured``."""
    step: Step
    """The deciding step."""
    reason: str
    """Human-readable reason naming the step."""


def requirement_verdict(attribute: str, required: str, measured: str | None) -> Verdict:
    """``met`` on the required level; ``partly`` one ordinal level off; ``not_met`` otherwise.

    ``measured`` None (nothing to read the attribute from) is ``not_measured``.
    """
    if measured is None:
        return "not_measured"
    if measured == required:
        return "met"
    levels = LEVELS.get(attribute, ())
    ordinal = attribute in ORDINAL and required in levels and measured in levels
    if ordinal and abs(levels.index(required) - levels.index(measured)) == 1:
        return "partly"
    return "not_met"


def _decided_without(measured: Mapping[str, Verdict]) -> bool:
    """Whether step 5 gives 3 whatever the unmeasured requirements' verdicts are.

    It does when a measured requirement is met only to a degree, or when one is met and another is not: then the
    reply neither fails every requirement (2) nor meets them all (4–5), so the unmeasured ones cannot move the score.
    """
    values = set(measured.values())
    return "partly" in values or {"met", "not_met"} <= values


def _with_content_note(inp: RubricInput, reason: str) -> str:
    if inp.content == "not_checked":
        return f"{reason} [{inp.content_note or 'content not checked'}]"
    return reason


def apply_rubric(inp: RubricInput) -> RubricResult:
    """Score one reply (see the module docstring for the steps)."""
    if not inp.language_ok:
        return RubricResult(1, "ok", "language", f"step 3 (language): {inp.language_note or 'wrong language'} → 1")
    if inp.content == "non_compliant":
        reason = f"step 4 (content): {inp.content_note or 'content not compliant'} → 1"
        return RubricResult(1, "ok", "content", reason)
    missing = sorted(a for a, v in inp.requirements.items() if v == "not_measured")
    verdicts = {a: v for a, v in inp.requirements.items() if v != "not_measured"}
    if missing and not _decided_without(verdicts):
        reason = f"step 5 (style): {', '.join(missing)} cannot be measured offline → not measured"
        return RubricResult(None, "not_measured", "coverage", _with_content_note(inp, reason))
    unmeasured = f" (whatever {', '.join(missing)}, not measured, would be)" if missing else ""
    met = sorted(a for a, v in verdicts.items() if v == "met")
    if verdicts and not met and all(v == "not_met" for v in verdicts.values()):
        reason = f"step 5 (style): none of {len(verdicts)} requirement(s) met ({', '.join(sorted(verdicts))}) → 2"
        return RubricResult(2, "ok", "style", _with_content_note(inp, reason))
    if len(met) < len(verdicts):
        partly = sorted(a for a, v in verdicts.items() if v == "partly")
        off = sorted(a for a, v in verdicts.items() if v == "not_met")
        detail = "; ".join(
            part
            for part in (
                f"met: {', '.join(met)}" if met else "",
                f"one level off: {', '.join(partly)}" if partly else "",
                f"not met: {', '.join(off)}" if off else "",
            )
            if part
        )
        reason = f"step 5 (style): partly met ({detail}){unmeasured} → 3"
        return RubricResult(3, "ok", "style", _with_content_note(inp, reason))
    style = f"all {len(verdicts)} requirement(s) met" if verdicts else "no style requirement"
    natural = inp.natural is True
    verdict = "natural" if natural else ("not measurable" if inp.natural is None else "flat (TTS-like)")
    note = f" ({inp.natural_note})" if inp.natural_note else ""
    reason = f"step 6 (naturalness): {style}; prosody {verdict}{note} → {5 if natural else 4}"
    return RubricResult(5 if natural else 4, "ok", "naturalness", _with_content_note(inp, reason))
