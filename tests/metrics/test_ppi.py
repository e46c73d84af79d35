"""PPI++ mean estimation: exact limits (perfect annotator, whole population labelled) and interval coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from voxeval.metrics import ppi_from_scores, ppi_mean, ppi_paired

scores = st.floats(min_value=0.0, max_value=2.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(scores, min_size=3, max_size=40), st.data())
def test_a_perfect_annotator_gives_its_own_mean(values: list[float], data: st.DataObject) -> None:
    n = data.draw(st.integers(min_value=2, max_value=len(values)))
    assume(len(set(values[:n])) > 1)  # scores without variation on the sample say nothing of the annotator: λ = 0
    est = ppi_mean(values[n:], values[:n], values[:n])
    assert est.estimate == pytest.approx(est.annotator_mean, abs=1e-9)
    assert est.annotator_mean == pytest.approx(math.fsum(values) / len(values), abs=1e-12)
    assert est.low <= est.estimate <= est.high


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(scores, scores), min_size=2, max_size=40))
def test_the_whole_population_labelled_gives_the_human_mean(pairs: list[tuple[float, float]]) -> None:
    f, y = [p[0] for p in pairs], [p[1] for p in pairs]
    est = ppi_mean([], f, y)
    assert est.lam == 0.0
    assert est.estimate == pytest.approx(math.fsum(y) / len(y), abs=1e-12)
    assert (est.low, est.high) == pytest.approx((est.human_low, est.human_high), abs=1e-12)
    assert est.gain == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(scores, scores), min_size=3, max_size=30), st.lists(scores, max_size=60))
def test_lambda_is_clipped_and_shift_of_the_annotator_is_removed(
    pairs: list[tuple[float, float]], rest: list[float]
) -> None:
    f, y = [p[0] for p in pairs], [p[1] for p in pairs]
    est = ppi_mean(rest, f, y)
    assert 0.0 <= est.lam <= 1.0
    shifted = ppi_mean([x + 0.3 for x in rest], [x + 0.3 for x in f], y)  # a constant bias changes nothing
    assert shifted.estimate == pytest.approx(est.estimate, abs=1e-9)
    assert shifted.high - shifted.low == pytest.approx(est.high - est.low, abs=1e-9)


def test_degenerate_inputs_are_refused_or_handled() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        ppi_mean([0.5] * 10, [0.5], [0.7])
    with pytest.raises(ValueError, match="3 annotator scores for 2"):
        ppi_mean([0.5], [0.5, 0.5, 0.5], [0.7, 0.1])
    constant = ppi_mean([0.5] * 10, [0.5, 0.5, 0.5], [0.7, 0.1, 0.4])  # f without variation: λ = 0, human-only
    assert constant.lam == 0.0 and constant.estimate == pytest.approx(0.4)
    with pytest.raises(ValueError, match="outside the population"):
        ppi_from_scores({"a": 0.1, "b": 0.2}, {"a": 0.3, "z": 0.4})


def test_paired_difference_is_the_estimator_on_differences() -> None:
    f_a = {str(i): 0.2 + 0.01 * i for i in range(10)}
    f_b = {str(i): 0.5 + 0.02 * i for i in range(10)}
    y_a = {str(i): f_a[str(i)] + 0.1 for i in range(4)}
    y_b = {str(i): f_b[str(i)] + 0.1 for i in range(4)}  # both annotations off by the same amount
    est = ppi_paired(f_a, f_b, y_a, y_b)
    assert est.N == 10 and est.n == 4
    assert est.estimate == pytest.approx(est.annotator_mean)  # a shared bias cancels in the difference
    direct = ppi_from_scores({k: f_b[k] - f_a[k] for k in f_a}, {k: y_b[k] - y_a[k] for k in y_a})
    assert direct == est


def _population(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Human scores y ~ Beta(2, 3) (truth: mean 0.4) and an annotator biased by +0.1, noisy and clipped."""
    y = rng.beta(2.0, 3.0, size)
    f = np.clip(y + 0.1 + rng.normal(0.0, 0.12, size), 0.0, 1.0)
    return y, f


@pytest.mark.parametrize("n", [20, 40])
def test_the_interval_covers_a_known_truth_at_the_nominal_rate(n: int) -> None:
    """Seeded simulation: 400 populations of N = 120 replies, a uniform sample of n labelled in each."""
    rng = np.random.default_rng(43 + n)
    covered, plain, corrected, widths, human_widths = 0, [], [], [], []
    for _ in range(400):
        y, f = _population(rng, 120)
        picked = rng.permutation(120)
        lab, rest = picked[:n], picked[n:]
        est = ppi_mean(f[rest].tolist(), f[lab].tolist(), y[lab].tolist())
        covered += est.low <= 0.4 <= est.high
        plain.append(est.annotator_mean - 0.4)
        corrected.append(est.estimate - 0.4)
        widths.append(est.high - est.low)
        human_widths.append(est.human_high - est.human_low)
    assert covered / 400 >= 0.93
    assert abs(np.mean(plain)) > 0.08  # the annotator's bias is there …
    assert abs(np.mean(corrected)) < 0.01  # … and removed
    assert np.mean(widths) < np.mean(human_widths)  # the annotator's scores narrow the interval
