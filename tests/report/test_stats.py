"""Bootstrap intervals and paired tests on hand-checkable data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from voxeval.report._stats import bootstrap_ci, paired_test


def test_constant_values_give_zero_width_interval() -> None:
    iv = bootstrap_ci([0.4] * 10)
    assert iv is not None and (iv.mean, iv.low, iv.high, iv.n) == (pytest.approx(0.4),) * 3 + (10,)


def test_empty_and_single() -> None:
    assert bootstrap_ci([]) is None
    one = bootstrap_ci([0.7])
    assert one is not None and one.low == one.high == 0.7


@given(st.lists(st.floats(0, 2), min_size=2, max_size=40))
def test_interval_contains_mean_and_is_seeded(values) -> None:
    a, b = bootstrap_ci(values), bootstrap_ci(values)
    assert a == b
    assert a is not None and a.low - 1e-9 <= a.mean <= a.high + 1e-9


def test_identical_systems_are_not_different() -> None:
    t = paired_test([0.1, 0.5, 0.9], [0.1, 0.5, 0.9])
    assert t is not None and t.p_value == 1.0 and t.mean_diff == 0.0 and t.effect_size == 0.0 and t.ties == 3


def test_clear_difference_is_significant() -> None:
    a = [0.8 + 0.01 * i for i in range(30)]
    b = [0.2 + 0.01 * i for i in range(30)]
    t = paired_test(a, b)
    assert t is not None
    assert t.mean_diff == pytest.approx(0.6) and t.wins == 30 and t.p_value < 0.001
    # All differences equal and non-zero: d_z is undefined, reported as None rather than a huge number.
    assert t.effect_size is None


def test_mixed_difference_effect_size() -> None:
    t = paired_test([1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.5])
    assert t is not None
    # d = [1, 0, 1, .5]: mean .625, sd (ddof 1) = 0.4787 → d_z ≈ 1.306
    assert t.mean_diff == pytest.approx(0.625) and t.effect_size == pytest.approx(0.625 / 0.478713, rel=1e-4)
    assert (t.wins, t.losses, t.ties) == (3, 0, 1)
