"""From one reply's analysis to a judgement: readings, per-requirement verdicts, the rubric (no I/O here)."""

from __future__ import annotations

from typing import Any

from voxeval.judge._content import ContentResult, check_content, check_language
from voxeval.judge._rubric import RubricInput, RubricResult, Verdict, apply_rubric, requirement_verdict
from voxeval.speech.acoustics import (
    THRESHOLDS,
    Analysis,
    BatchReference,
    Naturalness,
    NaturalnessModel,
    PitchReference,
    Reading,
    Thresholds,
    read_age,
    read_gender,
    read_naturalness,
    read_pitch,
    read_speed,
    read_volume,
)
from voxeval.style._types import LEVELS, StyleItem

NOT_MEASURABLE = {"emotion": "no offline emotion model", "age": "only child vs adult is measurable offline"}
"""Why a requirement cannot be measured offline."""


def readings(
    analysis: Analysis,
    language: str,
    *,
    pitch_reference: PitchReference = "absolute",
    model: BatchReference | None = None,
    table: Thresholds = THRESHOLDS,
) -> dict[str, Reading]:
    """Every measurable attribute of the reply."""
    m = analysis.measurements
    model = model or BatchReference()
    gender = read_gender(m, table)
    return {
        "gender": gender,
        "age": read_age(m, table),
        "pitch": read_pitch(m, pitch_reference, table, model.f0_reference(gender.level)),
        "speed": read_speed(m, analysis.units, language, table, analysis.word_speech_s),
        "volume": read_volume(m, model.median_lufs, table),
    }


UNMEASURABLE_CATEGORIES = {
    "instruction": "an emotion, a speaking style or a change of style over the reply",
    "role_play": "a character's or a scene's voice",
    "empathy": "an empathetic reply to the user's feelings",
}
"""VStyle categories whose style cannot be measured offline, and what they ask for."""


def unread_requirements(ability: str, requirements: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Requirements the item's ability implies but its requirements do not state: ``not_measured`` pseudo-verdicts.

    An ``acoustic_attributes/pitch`` item with no pitch level read from its instruction, a composite one with fewer
    than two levels, or an item of another category (its style is emotion, character or empathy) cannot be judged
    on the requirements read: scoring it on them would be a guess.
    """
    category, _, sub = ability.partition("/")
    why = ""
    key = sub
    if category in UNMEASURABLE_CATEGORIES:
        key, why = category, f"{category} items ask for {UNMEASURABLE_CATEGORIES[category]}: not measurable offline"
    elif category == "acoustic_attributes" and sub in LEVELS and sub not in requirements:
        why = f"the instruction's {sub} requirement could not be read from its text"
    elif category == "acoustic_attributes" and sub == "composite_properties" and len(requirements) < 2:
        key, why = "composite", "a composite instruction states several attributes; fewer than two were read from it"
    if not why:
        return {}
    return {key: {"required": None, "measured": None, "verdict": "not_measured", "note": why}}


def verdicts(requirements: dict[str, str], measured: dict[str, Reading]) -> dict[str, dict[str, Any]]:
    """Per required attribute: required level, measured level and verdict (with why when not measurable)."""
    out: dict[str, dict[str, Any]] = {}
    for attribute, required in sorted(requirements.items()):
        reading = measured.get(attribute)
        level = None if reading is None else reading.level
        verdict: Verdict
        if attribute == "age" and required != "child":
            verdict, note = "not_measured", NOT_MEASURABLE["age"]
        elif attribute == "age":
            verdict, note = ("met" if level == "child" else "not_met"), ""
        elif attribute in NOT_MEASURABLE or reading is None:
            verdict, note = "not_measured", NOT_MEASURABLE.get(attribute, "unknown attribute")
        else:
            verdict = requirement_verdict(attribute, required, level)
            note = "no voiced speech to measure" if verdict == "not_measured" else ""
        out[attribute] = {
            "required": required,
            "measured": level,
            "verdict": verdict,
            **({"note": note} if note else {}),
        }
    return out


def decide(
    item: StyleItem,
    analysis: Analysis,
    *,
    pitch_reference: PitchReference = "absolute",
    model: BatchReference | None = None,
    table: Thresholds = THRESHOLDS,
    naturalness: NaturalnessModel | None = None,
) -> tuple[RubricResult, dict[str, Any]]:
    """The rubric's result and the judgement's ``attributes`` for one analysed reply."""
    heard = analysis.heard
    language_ok, language_note = check_language(
        item.language, heard.detected_language if heard else None, heard.language_probability if heard else None, table
    )
    content: ContentResult = check_content(
        item.content, heard.text if heard else "", item.language, item.content_check, table
    )
    measured = readings(analysis, item.language, pitch_reference=pitch_reference, model=model, table=table)
    required = verdicts(item.requirements, measured) | unread_requirements(item.ability, item.requirements)
    nat = read_naturalness(analysis.measurements, naturalness)
    natural_note = (
        "" if nat.probability is None else f"classifier p(natural) {nat.probability:.2f}, threshold {nat.threshold:.2f}"
    )
    result = apply_rubric(
        RubricInput(
            language_ok=language_ok,
            content=content.verdict,
            requirements={a: v["verdict"] for a, v in required.items()},
            natural=nat.natural,
            language_note=language_note,
            content_note=content.reason,
            natural_note=natural_note,
        )
    )
    attributes = {
        "requirements": required,
        "measured": {a: r.to_json() for a, r in measured.items()}
        | {"emotion": {"level": None, "note": "not measured"}},
        "language": {"ok": language_ok, "expected": item.language, "reason": language_note},
        "content": _content_json(content),
        "naturalness": _naturalness_json(nat),
        "pitch_reference": pitch_reference,
        "volume_reference": (model or BatchReference()).describe(),
        "step": result.step,
        **analysis.to_json(),
    }
    return result, attributes


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _content_json(content: ContentResult) -> dict[str, Any]:
    return {
        "verdict": content.verdict,
        "reason": content.reason,
        "error": _round(content.error, 3),
        "extra": _round(content.extra, 3),
        "unit": content.unit,
    }


def _naturalness_json(nat: Naturalness) -> dict[str, Any]:
    return {
        "natural": nat.natural,
        "probability": _round(nat.probability, 3),
        "threshold": round(nat.threshold, 3),
        "f0_sd_st": _round(nat.f0_sd_st, 2),
        "npvi": _round(nat.npvi, 1),
    }
