"""Label matching and the normalisation rules."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.acts import LABELS, Step, normalise, parse_acts, parse_label
from voxeval.errors import InputError, Location


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("Question", "Question"),
        ("check question", "Check-Question"),
        ("CHECK_QUESTION", "Check-Question"),
        ("check-question", "Check-Question"),
        (" inform ", "Inform"),
        ("commissive", "Commissive"),
    ],
)
def test_label_variants(raw, label) -> None:
    assert parse_label(raw) == label


@pytest.mark.parametrize("raw", ["Greeting", "", "Questions", 3, None])
def test_unknown_labels(raw) -> None:
    assert parse_label(raw) is None


def test_parse_acts_normalises_and_keeps_fields() -> None:
    acts = parse_acts(
        [{"act": "answer", "importance": 3, "span": "晴れです。"}, {"act": "Inform", "importance": 1}],
        Location("g.jsonl", 4, "steps"),
        allow_empty=False,
    )
    assert [(s.act, s.importance, s.span) for s in acts] == [("Answer", 0.75, "晴れです。"), ("Inform", 0.25, None)]


@pytest.mark.parametrize(
    ("steps", "field", "fragment"),
    [
        ([{"act": "Greeting", "importance": 1}], "steps[0].act", "unknown dialogue act"),
        ([{"act": "Answer", "importance": -0.1}], "steps[0].importance", "negative"),
        ([{"act": "Answer", "importance": "0.5"}], "steps[0].importance", "must be a number"),
        ([{"act": "Answer", "importance": True}], "steps[0].importance", "must be a number"),
        ([{"act": "Answer", "importance": float("nan")}], "steps[0].importance", "finite"),
        ([{"act": "Answer"}], "steps[0].importance", "missing"),
        ([{"importance": 1}], "steps[0].act", "missing"),
        (["Answer"], "steps[0]", "must be an object"),
        ([], "steps", "empty"),
        ({"act": "Answer"}, "steps", "must be a list"),
    ],
)
def test_errors_name_line_and_field(steps, field, fragment) -> None:
    with pytest.raises(InputError) as info:
        parse_acts(steps, Location("gold.jsonl", 7, "steps"), allow_empty=False)
    message = str(info.value)
    assert message.startswith(f"gold.jsonl:7, field {field}:")
    assert fragment in message


def test_all_zero_weights_become_uniform() -> None:
    acts = normalise([Step("Answer", 0.0), Step("Inform", 0.0), Step("Question", 0.0)])
    assert [s.importance for s in acts] == [pytest.approx(1 / 3)] * 3


def test_empty_prediction_allowed() -> None:
    assert parse_acts([], Location(), allow_empty=True) == ()


@given(st.lists(st.tuples(st.sampled_from(LABELS), st.floats(0.0, 1e6)), min_size=1, max_size=8))
def test_normalised_sums_to_one(pairs) -> None:
    acts = normalise([Step(a, w) for a, w in pairs])
    assert math.isclose(math.fsum(s.importance for s in acts), 1.0, abs_tol=1e-9)
    assert all(0.0 <= s.importance <= 1.0 for s in acts)
