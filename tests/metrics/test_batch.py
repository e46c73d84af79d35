"""The batch kernel and the row writer against the scalar metrics (bit for bit), and gold coverage's properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.acts import LABELS, Step, normalise
from voxeval.data import dumps
from voxeval.metrics import batch_rows, gold_coverage, pad, score_batch, score_sample, weighted_lcs

CODE = {label: k for k, label in enumerate(LABELS)}

# Few labels and a few repeated weights make ties (equal costs, several optimal paths) common.
weights = st.one_of(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), st.floats(0.0, 1.0), st.floats(0.0, 1e-6))
steps = st.lists(st.tuples(st.sampled_from(LABELS[:3]), weights), max_size=7)
acts = steps.map(lambda pairs: normalise([Step(a, w) for a, w in pairs]))


def batch(pairs: list[tuple[tuple[Step, ...], tuple[Step, ...]]]):
    def side(seqs, fill):
        return pad(
            [CODE[s.act] for q in seqs for s in q],
            [s.importance for q in seqs for s in q],
            [len(q) for q in seqs],
            fill,
        )

    return side([g for g, _ in pairs], -1), side([p for _, p in pairs], -2)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(acts.filter(bool), acts), min_size=1, max_size=12), st.lists(st.booleans(), min_size=12))
def test_batch_rows_equal_scalar_rows(pairs, missing) -> None:
    gold, pred = batch(pairs)
    scores = score_batch(gold, pred)
    flags = missing[: len(pairs)]
    rows = batch_rows([f"id{k}" for k in range(len(pairs))], scores, flags)
    for k, ((g, p), miss) in enumerate(zip(pairs, flags, strict=True)):
        want = score_sample(f"id{k}", g, p, missing=miss)
        assert rows.text[k] == dumps(want.to_json()) + "\n"
        assert scores.wlcs[k] == want.wlcs and scores.gold_coverage[k] == want.gold_coverage
        assert (rows.wed[k], rows.deletion[k], rows.insertion[k]) == (
            want.edit.total,
            want.edit.deletion,
            want.edit.insertion,
        )


def test_row_escapes_ids_like_json() -> None:
    g = normalise([Step("Answer", 1.0)])
    gold, pred = batch([(g, ())])
    rows = batch_rows(['a"\\\n\x1fé'], score_batch(gold, pred), [True])
    assert json.loads(rows.text[0])["id"] == 'a"\\\n\x1fé'
    assert rows.text[0] == dumps(score_sample('a"\\\n\x1fé', g, (), missing=True).to_json()) + "\n"


@given(acts.filter(bool), acts)
def test_gold_coverage_bounds_and_identity(gold, pred) -> None:
    cover = gold_coverage(gold=gold, pred=pred)
    assert -1e-12 <= cover <= 1 + 1e-12
    assert gold_coverage(gold=gold, pred=gold) == pytest.approx(1.0)
    assert gold_coverage(gold=gold, pred=()) == 0.0


@given(acts.filter(bool), st.sampled_from(LABELS))
def test_one_act_reply_covers_only_its_gold_weight(gold, label) -> None:
    # The paper's WLCS gives a one-act reply full marks when its act is anywhere in the gold sequence;
    # gold coverage gives it the largest gold weight of that act, never more.
    reply = (Step(label, 1.0),)
    matching = [s.importance for s in gold if s.act == label]
    assert gold_coverage(gold=gold, pred=reply) == (max(matching) if matching else 0.0)
    assert weighted_lcs(gold=gold, pred=reply) == (1.0 if matching else 0.0)


@given(acts.filter(bool), acts)
def test_gold_coverage_is_wlcs_with_sides_swapped(gold, pred) -> None:
    # LCS with gold-side weights = LCS with prediction-side weights of the swapped pair.
    if pred:
        assert gold_coverage(gold=gold, pred=pred) == pytest.approx(weighted_lcs(gold=pred, pred=gold), abs=1e-12)


tricky = st.one_of(
    st.floats(0.0, 2.0),
    st.sampled_from([0.0, -0.0, 1.0, 2.0**-53, 2.0**-54, 3 * 2.0**-54, 1 - 2.0**-53, 0.1, 0.2, 0.3, 5e-324]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(tricky, max_size=10), min_size=1, max_size=20))
def test_path_sums_equal_fsum(columns) -> None:
    # Every operation a deletion: the deletion sum must be math.fsum of the costs, near-ties included.
    import math

    import numpy as np

    from voxeval.metrics import BatchScores
    from voxeval.metrics._rows import _forward, _sums

    steps = max(len(c) for c in columns)
    cost = np.zeros((steps, len(columns)))
    for b, col in enumerate(columns):
        cost[: len(col), b] = col[::-1]
    count = np.array([len(c) for c in columns])
    scores = BatchScores(
        np.zeros(len(columns)),
        np.zeros(len(columns)),
        count,
        np.full((steps, len(columns)), 2, dtype=np.int8),
        np.zeros((steps, len(columns)), dtype=np.int64),
        np.full((steps, len(columns)), -1),
        cost,
    )
    step, pair = _forward(scores)
    bounds = np.concatenate(([0], np.cumsum(count)))
    deletion = _sums(scores, scores.op_kind[step, pair], scores.op_cost[step, pair], bounds)[0]
    for b, col in enumerate(columns):
        assert deletion[b].tobytes() == np.float64(math.fsum(col)).tobytes()


@given(
    st.lists(
        st.one_of(st.floats(0.0, 2.0), st.floats(0.0, 1e-3), st.sampled_from([0.0, -0.0, 1e-4, 1e-5])), max_size=50
    )
)
def test_float_texts_are_repr(values) -> None:
    import numpy as np

    from voxeval.metrics._rows import _float_texts

    assert _float_texts(np.array(values, dtype=np.float64)) == [repr(v) for v in values]
