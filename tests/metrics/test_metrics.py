"""The spec's worked examples, edge cases and invariants of WLCS and WED."""

from __future__ import annotations

import functools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.acts import LABELS, Step, normalise
from voxeval.metrics import weighted_edit_distance, weighted_lcs


def seq(*pairs: tuple[str, float]) -> list[Step]:
    return [Step(a, w) for a, w in pairs]  # type: ignore[arg-type]


# Paper 4.1.1, weights as printed (P sums to 0.9).
WLCS_GOLD = seq(("Question", 0.7), ("Suggestion", 0.1), ("Inform", 0.2))
WLCS_PRED = seq(("Question", 0.7), ("Suggestion", 0.15), ("Answer", 0.05))

# Paper Table 2, IDs 1–4: (pred, gold, total, deletion, insertion, substitution).
TABLE2 = [
    (seq(("Inform", 1.0)), seq(("Commissive", 0.6), ("Question", 0.25), ("Inform", 0.15)), 0.85, 0.0, 0.85, 0.0),
    (
        seq(("Request", 0.7), ("Question", 0.3)),
        seq(("Question", 0.65), ("Inform", 0.15), ("Commissive", 0.2)),
        1.05,
        0.70,
        0.35,
        0.0,
    ),
    (
        seq(("Check-Question", 0.3), ("Inform", 0.5), ("Inform", 0.2)),
        seq(("Commissive", 0.6), ("Question", 0.2), ("Question", 0.2)),
        1.0,
        0.0,
        0.0,
        1.0,
    ),
    (seq(("Inform", 0.75), ("Question", 0.25)), seq(("Inform", 0.65), ("Question", 0.35)), 0.0, 0.0, 0.0, 0.0),
]


def test_wlcs_paper_example_on_raw_weights() -> None:
    assert weighted_lcs(WLCS_GOLD, WLCS_PRED) == pytest.approx(0.85, abs=1e-12)


def test_wlcs_paper_example_after_normalisation() -> None:
    assert weighted_lcs(normalise(WLCS_GOLD), normalise(WLCS_PRED)) == pytest.approx(0.85 / 0.9, abs=1e-12)


@pytest.mark.parametrize(("pred", "gold", "total", "deletion", "insertion", "substitution"), TABLE2)
def test_wed_paper_table2(pred, gold, total, deletion, insertion, substitution) -> None:
    r = weighted_edit_distance(gold=gold, pred=pred)
    assert (r.total, r.deletion, r.insertion, r.substitution) == pytest.approx(
        (total, deletion, insertion, substitution), abs=1e-12
    )


@pytest.mark.parametrize(
    ("gold", "pred", "wlcs", "wed"),
    [
        # Empty prediction: the model said nothing. WLCS 0, WED = all gold weight inserted.
        (seq(("Answer", 1.0)), [], 0.0, 1.0),
        (seq(("Answer", 0.6), ("Inform", 0.4)), [], 0.0, 1.0),
        # Identical sequences.
        (seq(("Answer", 0.6), ("Inform", 0.4)), seq(("Answer", 0.6), ("Inform", 0.4)), 1.0, 0.0),
        # Same labels, different weights: substitution of equal labels is free.
        (seq(("Answer", 0.9), ("Inform", 0.1)), seq(("Answer", 0.2), ("Inform", 0.8)), 1.0, 0.0),
        # Disjoint labels, one each: substitution (w^p + w^r) / 2 = 1.
        (seq(("Answer", 1.0)), seq(("Question", 1.0)), 0.0, 1.0),
        # Reversed order: WLCS keeps only the heavier predicted act; WED matches one and edits the other.
        (seq(("Answer", 0.7), ("Suggestion", 0.3)), seq(("Suggestion", 0.3), ("Answer", 0.7)), 0.7, 0.6),
        # Redundant extra act in the prediction: pure deletion.
        (seq(("Answer", 1.0)), seq(("Answer", 0.8), ("Inform", 0.2)), 0.8, 0.2),
    ],
)
def test_table_driven_edges(gold, pred, wlcs, wed) -> None:
    assert weighted_lcs(gold, pred) == pytest.approx(wlcs, abs=1e-12)
    r = weighted_edit_distance(gold=gold, pred=pred)
    assert r.total == pytest.approx(wed, abs=1e-12)
    assert r.deletion + r.insertion + r.substitution == pytest.approx(r.total, abs=1e-12)


def test_empty_prediction_ops_are_all_insertions() -> None:
    r = weighted_edit_distance(gold=seq(("Answer", 0.6), ("Inform", 0.4)), pred=[])
    assert [o.op for o in r.ops] == ["insertion", "insertion"]
    assert r.insertion == pytest.approx(1.0)


def test_tie_break_is_documented_order() -> None:
    # pred [A] vs gold [A, A] with equal weights: either gold A could be the match. Walking back from the end,
    # the diagonal is preferred, so the *last* gold A is matched and the first is inserted.
    r = weighted_edit_distance(gold=seq(("Answer", 0.5), ("Answer", 0.5)), pred=seq(("Answer", 1.0)))
    assert [(o.op, o.pred_index, o.gold_index) for o in r.ops] == [("insertion", None, 0), ("match", 0, 1)]


def test_ops_cover_both_sequences_in_order() -> None:
    pred = seq(("Request", 0.7), ("Question", 0.3))
    gold = seq(("Question", 0.65), ("Inform", 0.15), ("Commissive", 0.2))
    r = weighted_edit_distance(gold=gold, pred=pred)
    assert [o.pred_index for o in r.ops if o.pred_index is not None] == [0, 1]
    assert [o.gold_index for o in r.ops if o.gold_index is not None] == [0, 1, 2]
    assert [o.op for o in r.ops] == ["deletion", "match", "insertion", "insertion"]


# ---------- properties ----------

labels = st.sampled_from(LABELS)
raw_seqs = st.lists(st.tuples(labels, st.floats(0.0, 1.0)), min_size=1, max_size=6)


def as_norm(pairs) -> tuple[Step, ...]:
    return normalise([Step(a, w) for a, w in pairs])


@given(raw_seqs)
def test_wed_of_identical_is_zero(pairs) -> None:
    x = as_norm(pairs)
    assert weighted_edit_distance(x, x).total == 0.0
    assert weighted_lcs(x, x) == pytest.approx(1.0)


@given(raw_seqs, st.lists(st.tuples(labels, st.floats(0.0, 1.0)), max_size=6))
def test_bounds_and_breakdown(gold_pairs, pred_pairs) -> None:
    gold, pred = as_norm(gold_pairs), as_norm(pred_pairs)
    w = weighted_lcs(gold, pred)
    r = weighted_edit_distance(gold=gold, pred=pred)
    assert -1e-12 <= w <= 1 + 1e-12
    assert -1e-12 <= r.total <= 2 + 1e-12
    assert math.isclose(r.deletion + r.insertion + r.substitution, r.total, abs_tol=1e-12)
    assert math.isclose(math.fsum(o.cost for o in r.ops), r.total, abs_tol=1e-12)


def brute_wed(pred, gold) -> float:
    @functools.cache
    def go(i: int, j: int) -> float:
        # All edit scripts, enumerated by recursion without any DP shortcut on the choice.
        if i == len(pred) and j == len(gold):
            return 0.0
        options = []
        if i < len(pred):
            options.append(pred[i].importance + go(i + 1, j))
        if j < len(gold):
            options.append(gold[j].importance + go(i, j + 1))
        if i < len(pred) and j < len(gold):
            sub = 0.0 if pred[i].act == gold[j].act else (pred[i].importance + gold[j].importance) / 2
            options.append(sub + go(i + 1, j + 1))
        return min(options)

    return go(0, 0)


def brute_wlcs(gold, pred) -> float:
    best = 0.0
    n = len(pred)
    for mask in range(1 << n):
        chosen = [pred[k] for k in range(n) if mask >> k & 1]
        it = iter(gold)
        if all(any(g.act == c.act for g in it) for c in chosen):
            best = max(best, sum(c.importance for c in chosen))
    return best


small = st.lists(st.tuples(st.sampled_from(LABELS[:3]), st.floats(0.0, 1.0)), min_size=0, max_size=4)


@settings(max_examples=300)
@given(small.filter(bool), small)
def test_wed_equals_brute_force(gold_pairs, pred_pairs) -> None:
    gold, pred = as_norm(gold_pairs), as_norm(pred_pairs)
    assert weighted_edit_distance(gold=gold, pred=pred).total == pytest.approx(brute_wed(pred, gold), abs=1e-9)


@settings(max_examples=300)
@given(small.filter(bool), small)
def test_wlcs_equals_brute_force(gold_pairs, pred_pairs) -> None:
    gold, pred = as_norm(gold_pairs), as_norm(pred_pairs)
    assert weighted_lcs(gold, pred) == pytest.approx(brute_wlcs(gold, pred), abs=1e-9)


def test_gold_coverage_on_table2_id1() -> None:
    # docs/metrics.md's example: a one-act reply gets full WLCS but only its act's share of the gold importance.
    from voxeval.metrics import gold_coverage

    pred, gold = TABLE2[0][0], TABLE2[0][1]
    assert weighted_lcs(gold=gold, pred=pred) == 1.0
    assert gold_coverage(gold=gold, pred=pred) == pytest.approx(0.15)
