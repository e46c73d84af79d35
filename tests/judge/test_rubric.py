"""The rubric as a pure function: every branch, table-driven."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.judge._rubric import RubricInput, Verdict, apply_rubric, requirement_verdict

CASES = [
    # (name, input, score, status, step, words in the reason)
    ("wrong language", RubricInput(False, "compliant", {"pitch": "met"}, True, language_note="reply is in en"),
     1, "ok", "language", ["step 3", "reply is in en"]),
    ("wrong language beats everything", RubricInput(False, "non_compliant", {"emotion": "not_measured"}, True),
     1, "ok", "language", ["step 3"]),
    ("content fails", RubricInput(True, "non_compliant", {"pitch": "met"}, True, content_note="error 0.6"),
     1, "ok", "content", ["step 4", "error 0.6"]),
    ("content fails before coverage", RubricInput(True, "non_compliant", {"emotion": "not_measured"}, True),
     1, "ok", "content", ["step 4"]),
    ("unmeasurable requirement", RubricInput(True, "compliant", {"emotion": "not_measured", "pitch": "met"}, True),
     None, "not_measured", "coverage", ["emotion", "not measured"]),
    ("unmeasurable, rest all met: 3, 4 or 5", RubricInput(True, "compliant", {"emotion": "not_measured",
                                                                         "pitch": "met", "speed": "met"}, True),
     None, "not_measured", "coverage", ["emotion"]),
    ("unmeasurable, rest none met: 2 or 3", RubricInput(True, "compliant", {"age": "not_measured",
                                                                       "pitch": "not_met"}, True),
     None, "not_measured", "coverage", ["age"]),
    ("unmeasurable, rest mixed: 3 whatever", RubricInput(True, "compliant", {"emotion": "not_measured",
                                                                        "pitch": "met", "speed": "not_met"}, True),
     3, "ok", "style", ["met: pitch", "not met: speed", "whatever emotion, not measured, would be"]),
    ("unmeasurable, one level off: 3 whatever", RubricInput(True, "compliant", {"emotion": "not_measured",
                                                                           "volume": "partly"}, True),
     3, "ok", "style", ["one level off: volume", "whatever emotion"]),
    ("none met", RubricInput(True, "compliant", {"pitch": "not_met", "speed": "not_met"}, True),
     2, "ok", "style", ["none of 2"]),
    ("some met", RubricInput(True, "compliant", {"pitch": "met", "speed": "not_met"}, True),
     3, "ok", "style", ["met: pitch", "not met: speed"]),
    ("one level off", RubricInput(True, "compliant", {"pitch": "partly"}, True),
     3, "ok", "style", ["one level off: pitch"]),
    ("met and one level off", RubricInput(True, "compliant", {"pitch": "met", "volume": "partly"}, True),
     3, "ok", "style", ["met: pitch", "one level off: volume"]),
    ("all met, natural", RubricInput(True, "compliant", {"pitch": "met", "speed": "met"}, True, natural_note="sd 3"),
     5, "ok", "naturalness", ["step 6", "all 2", "natural (sd 3)"]),
    ("all met, flat", RubricInput(True, "compliant", {"pitch": "met"}, False),
     4, "ok", "naturalness", ["flat"]),
    ("all met, naturalness unmeasurable", RubricInput(True, "compliant", {"pitch": "met"}, None),
     4, "ok", "naturalness", ["not measurable"]),
    ("no requirement", RubricInput(True, "compliant", {}, True),
     5, "ok", "naturalness", ["no style requirement"]),
    ("open task passes content but says so", RubricInput(True, "not_checked", {"pitch": "met"}, True,
                                                         content_note="content not checked: an open task"),
     5, "ok", "naturalness", ["content not checked: an open task"]),
    ("open task, none met", RubricInput(True, "not_checked", {"pitch": "not_met"}, True),
     2, "ok", "style", ["content not checked"]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "inp", "score", "status", "step", "words"), CASES, ids=[c[0] for c in CASES])
def test_rubric(name: str, inp: RubricInput, score: int | None, status: str, step: str, words: list[str]) -> None:
    result = apply_rubric(inp)
    assert (result.score, result.status, result.step) == (score, status, step)
    for word in words:
        assert word in result.reason
    if score is not None:
        assert result.reason.endswith(f"→ {score}") or "[" in result.reason


@pytest.mark.parametrize(
    ("attribute", "required", "measured", "verdict"),
    [
        ("pitch", "high", "high", "met"),
        ("pitch", "high", "very_high", "partly"),
        ("pitch", "high", "normal", "partly"),
        ("pitch", "high", "low", "not_met"),
        ("speed", "very_slow", "very_fast", "not_met"),
        ("volume", "loud", None, "not_measured"),
        ("gender", "male", "female", "not_met"),  # not ordinal: no "one level off"
        ("gender", "female", "female", "met"),
        ("age", "elderly", "middle_aged", "partly"),
    ],
)
def test_requirement_verdict(attribute: str, required: str, measured: str | None, verdict: str) -> None:
    assert requirement_verdict(attribute, required, measured) == verdict


VERDICTS: list[Verdict] = ["met", "partly", "not_met", "not_measured"]


@given(
    verdicts=st.dictionaries(st.sampled_from(["age", "emotion", "gender", "pitch", "speed", "volume"]),
                             st.sampled_from(VERDICTS), max_size=6),
    natural=st.sampled_from([True, False, None]),
    content=st.sampled_from(["compliant", "not_checked"]),
)  # fmt: skip
def test_a_score_with_unmeasured_requirements_holds_for_every_value_they_could_have(
    verdicts: dict[str, Verdict], natural: bool | None, content: str
) -> None:
    """Never a guess: when some requirements are unmeasured, a score is given only if every completion agrees."""
    partial = apply_rubric(RubricInput(True, content, verdicts, natural))
    missing = [a for a, v in verdicts.items() if v == "not_measured"]
    completions = {
        apply_rubric(RubricInput(True, content, verdicts | dict(zip(missing, values, strict=True)), natural)).score
        for values in itertools.product(["met", "partly", "not_met"], repeat=len(missing))
    }
    if partial.score is None:
        assert missing and len(completions) > 1
    else:
        assert completions == {partial.score}
