"""VStyle's weighting, checked against hand-computed numbers."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.judge import ABILITIES, ABILITY_WEIGHTS, TAXONOMY, Judgement, scores_by_model, vstyle_scores

_ids = itertools.count(1)


def j(ability: str, score: int | None, status: str = "ok", model: str | None = "A") -> Judgement:
    return Judgement(f"r{next(_ids)}", ability, score, status, "fake", model_name=model)  # type: ignore[arg-type]


def test_weights_follow_vstyle() -> None:
    assert math.fsum(ABILITY_WEIGHTS.values()) == pytest.approx(1.0)
    assert ABILITY_WEIGHTS["acoustic_attributes/composite_properties"] == 0.125
    assert ABILITY_WEIGHTS["acoustic_attributes/pitch"] == pytest.approx(0.125 / 6)
    assert ABILITY_WEIGHTS["instruction/variation"] == pytest.approx(0.25 / 3)
    assert ABILITY_WEIGHTS["role_play/scenario"] == pytest.approx(0.25 / 2)
    assert ABILITY_WEIGHTS["empathy/anxiety_fear"] == pytest.approx(0.25 / 4)
    for category, subs in TAXONOMY.items():
        assert math.fsum(ABILITY_WEIGHTS[f"{category}/{s}"] for s in subs) == pytest.approx(0.25)
    assert len(ABILITIES) == 16


def test_hand_computed_partial_run() -> None:
    judgements = [
        j("acoustic_attributes/pitch", 4),
        j("acoustic_attributes/pitch", 2),
        j("acoustic_attributes/pitch", None, "failed"),
        j("acoustic_attributes/composite_properties", 5),
        j("instruction/style", 3),
        j("empathy/anger", 2),
        j("empathy/anger", None, "not_measured"),
    ]
    scores = vstyle_scores(judgements)
    # In units of 1/48: pitch 1, composite 6, instruction/style 4, empathy/anger 3 → 14/48 evaluated.
    assert scores.overall == pytest.approx((3 * 1 + 5 * 6 + 3 * 4 + 2 * 3) / 14)  # 51/14
    assert scores.weight_evaluated == pytest.approx(14 / 48)
    pitch = scores.abilities["acoustic_attributes/pitch"]
    assert pitch.mean == 3.0 and (pitch.counts.n, pitch.counts.ok, pitch.counts.failed) == (3, 2, 1)
    assert pitch.counts.coverage == pytest.approx(2 / 3)
    assert scores.categories["acoustic_attributes"].mean == pytest.approx((3 * 1 + 5 * 6) / 7)  # 33/7
    assert scores.categories["empathy"].mean == 2.0
    assert scores.categories["empathy"].counts.not_measured == 1
    assert "role_play" not in scores.categories
    assert (scores.counts.n, scores.counts.ok, scores.counts.failed, scores.counts.not_measured) == (7, 5, 1, 1)
    assert scores.counts.coverage == pytest.approx(5 / 7)


def test_full_benchmark_weights_categories_equally() -> None:
    # Each category's abilities all score the same: overall = mean of the four category scores.
    per_category = {"acoustic_attributes": 5, "instruction": 4, "role_play": 2, "empathy": 1}
    judgements = [j(a, per_category[a.split("/")[0]]) for a in ABILITIES]
    scores = vstyle_scores(judgements)
    assert scores.overall == pytest.approx((5 + 4 + 2 + 1) / 4)
    assert scores.weight_evaluated == pytest.approx(1.0)


def test_composite_weighs_as_much_as_the_six_single_attributes() -> None:
    singles = [j(f"acoustic_attributes/{a}", 1) for a in ("age", "gender", "pitch", "speed", "volume", "emotion")]
    scores = vstyle_scores([*singles, j("acoustic_attributes/composite_properties", 5)])
    assert scores.overall == pytest.approx(3.0)


def test_only_failures_give_no_score_but_are_counted() -> None:
    scores = vstyle_scores([j("role_play/character", None, "failed"), j("role_play/character", None, "failed")])
    assert scores.overall is None and scores.weight_evaluated == 0.0
    assert scores.abilities["role_play/character"].mean is None
    assert scores.categories["role_play"].mean is None
    assert scores.counts.failed == 2 and scores.counts.coverage == 0.0


def test_nothing_to_score() -> None:
    scores = vstyle_scores([])
    assert scores.overall is None and scores.counts.n == 0 and scores.counts.coverage is None


def test_unknown_ability_is_refused() -> None:
    with pytest.raises(ValueError, match="acoustic_attributes/timbre"):
        vstyle_scores([j("acoustic_attributes/timbre", 3)])


def test_scores_per_model() -> None:
    judgements = [
        j("instruction/style", 5, model="B"),
        j("instruction/style", 1, model="A"),
        j("empathy/anger", 3, model=None),
    ]
    by_model = scores_by_model(judgements)
    assert list(by_model) == ["A", "B", "unknown"]
    assert by_model["B"].overall == 5.0 and by_model["A"].overall == 1.0 and by_model["unknown"].overall == 3.0
    assert by_model["A"].to_json()["abilities"]["instruction/style"]["mean"] == 1.0


@given(st.dictionaries(st.sampled_from(ABILITIES), st.lists(st.integers(1, 5), min_size=1, max_size=4), min_size=1))
def test_overall_lies_between_the_ability_means(scored: dict[str, list[int]]) -> None:
    scores = vstyle_scores([j(a, s) for a, values in scored.items() for s in values])
    means = [math.fsum(v) / len(v) for v in scored.values()]
    assert scores.overall is not None
    assert min(means) - 1e-9 <= scores.overall <= max(means) + 1e-9
    assert scores.weight_evaluated == pytest.approx(math.fsum(ABILITY_WEIGHTS[a] for a in scored))
