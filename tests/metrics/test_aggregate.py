"""The summary's exact sums: numpy's ``exact_sum`` is ``math.fsum``, and threaded summaries equal plain ones."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from voxeval.metrics import _aggregate
from voxeval.metrics._aggregate import exact_sum, summary_of

finite = st.floats(allow_nan=False, allow_infinity=False)
scores = st.floats(0.0, 1.0)
awkward = st.sampled_from([0.1, 0.2, 0.3, 1e-300, 5e-324, -0.0, 0.0, 1e16, -1e16, 1.0, 2.0**-1074, 1 - 2**-53])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(finite, scores, awkward), max_size=60))
def test_exact_sum_is_fsum(values) -> None:
    try:
        want = math.fsum(values)
    except OverflowError:
        return  # fsum overflows where the exact sum does not fit a double; not a case scores reach
    assert exact_sum(np.array(values, dtype=np.float64)) == want


@given(st.lists(st.one_of(st.floats(), awkward), max_size=20))
def test_exact_sum_keeps_fsum_semantics_for_inf_and_nan(values) -> None:
    try:
        want = math.fsum(values)
    except (OverflowError, ValueError) as error:
        try:
            exact_sum(values)
        except type(error):
            return
        raise AssertionError(f"expected {type(error).__name__}") from None
    got = exact_sum(values)
    assert (math.isnan(got) and math.isnan(want)) or got == want


def test_threaded_summary_equals_plain(monkeypatch) -> None:
    rng = np.random.default_rng(3)
    columns = [np.round(rng.random(5000), rng.integers(1, 6)) for _ in range(6)]
    plain = summary_of(*columns)
    monkeypatch.setattr(_aggregate, "THREADED_FROM", 10)
    assert summary_of(*columns) == plain
    assert summary_of(*(c.tolist() for c in columns)) == plain
    assert plain.wlcs_mean == math.fsum(columns[0].tolist()) / 5000


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(finite, scores, awkward), min_size=1, max_size=40), st.integers(1, 7))
def test_chunked_sums_and_spread_equal_fsum(values, chunk) -> None:
    v = np.array(values, dtype=np.float64)
    original = _aggregate.CHUNK
    _aggregate.CHUNK = chunk  # several chunks of a short column: the exact combination across chunks
    try:
        try:
            want_sum = math.fsum(values)
        except OverflowError:
            return
        assert exact_sum(v) == want_sum
        mean = want_sum / len(values)
        with np.errstate(over="ignore"):
            deviation = v - mean
            squares = (deviation * deviation).tolist()
        try:
            want = math.fsum(squares)
        except OverflowError:
            return
        assert _aggregate._squared_deviations(v, mean) == want
    finally:
        _aggregate.CHUNK = original
