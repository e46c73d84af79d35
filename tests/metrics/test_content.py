"""WLCS-c and WED-c: the paper's metrics when every similarity is 1, monotone, bounded, symmetric like the WED."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.acts import LABELS, Step, normalise
from voxeval.metrics import content_wed, content_wlcs, weighted_edit_distance, weighted_lcs

labels = st.sampled_from(LABELS[:3])  # few labels: many equal-label pairs, where similarity matters
pairs = st.lists(st.tuples(labels, st.floats(0.01, 1.0)), min_size=0, max_size=5)
unit = st.floats(0.0, 1.0)


def steps(raw: list[tuple[str, float]]) -> tuple[Step, ...]:
    return normalise(tuple(Step(a, w) for a, w in raw)) if raw else ()  # type: ignore[arg-type]


@st.composite
def cases(draw: st.DrawFn) -> tuple[tuple[Step, ...], tuple[Step, ...], list[list[float]]]:
    gold, pred = steps(draw(pairs)), steps(draw(pairs))
    sim = [[draw(unit) for _ in pred] for _ in gold]
    return gold, pred, sim


def ones(gold, pred) -> list[list[float]]:
    return [[1.0] * len(pred) for _ in gold]


@settings(max_examples=80, deadline=None)
@given(cases())
def test_equal_to_the_papers_metrics_when_every_similarity_is_one(case) -> None:
    gold, pred, _ = case
    assert content_wlcs(gold, pred, ones(gold, pred)) == pytest.approx(weighted_lcs(gold, pred), abs=1e-12)
    wed = weighted_edit_distance(gold=gold, pred=pred).total
    assert content_wed(gold, pred, ones(gold, pred)) == pytest.approx(wed, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(cases())
def test_bounded(case) -> None:
    gold, pred, sim = case
    wlcs_c, wed_c = content_wlcs(gold, pred, sim), content_wed(gold, pred, sim)
    assert -1e-12 <= wlcs_c <= weighted_lcs(gold, pred) + 1e-12 <= 1.0 + 2e-12
    top = sum(s.importance for s in gold) + sum(s.importance for s in pred)
    assert weighted_edit_distance(gold=gold, pred=pred).total - 1e-12 <= wed_c <= top + 1e-12 <= 2.0 + 2e-12


@settings(max_examples=80, deadline=None)
@given(cases(), st.data())
def test_monotone_in_each_similarity(case, data) -> None:
    gold, pred, sim = case
    if not gold or not pred:
        return
    i = data.draw(st.integers(0, len(gold) - 1))
    j = data.draw(st.integers(0, len(pred) - 1))
    higher = [row[:] for row in sim]
    higher[i][j] = data.draw(st.floats(sim[i][j], 1.0))
    assert content_wlcs(gold, pred, higher) >= content_wlcs(gold, pred, sim) - 1e-12
    assert content_wed(gold, pred, higher) <= content_wed(gold, pred, sim) + 1e-12


@settings(max_examples=80, deadline=None)
@given(cases())
def test_wed_c_is_symmetric(case) -> None:
    gold, pred, sim = case
    transposed = [[sim[i][j] for i in range(len(gold))] for j in range(len(pred))]
    assert content_wed(pred, gold, transposed) == pytest.approx(content_wed(gold, pred, sim), abs=1e-12)


def test_an_answer_about_something_else_earns_little() -> None:
    gold = (Step("Answer", 0.8), Step("Suggestion", 0.2))
    pred = (Step("Answer", 0.8), Step("Suggestion", 0.2))
    off = [[0.1, 0.0], [0.0, 1.0]]  # the Answer is off-topic, the Suggestion on
    assert weighted_lcs(gold, pred) == pytest.approx(1.0)
    assert content_wlcs(gold, pred, off) == pytest.approx(0.2 + 0.08)
    assert content_wed(gold, pred, off) == pytest.approx(0.9 * 0.8)  # (1 − 0.1) · (0.8 + 0.8) / 2


def test_similarity_shape_is_checked() -> None:
    with pytest.raises(ValueError, match="1 × 1"):
        content_wlcs((Step("Answer", 1.0),), (Step("Answer", 1.0),), [[1.0, 1.0]])


def test_empty_sides() -> None:
    gold = (Step("Answer", 1.0),)
    assert content_wlcs(gold, (), [[]]) == 0.0 and content_wed(gold, (), [[]]) == 1.0
    assert content_wlcs((), gold, []) == 0.0 and content_wed((), gold, []) == 1.0
